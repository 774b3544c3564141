/**
 * A QR wallet payment is what the gateway was asked for: the spec's DYNAMIC completion is
 * `paymentType=PA`, an authorisation. It is recorded as one (to capture or void, like a card's),
 * the sandbox holds it as one, and the completion carries the verify step's customer fields.
 */
import { describe, expect, it, vi } from 'vitest'
import { browser, createSession, merchant, webhooksAbout, type Session } from './api.ts'
import { uniqueId } from './helpers.ts'
import { operate, paymentEventually } from './money.ts'

async function qrPaid(): Promise<{ paymentId: string; completion: URLSearchParams | undefined; session: Session }> {
  const s = await createSession({
    flow: 'qr',
    amount: '25.00',
    customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
  })
  expect((await browser(s, 'POST', '/qr/verify', { walletId: 'wallet-ok' })).status).toBe(200)
  // What the completion sends to the gateway, seen on its way (the request goes on unchanged).
  let completion: URLSearchParams | undefined
  const real = globalThis.fetch
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (request.url.endsWith('/QRPayments')) {
      const form = new URLSearchParams(await request.clone().text())
      if (form.get('paymentId')) completion = form
    }
    return real(request)
  })
  try {
    const done = await browser<{ status: string; paymentId: string }>(
      s,
      'POST',
      '/qr/complete',
      {},
      { 'Idempotency-Key': uniqueId('q') },
    )
    expect(done.body.status).toBe('succeeded')
    return { paymentId: done.body.paymentId, completion, session: s }
  } finally {
    spy.mockRestore()
  }
}

describe('a QR wallet payment', () => {
  it('is recorded as the authorisation it is: capture or void it; a refund before the capture is refused', async () => {
    const { paymentId } = await qrPaid()
    expect(await paymentEventually(paymentId)).toMatchObject({
      paymentType: 'PA',
      status: 'authorized',
      source: 'qr',
      amountCaptured: '0.00',
    })
    expect((await operate(paymentId, 'refunds', { amount: '5.00' })).body.error).toMatchObject({
      code: 'payment_state',
    })
    const captured = await operate(paymentId, 'capture', { amount: '25.00' })
    expect(captured.body.operation).toMatchObject({ status: 'succeeded' })
    const refunded = await operate(paymentId, 'refunds', { amount: '5.00' })
    expect(refunded.body.operation).toMatchObject({ status: 'succeeded' })
  })

  it('tells the merchant it is an authorisation: the session and its checkout.session.succeeded say paymentType PA, though the session asked for a sale', async () => {
    const { paymentId, session } = await qrPaid()
    const read = await merchant<{ paymentType: string; paymentId: string }>('GET', `/v1/sessions/${session.id}`)
    expect(read.body).toMatchObject({ paymentType: 'PA', paymentId, method: 'qr' })
    const [hook] = await webhooksAbout(session.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({ data: { paymentType: 'PA', paymentId } })
  })

  it('can be voided instead', async () => {
    const { paymentId } = await qrPaid()
    await paymentEventually(paymentId)
    expect((await operate(paymentId, 'void')).body.operation).toMatchObject({ status: 'succeeded' })
    expect(await paymentEventually(paymentId)).toMatchObject({ status: 'voided' })
  })

  it('its completion carries the customer fields of the verify step (the spec\'s "and the other fields")', async () => {
    const { completion } = await qrPaid()
    expect(completion?.get('paymentType')).toBe('PA')
    expect(completion?.get('customer.givenname')).toBe('Ada')
    expect(completion?.get('customer.surname')).toBe('Lovelace')
    expect(completion?.get('customer.email')).toBe('ada@example.com')
  })
})
