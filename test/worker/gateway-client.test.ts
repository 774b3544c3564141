/**
 * The gateway client against the sandbox gateway over real HTTP: every operation, every test
 * card, and the refusals (wrong checksum, wrong or missing AuthToken).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SANDBOX } from '../../tools/credentials.ts'
import { checksum } from '../../shared/gateway/checksum.ts'
import { cardFields, catcherUrl, chargesFor, client, injectFault, notificationsFor, uniqueId } from './helpers.ts'

const base = { amount: '100.00', currency: 'EUR', paymentType: 'DB' }

describe('initial card payment, by test card', () => {
  it.each([
    ['4111111111111111', 'VISA'],
    ['5555555555554444', 'MC'],
    ['378282246310005', 'AMEX'],
  ])('%s succeeds with 00001 / Y', async (number, brand) => {
    const mtid = uniqueId('ok')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields(number) })
    expect(outcome.kind).toBe('succeeded')
    if (outcome.kind !== 'succeeded') return
    expect(outcome.code).toBe('00001')
    expect(outcome.response.transactionStatus).toBe('Y')
    expect(outcome.response.paymentBrand).toBe(brand)
    expect(outcome.response.cardLast4).toBe(number.slice(-4))
    expect(outcome.response.paymentId).toMatch(/^\d+$/)
    expect(outcome.response.merchantTransactionId).toBe(mtid)
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('4000 0000 0000 0002 is declined with 10001 / N', async () => {
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('decl'),
      ...cardFields('4000000000000002'),
    })
    expect(outcome).toMatchObject({ kind: 'declined', code: '10001', response: { transactionStatus: 'N' } })
  })

  it('4000 0000 0000 3220 needs 3-D Secure: a redirect to the sandbox ACS', async () => {
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('3ds'),
      merchantRedirectUrl: 'https://shop.example/return',
      ...cardFields('4000000000003220'),
    })
    expect(outcome.kind).toBe('action_required')
    if (outcome.kind !== 'action_required') return
    expect(outcome.redirect.url).toBe(`${env.GATEWAY_BASE_URL}/acs/${outcome.response.paymentId}`)
    expect(outcome.redirect.method).toBe('POST')
    expect(outcome.redirect.parameters.map((p) => p.name)).toEqual(['PaReq', 'MD'])
    const acs = await fetch(outcome.redirect.url, {
      method: 'POST',
      body: new URLSearchParams(outcome.redirect.parameters.map((p) => [p.name, p.value])),
    })
    expect(acs.status).toBe(200)
    expect(await acs.text()).toContain('Authenticate')
  })

  it('3-D Secure completed on the ACS returns the shopper, notifies, and the payment succeeds', async () => {
    const tag = uniqueId('3dsn')
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: tag,
      merchantRedirectUrl: 'https://shop.example/return',
      redirectMethod: 'GET',
      notificationUrl: catcherUrl(tag),
      ...cardFields('4000000000003220'),
    })
    if (outcome.kind !== 'action_required') throw new Error(`expected action_required, got ${outcome.kind}`)
    const back = await fetch(`${outcome.redirect.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    expect(back.status).toBe(303)
    const location = new URL(back.headers.get('Location') ?? '')
    expect(location.origin + location.pathname).toBe('https://shop.example/return')
    expect(location.searchParams.get('status')).toBe('Y')
    const [note] = await notificationsFor(tag)
    expect(note).toMatchObject({ paymentId: outcome.response.paymentId, transactionStatus: 'Y', amount: '100.00' })
    const inquiry = await client().inquiry(outcome.response.paymentId ?? '', 'PID')
    expect(inquiry.kind).toBe('succeeded')
  })

  it('4000 0000 0000 0259 is pending, then settled by a signed notification', async () => {
    const tag = uniqueId('pend')
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: tag,
      notificationUrl: catcherUrl(tag),
      ...cardFields('4000000000000259'),
    })
    expect(outcome).toMatchObject({ kind: 'pending', response: { transactionStatus: 'P' } })
    const [note] = await notificationsFor(tag)
    expect(note).toMatchObject({
      merchantTransactionId: tag,
      transactionStatus: 'Y',
      amount: '100.00',
      currency: 'EUR',
    })
    const expected = await checksum('notification', {
      paymentId: String(note?.paymentId),
      merchantTransactionId: tag,
      amount: '100.00',
      transactionStatus: 'Y',
      secureKey: SANDBOX.secureKey,
    })
    expect(expected.ok && note?.checksum === expected.value).toBe(true)
    expect(JSON.stringify(note)).not.toContain('4000000000000259')
    expect((await client().inquiry(tag, 'MID')).kind).toBe('succeeded')
  })

  it('4000 0000 0000 0119 answers HTTP 500: unknown, and the inquiry finds the recorded payment', async () => {
    const mtid = uniqueId('h500')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4000000000000119') })
    expect(outcome).toEqual({ kind: 'unknown', reason: 'http_status', status: 500 })
    expect(await client().inquiry(mtid, 'MID')).toMatchObject({
      kind: 'succeeded',
      response: { merchantTransactionId: mtid },
    })
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('4000 0000 0000 9995 answers too late: unknown (timeout), and the inquiry finds the payment', async () => {
    const mtid = uniqueId('slow')
    const outcome = await client({ timeoutMs: 800 }).payment({
      ...base,
      merchantTransactionId: mtid,
      ...cardFields('4000000000009995'),
    })
    expect(outcome).toEqual({ kind: 'unknown', reason: 'timeout' })
    expect((await client().inquiry(mtid, 'MID')).kind).toBe('succeeded')
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('a JPY amount goes out with two decimals and is signed as sent', async () => {
    const outcome = await client().payment({
      ...cardFields('4111111111111111'),
      amount: '1000.00',
      currency: 'JPY',
      paymentType: 'PA',
      merchantTransactionId: uniqueId('jpy'),
    })
    expect(outcome).toMatchObject({
      kind: 'succeeded',
      response: { amount: '1000.00', currency: 'JPY', paymentType: 'PA' },
    })
  })

  it('a second live charge with the same merchantTransactionId is refused by the gateway', async () => {
    const mtid = uniqueId('dup')
    expect(
      (await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111111') })).kind,
    ).toBe('succeeded')
    expect(
      await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111111') }),
    ).toMatchObject({ kind: 'rejected', reason: 'validation', code: '30005' })
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('refuses invalid input before anything is sent', async () => {
    const mtid = uniqueId('bad')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111112') })
    expect(outcome).toEqual({ kind: 'invalid', fields: [{ field: 'card.number', code: 'format' }] })
    const pipe = await client().payment({ ...base, merchantTransactionId: 'a|9.99', ...cardFields('4111111111111111') })
    expect(pipe.kind).toBe('invalid')
    expect(await chargesFor(mtid)).toBe(0)
  })
})

describe('recurring: registrations and repeats', () => {
  it('an INITIAL payment with createRegistration returns a registrationId; repeats by registration and by payment id succeed', async () => {
    const first = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('init'),
      recurringType: 'INITIAL',
      createRegistration: 'true',
      ...cardFields('4111111111111111'),
    })
    expect(first.kind).toBe('succeeded')
    if (first.kind !== 'succeeded') return
    const registrationId = first.response.registrationId ?? ''
    expect(registrationId).toMatch(/^R\d+$/)
    const byToken = await client().payWithToken(registrationId, 'REPEATED', {
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'DB',
      cvv: '123',
    })
    expect(byToken).toMatchObject({ kind: 'succeeded', response: { registrationId } })
    const byId = await client().repeat(first.response.paymentId ?? '', {
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'DB',
    })
    expect(byId.kind).toBe('succeeded')
    if (byId.kind === 'succeeded') expect(byId.response.paymentId).not.toBe(first.response.paymentId)
  })

  it('refuses a REPEATED payment before the INITIAL one, then allows it after paywithtoken INITIAL', async () => {
    const first = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('reg'),
      createRegistration: 'true',
      ...cardFields('5555555555554444'),
    })
    if (first.kind !== 'succeeded') throw new Error(first.kind)
    const registrationId = first.response.registrationId ?? ''
    const early = await client().payWithToken(registrationId, 'REPEATED', {
      amount: '5.00',
      currency: 'EUR',
      paymentType: 'DB',
      cvv: '123',
    })
    expect(early).toMatchObject({ kind: 'rejected', reason: 'merchant', code: '10002' })
    expect(
      (
        await client().payWithToken(registrationId, 'INITIAL', {
          amount: '5.00',
          currency: 'EUR',
          paymentType: 'DB',
          cvv: '123',
          ip: '203.0.113.7',
        })
      ).kind,
    ).toBe('succeeded')
    expect(
      (
        await client().payWithToken(registrationId, 'REPEATED', {
          amount: '5.00',
          currency: 'EUR',
          paymentType: 'DB',
          cvv: '123',
        })
      ).kind,
    ).toBe('succeeded')
  })

  it('a repeat of a one-off payment is not permitted; of an unknown payment, not found', async () => {
    const one = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('one'),
      ...cardFields('4111111111111111'),
    })
    if (one.kind !== 'succeeded') throw new Error(one.kind)
    expect(
      await client().repeat(one.response.paymentId ?? '', { amount: '1.00', currency: 'EUR', paymentType: 'DB' }),
    ).toMatchObject({ kind: 'rejected', reason: 'merchant', code: '10002' })
    expect(await client().repeat('999999999999', { amount: '1.00', currency: 'EUR', paymentType: 'DB' })).toMatchObject(
      { kind: 'not_found', code: '10026' },
    )
  })
})

describe('status inquiry', () => {
  it('finds a payment by id and by merchantTransactionId, and says not found for others', async () => {
    const mtid = uniqueId('inq')
    const paid = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4000000000000002') })
    if (paid.kind !== 'declined') throw new Error(paid.kind)
    expect(await client().inquiry(paid.response.paymentId ?? '', 'PID')).toMatchObject({
      kind: 'declined',
      response: { merchantTransactionId: mtid },
    })
    expect((await client().inquiry(mtid, 'MID')).kind).toBe('declined')
    expect(await client().inquiry(uniqueId('none'), 'MID')).toMatchObject({ kind: 'not_found', code: '10026' })
  })
})

describe('a gateway answering with a redirect', () => {
  it('is never followed: the AuthToken, the secure key and the signed fields reach no other address; the outcome is not success', async () => {
    // Every request of this client goes to a server that redirects it (307: method and body kept).
    const moved = client({ fetch: (_input, init) => fetch(`${env.CATCHER_URL}/moved`, init) })
    const verify = await moved.qrVerify({
      merchantTransactionId: uniqueId('qr-moved'),
      paymentType: 'DB',
      qrGivenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
      walletId: 'wallet-ok',
      walletAmount: '25.00',
      walletCurrency: 'EUR',
    })
    // A request that may have been processed: unknown, to be asked about, never taken as done.
    expect(verify.kind).toBe('unknown')
    // The AuthToken request (it carries the secure key) goes first for a payment.
    const payment = await moved.payment({
      ...base,
      merchantTransactionId: uniqueId('moved'),
      ...cardFields('4111111111111111'),
    })
    expect(['unsent', 'unknown']).toContain(payment.kind)
    expect(await (await fetch(`${env.CATCHER_URL}/elsewhere-gateway`)).json()).toEqual([])
  })
})

describe('QR wallet', () => {
  const verify = (walletId: string, mtid: string) =>
    client().qrVerify({
      merchantTransactionId: mtid,
      paymentType: 'DB',
      qrGivenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
      walletId,
      walletAmount: '25.00',
      walletCurrency: 'EUR',
    })

  it('wallet-ok: verify answers paymentId + merchantWalletId, complete succeeds', async () => {
    const v = await verify('wallet-ok', uniqueId('qr'))
    expect(v).toMatchObject({ kind: 'succeeded', code: '00008' })
    if (v.kind !== 'succeeded') return
    expect(v.response.merchantWalletId).toMatch(/^MW\d+$/)
    const done = await client().qrComplete({
      qrPaymentId: v.response.paymentId ?? '',
      amount: '25.00',
      currency: 'EUR',
      paymentType: 'PA',
    })
    expect(done).toMatchObject({ kind: 'succeeded', response: { paymentId: v.response.paymentId } })
  })

  it('wallet-declined: complete is declined', async () => {
    const v = await verify('wallet-declined', uniqueId('qrd'))
    if (v.kind !== 'succeeded') throw new Error(v.kind)
    expect(
      await client().qrComplete({
        qrPaymentId: v.response.paymentId ?? '',
        amount: '25.00',
        currency: 'EUR',
        paymentType: 'PA',
      }),
    ).toMatchObject({ kind: 'declined', code: '10001' })
  })

  it('a completion answered "pending" (transactionStatus P, 00002) is pending, not paid: only its notification settles it', async () => {
    const v = await verify('wallet-ok', uniqueId('qrp'))
    if (v.kind !== 'succeeded') throw new Error(v.kind)
    const qrPaymentId = v.response.paymentId ?? ''
    await injectFault({ op: 'qrComplete', fault: 'late_pending', field: 'paymentId', value: qrPaymentId })
    expect(
      await client().qrComplete({ qrPaymentId, amount: '25.00', currency: 'EUR', paymentType: 'PA' }),
    ).toMatchObject({ kind: 'pending', code: '00002' })
  })

  it('complete needs the paymentId of a verify step, with the same amount', async () => {
    expect(
      (await client().qrComplete({ qrPaymentId: '123456', amount: '25.00', currency: 'EUR', paymentType: 'PA' })).kind,
    ).toBe('not_found')
    const v = await verify('wallet-ok', uniqueId('qrm'))
    if (v.kind !== 'succeeded') throw new Error(v.kind)
    expect(
      await client().qrComplete({
        qrPaymentId: v.response.paymentId ?? '',
        amount: '24.00',
        currency: 'EUR',
        paymentType: 'PA',
      }),
    ).toMatchObject({ kind: 'rejected', code: '30006' })
  })

  it('uses the partner QR token: a wrong one is refused', async () => {
    expect(
      await client({ qrAuthToken: 'wrong' }).qrVerify({
        merchantTransactionId: uniqueId('qrt'),
        paymentType: 'DB',
        qrGivenName: 'A',
        surname: 'B',
        email: 'a@b.co',
        walletId: 'wallet-ok',
        walletAmount: '1.00',
        walletCurrency: 'EUR',
      }),
    ).toMatchObject({
      kind: 'rejected',
      reason: 'auth',
      code: '20001',
    })
  })
})

describe('invoices', () => {
  it('regenerates an existing invoice; its transactionUrl is a payment page the sandbox serves', async () => {
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('inv'),
      amount: '250.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
      customerEmail: 'ada@example.com',
    })
    expect(created.kind).toBe('succeeded')
    if (created.kind !== 'succeeded') return
    const expired = await fetch(created.response.transactionUrl ?? '')
    expect(await expired.text()).toContain('expired')
    const next = await client().regenerateInvoice({
      invoiceId: created.response.systemInvoiceId ?? '',
      merchantInvoiceId: uniqueId('inv2'),
      invoiceExpirationPeriod: '24',
      merchantRedirectUrl: 'https://shop.example/invoice/return?x=1&y=2',
    })
    expect(next).toMatchObject({
      kind: 'succeeded',
      code: '00013',
      response: { amount: '250.00', currency: 'EUR', invoiceExpirationPeriod: '24' },
    })
    if (next.kind !== 'succeeded') return
    expect(next.response.createdTime).toMatch(/^ \d{2}:\d{2}:\d{2}\.$/)
    const page = await fetch(next.response.transactionUrl ?? '')
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Pay 250.00 EUR')
  })

  it('refuses to regenerate an invoice that does not exist', async () => {
    expect(
      await client().regenerateInvoice({
        invoiceId: 'INV000',
        merchantInvoiceId: uniqueId('x'),
        invoiceExpirationPeriod: '1',
        merchantRedirectUrl: 'https://shop.example/r',
      }),
    ).toMatchObject({
      kind: 'not_found',
    })
  })
})

describe('injected faults (after the gateway recorded the charge)', () => {
  it.each(['timeout', 'http500', 'unparseable'] as const)(
    '%s on a repeat: unknown, then the inquiry finds exactly one charge',
    async (fault) => {
      const first = await client().payment({
        ...base,
        merchantTransactionId: uniqueId('fi'),
        recurringType: 'INITIAL',
        ...cardFields('4111111111111111'),
      })
      if (first.kind !== 'succeeded') throw new Error(first.kind)
      const mtid = uniqueId(`rep-${fault}`)
      await injectFault({ op: 'repeat', fault, field: 'merchantTransactionId', value: mtid })
      const outcome = await client({ timeoutMs: 800 }).repeat(first.response.paymentId ?? '', {
        amount: '3.00',
        currency: 'EUR',
        paymentType: 'DB',
        merchantTransactionId: mtid,
      })
      expect(outcome.kind).toBe('unknown')
      expect((await client().inquiry(mtid, 'MID')).kind).toBe('succeeded')
      expect(await chargesFor(mtid)).toBe(1)
    },
  )
})
