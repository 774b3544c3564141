/**
 * The gateway client's authentication against the sandbox gateway over real HTTP: the AuthToken
 * generated once, cached and refreshed, and the refusals (wrong checksum, wrong or missing token).
 * The operations and test cards: gateway-client.test.ts.
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SANDBOX } from '../../tools/credentials.ts'
import { getAuthToken, jwtExpiry } from '../../worker/gateway/auth-token.ts'
import { checksum } from '../../shared/gateway/checksum.ts'
import { encodeForm } from '../../shared/gateway/form.ts'
import { wirePayment } from '../../tools/wire-payment.ts'
import { cardFields, chargesFor, client, uniqueId } from './helpers.ts'

const base = { amount: '100.00', currency: 'EUR', paymentType: 'DB' }

describe('authentication', () => {
  it('generates an AuthToken once, caches it, and refreshes it before its one-hour expiry', async () => {
    let calls = 0
    const counting: typeof fetch = (input, init) => {
      calls++
      return fetch(input, init)
    }
    const source = {
      baseUrl: env.GATEWAY_BASE_URL,
      partnerId: SANDBOX.partnerId,
      merchantUsername: `${SANDBOX.username}`,
      secureKey: SANDBOX.secureKey,
      timeoutMs: 2000,
      fetch: counting,
    }
    // A distinct base URL spelling keeps this test's cache entry its own.
    const own = { ...source, baseUrl: `${env.GATEWAY_BASE_URL}/` }
    const got = await getAuthToken(own, 'transaction')
    if (!got.ok) throw new Error(`no token: ${got.reason}`)
    const exp = jwtExpiry(got.token) ?? 0
    expect(exp - Date.now()).toBeGreaterThan(59 * 60_000)
    await getAuthToken(own, 'transaction')
    expect(calls).toBe(1)
    await getAuthToken(own, 'transaction', exp - 4 * 60_000)
    expect(calls).toBe(2)
  })

  it('works with a configured fixed token too', async () => {
    const outcome = await client({
      authToken: SANDBOX.authToken,
      partnerId: undefined,
      merchantUsername: undefined,
    }).payment({ ...base, merchantTransactionId: uniqueId('fixed'), ...cardFields('4111111111111111') })
    expect(outcome.kind).toBe('succeeded')
  })

  it('a charge answered with a token refusal (20001) is unknown and never sent again; the inquiry finds no charge', async () => {
    const mtid = uniqueId('tok')
    let sent = 0
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/payments')) sent++
      return fetch(input, init)
    }
    const outcome = await client({ authToken: 'not-the-token', fetch: counting }).payment({
      ...base,
      merchantTransactionId: mtid,
      ...cardFields('4111111111111111'),
    })
    expect(outcome).toMatchObject({ kind: 'unknown', reason: 'token_refused' })
    expect(sent).toBe(1)
    expect(await client().inquiry(mtid, 'MID')).toMatchObject({ kind: 'not_found' })
    expect(await chargesFor(mtid)).toBe(0)
  })

  it("a call that moves no money is refused with the gateway's code when the token is wrong", async () => {
    expect(await client({ authToken: 'not-the-token' }).inquiry(uniqueId('tok'), 'MID')).toMatchObject({
      kind: 'rejected',
      reason: 'auth',
      code: '20001',
    })
  })

  it('an unreachable token service is "unsent: unreachable", refused credentials "unsent: token_refused"', async () => {
    const down = client({ authToken: undefined, baseUrl: 'http://127.0.0.1:9' })
    expect(
      await down.payment({ ...base, merchantTransactionId: uniqueId('down'), ...cardFields('4111111111111111') }),
    ).toEqual({ kind: 'unsent', reason: 'unreachable' })
    const refused = client({ authToken: undefined, partnerId: 'not-the-partner' })
    expect(
      await refused.payment({ ...base, merchantTransactionId: uniqueId('ref'), ...cardFields('4111111111111111') }),
    ).toEqual({ kind: 'unsent', reason: 'token_refused' })
  })

  it('a wrong secure key makes a wrong checksum, refused with 20002', async () => {
    const outcome = await client({ authToken: SANDBOX.authToken, secureKey: 'not-the-key' }).payment({
      ...base,
      merchantTransactionId: uniqueId('sum'),
      ...cardFields('4111111111111111'),
    })
    expect(outcome).toMatchObject({ kind: 'rejected', reason: 'checksum', code: '20002' })
  })

  it('the sandbox refuses a missing token, a tampered amount and parameters in the query string', async () => {
    const mtid = uniqueId('raw')
    const sum = await checksum('payment', {
      memberId: SANDBOX.memberId,
      secureKey: SANDBOX.secureKey,
      merchantTransactionId: mtid,
      amount: '100.00',
    })
    const fields = wirePayment({
      'authentication.checksum': sum.ok ? sum.value : '',
      merchantTransactionId: mtid,
      amount: '0.01',
    })
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${env.GATEWAY_BASE_URL}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: encodeForm(fields),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { result: { code: string } } }))
    const path = '/transactionServices/REST/v1/payments'
    expect(await post(path, {})).toMatchObject({ status: 200, body: { result: { code: '20001' } } })
    expect(await post(path, { AuthToken: SANDBOX.authToken })).toMatchObject({
      status: 200,
      body: { result: { code: '20002' } },
    })
    expect(await post(`${path}?amount=100.00`, { AuthToken: SANDBOX.authToken })).toMatchObject({
      body: { result: { code: '30004' } },
    })
    expect(await chargesFor(mtid)).toBe(0)
  })

  it('joins several validation errors in one result, "c1 | c2", naming fields but not values', async () => {
    const res = await fetch(`${env.GATEWAY_BASE_URL}/transactionServices/REST/v1/payments`, {
      method: 'POST',
      headers: { AuthToken: SANDBOX.authToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encodeForm({ 'card.number': '4111111111111111', amount: '1' }),
    })
    const body = (await res.json()) as { result: { code: string; description: string } }
    expect(body.result.code).toMatch(/^3\d{4}( \| 3\d{4})+$/)
    expect(body.result.description).toContain('amount')
    expect(body.result.description).not.toContain('4111111111111111')
  })
})
