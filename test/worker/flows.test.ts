/**
 * The saved-card, QR wallet and invoice flows through the browser routes.
 */
import { describe, expect, it } from 'vitest'
import {
  browser,
  createSession,
  deliverNotification,
  merchant,
  notificationSentFor,
  pay,
  payInvoicePage,
  sessionState,
} from './api.ts'
import { chargesFor, client, uniqueId } from './helpers.ts'

describe('saved card', () => {
  it('pays with the registration from a first payment, CVV only', async () => {
    const first = await createSession({ recurring: 'INITIAL', createRegistration: true })
    expect((await pay(first, '4111111111111111')).body.status).toBe('succeeded')
    const registrationId = (await sessionState(first.id)).registrationId as string
    expect(registrationId).toMatch(/^R\d+$/)
    const s = await createSession({
      flow: 'saved-card',
      registrationId,
      savedCard: { brand: 'visa', last4: '1111' },
      amount: '9.99',
    })
    expect((await browser(s, 'GET', '')).body).toMatchObject({
      flow: 'saved-card',
      savedCard: { brand: 'visa', last4: '1111' },
    })
    const res = await browser(s, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
    expect(res.body).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '1111' } })
  })

  it('refuses card numbers and a CVV of the wrong length on a saved card', async () => {
    const s = await createSession({
      flow: 'saved-card',
      registrationId: 'R123',
      savedCard: { brand: 'amex', last4: '0005' },
    })
    const withNumber = await browser(
      s,
      'POST',
      '/pay',
      { card: { cvv: '1234', number: '4111111111111111' } },
      { 'Idempotency-Key': uniqueId('k') },
    )
    expect(withNumber.status).toBe(400)
    const short = await browser(s, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
    expect(short.body).toMatchObject({
      error: { code: 'invalid_request', fields: [expect.objectContaining({ field: 'card.cvv', code: 'length' })] },
    })
  })
})

describe('QR wallet', () => {
  it('verify shows the merchant wallet id; complete pays once', async () => {
    const s = await createSession({
      flow: 'qr',
      amount: '25.00',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const verified = await browser<{ status: string; merchantWalletId: string; expiresAt: string }>(
      s,
      'POST',
      '/qr/verify',
      { walletId: 'wallet-ok' },
    )
    expect(verified.status).toBe(200)
    expect(verified.body.merchantWalletId).toMatch(/^MW\d+$/)
    expect(Date.parse(verified.body.expiresAt)).toBeGreaterThan(Date.now())
    expect((await browser(s, 'GET', '')).body).toMatchObject({
      qr: { merchantWalletId: verified.body.merchantWalletId },
    })
    const key = uniqueId('q')
    const [a, b] = await Promise.all([
      browser(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': key }),
      browser(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': key }),
    ])
    const done = [a, b].find((r) => r.status === 200)
    expect(done?.body).toMatchObject({ status: 'succeeded' })
    expect((await sessionState(s.id)).status).toBe('succeeded')
    expect(await chargesFor(s.mtid)).toBe(1)
  })

  it('wallet-declined is declined at completion, told as a wallet’s decline (not a card’s)', async () => {
    const s = await createSession({ flow: 'qr' })
    expect(
      (
        await browser(s, 'POST', '/qr/verify', {
          walletId: 'wallet-declined',
          customer: { givenName: 'A', surname: 'B', email: 'a@b.co' },
        })
      ).status,
    ).toBe(200)
    expect((await browser(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': uniqueId('q') })).body).toMatchObject({
      status: 'declined',
      message: 'Your wallet payment was declined.',
    })
  })

  it('needs name and email unless prefilled, and refuses an amount', async () => {
    const s = await createSession({ flow: 'qr' })
    const res = await browser(s, 'POST', '/qr/verify', { walletId: 'wallet-ok' })
    expect(res.body).toMatchObject({ error: { code: 'invalid_request' } })
    expect((res.body as { error: { fields: unknown[] } }).error.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'customer.email', code: 'required' })]),
    )
    const tamper = await browser(s, 'POST', '/qr/verify', {
      walletId: 'wallet-ok',
      amount: '0.01',
      customer: { givenName: 'A', surname: 'B', email: 'a@b.co' },
    })
    expect(tamper.body).toMatchObject({ error: { code: 'param_mismatch' } })
    const early = await browser(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': uniqueId('q') })
    expect(early.status).toBe(400)
  })
})

describe('invoice', () => {
  it('regenerates an expired invoice; the hosted page pays it; the notification settles the session', async () => {
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('old'),
      amount: '250.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
    })
    if (created.kind !== 'succeeded') throw new Error(created.kind)
    const ref = uniqueId('new')
    const s = await createSession({
      flow: 'invoice',
      amount: '250.00',
      invoiceId: created.response.systemInvoiceId,
      merchantInvoiceId: ref,
      invoiceExpirationPeriod: '24',
    })
    expect((await browser(s, 'GET', '')).body).toMatchObject({
      flow: 'invoice',
      invoice: { merchantInvoiceId: ref, regenerated: null },
    })
    const regen = await browser<{
      status: string
      invoice: { transactionUrl: string; merchantInvoiceId: string; amount: string }
    }>(s, 'POST', '/invoice/regenerate', {})
    expect(regen.body).toMatchObject({ status: 'regenerated', invoice: { merchantInvoiceId: ref, amount: '250.00' } })
    const again = await browser(s, 'POST', '/invoice/regenerate', {})
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toMatchObject({ invoice: { transactionUrl: regen.body.invoice.transactionUrl } })
    // The shopper pays on the gateway's hosted page.
    await payInvoicePage(regen.body.invoice.transactionUrl)
    const note = await notificationSentFor(s.id)
    expect((await deliverNotification(s.id, note)).status).toBe(200)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded' })
  })

  it('pay and QR routes refuse an invoice session', async () => {
    const s = await createSession({
      flow: 'invoice',
      invoiceId: 'INV1',
      merchantInvoiceId: uniqueId('m'),
      invoiceExpirationPeriod: '1',
    })
    expect((await pay(s, '4111111111111111')).status).toBe(403)
    const qr = await browser(s, 'POST', '/qr/verify', {
      walletId: 'wallet-ok',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    expect(qr.status).toBe(403)
    expect(qr.body).toMatchObject({ error: { code: 'forbidden' } })
    expect((await merchant('GET', `/v1/sessions/${s.id}`)).body).toMatchObject({ status: 'open' })
  })
})
