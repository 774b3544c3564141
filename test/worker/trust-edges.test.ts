/**
 * The edges a merchant's trust rests on after the payment: retries by another JSON library replay,
 * an AuthToken refusal is named as such, malformed ids are 404 before any Durable Object, metadata
 * is an object of text, the payment carries its email, a starting page is checked as routed.
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { checksum } from '../../shared/gateway/checksum.ts'
import { SANDBOX, TEST_SECRETS } from '../../tools/credentials.ts'
import { browser, call, createSession, merchant, ORIGIN, pay, sessionState } from './api.ts'
import { chargesFor, injectFault, uniqueId } from './helpers.ts'
import { operate, paidPayment, paymentEventually } from './money.ts'

/** A merchant call with the body written exactly as given (key order included). */
const raw = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, {
    method,
    headers: {
      Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body,
  })

describe('idempotency fingerprints are of the canonical body', () => {
  it('the same session body with its keys in another order, under the same Idempotency-Key, replays the session', async () => {
    const key = uniqueId('ck')
    const order = uniqueId('order')
    const first = await raw(
      'POST',
      '/v1/sessions',
      `{"flow":"card","amount":"10.00","currency":"EUR","merchantTransactionId":"${order}","allowedOrigins":["${ORIGIN}"],"metadata":{"a":"1","b":"2"}}`,
      { 'Idempotency-Key': key },
    )
    expect(first.status).toBe(201)
    const again = await raw(
      'POST',
      '/v1/sessions',
      `{"metadata":{"b":"2","a":"1"},"allowedOrigins":["${ORIGIN}"],"merchantTransactionId":"${order}","currency":"EUR","amount":"10.00","flow":"card"}`,
      { 'Idempotency-Key': key },
    )
    expect(again.status).toBe(201)
    expect(again.body.id).toBe(first.body.id)
    // Another body is still another request.
    const other = await raw(
      'POST',
      '/v1/sessions',
      `{"flow":"card","amount":"11.00","currency":"EUR","merchantTransactionId":"${order}","allowedOrigins":["${ORIGIN}"]}`,
      { 'Idempotency-Key': key },
    )
    expect(other.status).toBe(422)
  })
})

describe('operator errors', () => {
  it('a persistent AuthToken refusal on the inquiry route is gateway_auth_failed, not gateway_rejected', async () => {
    const { paymentId } = await paidPayment()
    await injectFault({ op: 'inquiry', fault: 'token_refused', field: 'id', value: paymentId, times: 5 })
    const res = await raw('POST', `/v1/payments/${paymentId}/inquiry`, '{}')
    expect(res.body).toMatchObject({ error: { code: 'gateway_auth_failed' } })
  })
})

describe('malformed ids are 404 before any Durable Object call', () => {
  const foreign = `op_${'ab'.repeat(32)}`

  it('a return to an op_ id that is not an operation of this deployment is 404, not 500', async () => {
    expect((await call(`/v1/return/${foreign}`)).status).toBe(404)
  })

  it('a correctly signed notification to such an id is 404, not 500', async () => {
    const n = {
      paymentId: '1234567890',
      merchantTransactionId: 'x-1',
      amount: '1.00',
      currency: 'EUR',
      transactionStatus: 'Y',
      status: 'Y',
    }
    const sum = await checksum('notification', { ...n, secureKey: SANDBOX.secureKey })
    const res = await call(`/v1/notifications/${foreign}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...n, checksum: sum.ok ? sum.value : '' }),
    })
    expect(res.status).toBe(404)
  })
})

describe('metadata is an object of text values', () => {
  it.each([
    ['an array', '["x"]'],
    ['a string', '"x"'],
    ['a number', '5'],
    ['an object with a number', '{"n":5}'],
  ])('%s is refused with 400 naming metadata', async (_, metadata) => {
    const res = await raw(
      'POST',
      '/v1/sessions',
      `{"flow":"card","amount":"10.00","currency":"EUR","merchantTransactionId":"${uniqueId('order')}","metadata":${metadata}}`,
    )
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.body)).toContain('"field":"metadata')
  })
})

describe("a refusal that is the merchant's configuration is not the shopper's", () => {
  it('"not permitted" (10002, a REPEATED payment before any INITIAL) is gateway_rejected to the browser with our words only, uses no attempt, and its code is in the merchant\'s view', async () => {
    // A card saved by a payment that was not a series' INITIAL: the gateway refuses REPEATED payments with it.
    const first = await createSession({ createRegistration: true })
    expect((await pay(first, '4111111111111111')).body.status).toBe('succeeded')
    const registrationId = (await sessionState(first.id)).registrationId as string
    const s = await createSession({
      flow: 'saved-card',
      registrationId,
      savedCard: { brand: 'visa', last4: '1111' },
      recurringType: 'REPEATED',
      maxAttempts: 1,
    })
    const res = await browser(s, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
    expect(res.body).toMatchObject({ error: { code: 'gateway_rejected' } })
    expect(res.text).not.toContain('10002')
    expect(res.text).not.toMatch(/declined/i)
    // Its one attempt is still there: the refusal took nothing from the shopper.
    expect((await browser(s, 'GET', '')).body).toMatchObject({ status: 'open', attemptsRemaining: 1 })
    const view = await merchant<{ status: string; lastError: { code: string; gatewayCode: string } }>(
      'GET',
      `/v1/sessions/${s.id}`,
    )
    expect(view.body).toMatchObject({ status: 'open', lastError: { code: 'gateway_rejected', gatewayCode: '10002' } })
  })
})

describe('the payment carries the email the gateway was sent', () => {
  it("a shopper's email typed in the widget is on the payment, and GET /v1/payments?email= finds it", async () => {
    const email = `${uniqueId('ada')}@example.com`.toLowerCase()
    const s = await createSession()
    const res = await pay(s, '4111111111111111', uniqueId('k'), {
      customer: { givenName: 'Ada', surname: 'Lovelace', email },
    })
    expect(res.body.status).toBe('succeeded')
    expect(await paymentEventually(res.body.paymentId as string)).toMatchObject({ email })
    let found: string[] = []
    for (let i = 0; i < 60 && found.length === 0; i++) {
      found = (
        await merchant<{ data: { id: string }[] }>('GET', `/v1/payments?email=${encodeURIComponent(email)}`)
      ).body.data.map((p) => p.id)
      if (found.length === 0) await new Promise((r) => setTimeout(r, 100))
    }
    expect(found).toEqual([res.body.paymentId])
  })
})

describe('a starting page is checked as the router will see its path', () => {
  const worker = () => new URL(env.PUBLIC_BASE_URL).origin
  it.each([
    ['a percent-encoded letter', '/%761/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['uppercase hex', '/%46RAME/x'],
    ['double encoding', '/%2576%31/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['encoded dot segments', '/demo/%2e%2e/v1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['an encoded slash', '/demo%2F..%2Fv1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['backslashes', '/demo\\..\\frame\\x'],
    ['another case', '/WIDGET/pay-checkout.js'],
  ])("one of the Worker's own routes behind %s is refused, before any gateway call", async (_, path) => {
    const s = await createSession()
    const res = await pay(s, '4000000000003220', undefined, { returnPage: `${worker()}${path}` })
    expect(res.status, path).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'returnPage' }] })
    expect(await chargesFor(s.mtid)).toBe(0)
  })

  it('a page of the shop with encoded characters in its path is still taken', async () => {
    const s = await createSession()
    const res = await pay(s, '4000000000003220', undefined, { returnPage: `${worker()}/demo/caf%C3%A9` })
    expect(res.body.status).toBe('action_required')
  })
})

describe('a card number in any disguise is refused in free text the Worker stores or forwards', () => {
  // 4111 1111 1111 1111 in full-width digits with thin spaces, with dots, and in Arabic-Indic digits with zero-width spaces;
  // and a Luhn-valid number of an issuer in no brand's range (2973 4943 4840 1310), full-width with slashes.
  const disguises = [
    '４１１１\u2009１１１１\u2009１１１１\u2009１１１１',
    '4111.1111.1111.1111',
    '٤١١١\u200b١١١١\u200b١١١١\u200b١١١١',
    '4111_1111_1111_1111',
    '２９７３/４９４３/４８４０/１３１０',
  ]

  it.each(disguises)('metadata value %s: 400 naming the field, the value never echoed', async (card) => {
    const res = await raw(
      'POST',
      '/v1/sessions',
      JSON.stringify({
        flow: 'card',
        amount: '10.00',
        currency: 'EUR',
        merchantTransactionId: uniqueId('order'),
        metadata: { note: `paid with ${card}` },
      }),
    )
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({
      error: { fields: [expect.objectContaining({ field: 'metadata.note', code: 'not_allowed' })] },
    })
    expect(res.text).not.toContain(card)
    expect(res.text).not.toContain('1111')
  })

  it('a metadata key that is a card number is refused too', async () => {
    const res = await raw(
      'POST',
      '/v1/sessions',
      JSON.stringify({
        flow: 'card',
        amount: '10.00',
        currency: 'EUR',
        merchantTransactionId: uniqueId('order'),
        metadata: { '4111.1111.1111.1111': 'x' },
      }),
    )
    expect(res.status).toBe(400)
    expect(res.text).not.toContain('4111')
  })

  it.each(disguises)('a refund reason %s is refused before any gateway call', async (card) => {
    const { paymentId } = await paidPayment()
    const res = await operate(paymentId, 'refunds', { amount: '1.00', reason: `customer card ${card}` })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({
      fields: [expect.objectContaining({ field: 'reason', code: 'not_allowed' })],
    })
    expect((await paymentEventually(paymentId)).refunds).toEqual([])
  })
})
