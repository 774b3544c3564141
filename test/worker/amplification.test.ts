/**
 * Abuse that costs someone else: a victim's card locked through someone's paid session (R11), and
 * unauthenticated or cheap requests multiplied into gateway calls (R28).
 */
import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { luhnCheckDigit } from '../../shared/card.ts'
import app from '../../worker/index.ts'
import { browser, call, cardBody, createSession, ORIGIN, pay } from './api.ts'
import { injectFault, uniqueId } from './helpers.ts'

/** Counts the Worker's calls to the gateway whose form body matches `test` (the real ones go through). */
function gatewayCalls(test: (form: URLSearchParams, url: string) => boolean): { readonly count: number } {
  const real = globalThis.fetch
  const counter = { count: 0 }
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (request.url.startsWith(env.GATEWAY_BASE_URL) && request.method === 'POST') {
      const form = new URLSearchParams(new TextDecoder().decode(await request.clone().arrayBuffer()))
      if (test(form, request.url)) counter.count++
    }
    return real(request)
  })
  return counter
}

afterEach(() => {
  vi.restoreAllMocks()
})

/** A fresh Visa number no other test uses. */
function freshCard(): string {
  const partial = `4${String(Date.now()).slice(-9)}${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`
  return partial + luhnCheckDigit(partial)
}

/** Pays through the app with the default velocity limit (5 in 10 minutes). */
function payWithDefaults(s: { id: string; clientSecret: string }, number: string, key = uniqueId('v')) {
  return app.fetch(
    new Request(`http://worker.test/v1/checkout/${s.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${s.clientSecret}`,
        Origin: ORIGIN,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: JSON.stringify(cardBody(number)),
    }),
    { ...env, CARD_VELOCITY_LIMIT: undefined },
  )
}

describe('card velocity counts only attempts that really start (R11)', () => {
  it('five pays with a card on an already-paid session (409 each) do not lock that card elsewhere', async () => {
    const victim = freshCard()
    const paid = await createSession()
    expect((await pay(paid, '4111111111111111')).body.status).toBe('succeeded')
    for (let i = 0; i < 5; i++) expect((await payWithDefaults(paid, victim)).status).toBe(409)
    const elsewhere = await createSession()
    expect((await payWithDefaults(elsewhere, victim)).status).toBe(200)
  })

  it('a shopper retrying one Idempotency-Key six times gets the stored reply every time, never 429', async () => {
    const card = freshCard()
    const s = await createSession()
    const key = uniqueId('same')
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await payWithDefaults(s, card, key))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200])
    expect(answers.slice(1).every((a) => a.headers.get('Idempotent-Replayed') === 'true')).toBe(true)
  })
})

describe('no gateway amplification (R28)', () => {
  it('thirty unauthenticated returns to a session waiting on 3-D Secure cost at most two inquiries', async () => {
    const s = await createSession()
    expect((await pay(s, '4000000000003220')).body.status).toBe('action_required')
    const inquiries = gatewayCalls((form) => form.get('paymentType') === 'IN')
    const returns = await Promise.all(Array.from({ length: 30 }, () => call(`/v1/return/${s.id}`)))
    expect(returns.every((r) => r.status === 200 || r.status === 303)).toBe(true)
    expect(inquiries.count).toBeGreaterThanOrEqual(1)
    expect(inquiries.count).toBeLessThanOrEqual(2)
  })

  it('QR verifications count like attempts: forty on one session make at most three gateway calls', async () => {
    const s = await createSession({ flow: 'qr', maxAttempts: 3 })
    const verifies = gatewayCalls((form, url) => url.endsWith('/QRPayments') && !form.has('paymentId'))
    const answers = []
    for (let i = 0; i < 40; i++)
      answers.push(
        await browser(s, 'POST', '/qr/verify', {
          walletId: 'wallet-ok',
          customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
        }),
      )
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3)
    expect(answers.slice(3).every((a) => a.status === 429)).toBe(true)
    expect(verifies.count).toBe(3)
  })

  it('a QR verification whose answer never came is given back: one lost answer does not lock a one-try session, and at most three are given back', async () => {
    const verify = (s: { id: string; clientSecret: string }) =>
      browser(s, 'POST', '/qr/verify', {
        walletId: 'wallet-ok',
        customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
      })
    const once = await createSession({ flow: 'qr', maxAttempts: 1 })
    await injectFault({ op: 'qrVerify', fault: 'http500', field: 'merchantTransactionId', value: once.mtid, times: 1 })
    expect((await verify(once)).status).toBe(503)
    const again = await verify(once)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ status: 'verified' })

    const s = await createSession({ flow: 'qr', maxAttempts: 1 })
    await injectFault({ op: 'qrVerify', fault: 'http500', field: 'merchantTransactionId', value: s.mtid, times: 10 })
    const verifies = gatewayCalls((form, url) => url.endsWith('/QRPayments') && !form.has('paymentId'))
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await verify(s)).status)
    // Three given back, the fourth counts as the session's one try: at most maxAttempts + 3 calls.
    expect(statuses).toEqual([503, 503, 503, 503, 429, 429])
    expect(verifies.count).toBe(4)
  })

  it('ten parallel invoice regenerations of one session make one gateway regeneration', async () => {
    const { client } = await import('./helpers.ts')
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('inv'),
      amount: '10.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
    })
    if (created.kind !== 'succeeded' || !created.response.systemInvoiceId) throw new Error(created.kind)
    const s = await createSession({
      flow: 'invoice',
      amount: '10.00',
      invoiceId: created.response.systemInvoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    const regenerations = gatewayCalls((_, url) => url.endsWith('/invoiceServices/REST/v1/regenerate'))
    const answers = await Promise.all(Array.from({ length: 10 }, () => browser(s, 'POST', '/invoice/regenerate', {})))
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1)
    expect(regenerations.count).toBe(1)
  })
})
