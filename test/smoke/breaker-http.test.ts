/**
 * The decline-rate breaker over real HTTP (R12). Declines from one source (a client's network)
 * pause that source alone: honest shoppers elsewhere keep paying. Declines from several sources at
 * once, as a distributed card-testing wave causes, pause new card attempts for the whole deployment
 * and tell the merchant. Its own stack, with low thresholds (a source: 3 settled attempts; the
 * deployment: 4, from 2 sources; half declined). Sources are told apart by `CF-Connecting-IP`, as
 * Cloudflare sets it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { startStack } from '../../tools/stacks.mjs'
import { startReceiver, type Receiver } from '../support/receiver.ts'

let stack: { stop: () => Promise<unknown> }
let worker: { url: string }
let receiver: Receiver
const state = mkdtempSync(join(tmpdir(), 'pay-breaker-'))
/** Each event delivered, once: delivery is at least once, and a repeat carries the same id. */
const hooks = (): string[] => [
  ...new Map(receiver.hooks.map((h) => [(JSON.parse(h.body) as { id?: string }).id ?? h.body, h.body])).values(),
]

beforeAll(async () => {
  receiver = await startReceiver()
  stack = await startStack({
    stateDir: state,
    vars: {
      MERCHANT_WEBHOOK_URL: receiver.url,
      CARD_VELOCITY_LIMIT: '1000',
      BREAKER_MIN_ATTEMPTS: '4',
      BREAKER_DECLINE_RATE: '0.5',
      // Long enough to be seen on two busy cores: an isolate reads the breaker at most every 5 s,
      // and a session and its pay can take seconds each (with 8 s a pause could end unseen).
      BREAKER_PAUSE_MS: '20000',
      BREAKER_SOURCE_MIN_ATTEMPTS: '3',
      BREAKER_MIN_SOURCES: '2',
    },
  })
  worker = (stack as unknown as { worker: { url: string } }).worker
}, 180_000)

afterAll(async () => {
  await stack?.stop()
  await receiver?.close()
  rmSync(state, { recursive: true, force: true })
})

async function payOnce(
  number: string,
  ip = '198.51.100.20',
): Promise<{ status: number; headers: Headers; body: { status?: string; error?: { code: string } } }> {
  const created = await fetch(`${worker.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      flow: 'card',
      amount: '5.00',
      currency: 'EUR',
      merchantTransactionId: `brk-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
    }),
  })
  const s = (await created.json()) as { id: string; clientSecret: string }
  const res = await fetch(`${worker.url}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.clientSecret}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `k-${Math.random().toString(36).slice(2)}`,
      'CF-Connecting-IP': ip,
    },
    body: JSON.stringify({
      card: { number, expiryMonth: '12', expiryYear: '2030', cvv: '123' },
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    }),
  })
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { status?: string; error?: { code: string } },
  }
}

/**
 * Pays with `card` from `ip` (a new source each time, when `ip` is a function) until refused with
 * 429, within 30 s: an isolate reads the breaker's state at most every 5 s, and on two busy cores
 * (CI runs other suites' files beside this one) a session and its pay can take seconds each.
 */
async function untilPaused(
  ip: string | (() => string),
  card = '4000000000000002',
): Promise<Awaited<ReturnType<typeof payOnce>> | undefined> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const attempt = await payOnce(card, typeof ip === 'string' ? ip : ip())
    if (attempt.status === 429) return attempt
    await new Promise((r) => setTimeout(r, 300))
  }
  return undefined
}

const TESTER = '203.0.113.7'
const SHOPPER = '198.51.100.20'
const SECOND_TESTER = '192.0.2.44'

describe('the decline-rate breaker', () => {
  it('declines from one source pause that source alone: a shopper elsewhere pays, and the deployment is not tripped', async () => {
    for (let i = 0; i < 3; i++) expect((await payOnce('4000000000000002', TESTER)).body.status).toBe('declined')
    const paused = await untilPaused(TESTER)
    expect(paused?.body.error?.code).toBe('payments_paused')
    // Another address of the tester's network is the same source.
    expect((await payOnce('4000000000000002', '203.0.113.99')).status).toBe(429)
    expect((await payOnce('4111111111111111', SHOPPER)).body.status).toBe('succeeded')
    expect(hooks().some((h) => h.includes('"checkout.breaker.tripped"'))).toBe(false)
  }, 90_000)

  it('declines from several sources at once pause new card attempts for everyone (429, Retry-After) and the merchant gets checkout.breaker.tripped; after the pause, checkout.breaker.reset and cards pay again', async () => {
    // The first test's declines, from another network, are still in the window: this first decline
    // may trip the deployment already, and the next two are then declined or, once this isolate has
    // read the breaker again (every 5 s at most), refused.
    expect((await payOnce('4000000000000002', SECOND_TESTER)).body.status).toBe('declined')
    for (let i = 0; i < 2; i++) {
      const next = await payOnce('4000000000000002', SECOND_TESTER)
      expect(next.body.status ?? next.body.error?.code, `decline ${i + 2}`).toMatch(/^(declined|payments_paused)$/)
    }
    // Honest shoppers from networks never seen before, with a good card: refused once the deployment is paused.
    let n = 0
    const newcomer = () => `100.64.${++n}.1`
    const paused = await untilPaused(newcomer, '4111111111111111')
    expect(paused?.body.error?.code).toBe('payments_paused')
    expect(Number(paused?.headers.get('Retry-After'))).toBeGreaterThan(0)
    const until = Date.now() + 10_000
    while (Date.now() < until && !hooks().some((h) => h.includes('"checkout.breaker.tripped"')))
      await new Promise((r) => setTimeout(r, 200))
    const tripped = JSON.parse(hooks().find((h) => h.includes('"checkout.breaker.tripped"')) ?? '{}') as {
      data?: { declines: number; attempts: number }
    }
    expect(tripped.data?.declines).toBeGreaterThanOrEqual(2)
    expect(tripped.data?.attempts).toBeGreaterThanOrEqual(4)
    // The pause (20 s here) ends by itself: the merchant is told, and a card pays.
    const resetBy = Date.now() + 30_000
    while (Date.now() < resetBy && !hooks().some((h) => h.includes('"checkout.breaker.reset"')))
      await new Promise((r) => setTimeout(r, 250))
    expect(hooks().some((h) => h.includes('"checkout.breaker.reset"'))).toBe(true)
    expect((await payOnce('4111111111111111', newcomer())).body.status).toBe('succeeded')
  }, 90_000)

  // After the reset above, a fresh window. The pause needs every attempt counted once (three at
  // least, half declined), and only successes follow the declines: a success counted twice (the
  // gateway's notification and the pay's answer both settling it, a race under load) keeps the
  // share under half for good. Successes never told fail it too: an isolate tells the breaker of
  // its successes together (within a second, or with its next decline), and with the two declines
  // alone counted the pause never comes.
  it("a network's attempts count once each: two paid and two declined pause it", async () => {
    const network = '198.51.100.77'
    for (let i = 0; i < 2; i++) expect((await payOnce('4111111111111111', network)).body.status).toBe('succeeded')
    for (let i = 0; i < 2; i++) expect((await payOnce('4000000000000002', network)).body.status).toBe('declined')
    const paused = await untilPaused(network, '4111111111111111')
    expect(paused?.body.error?.code).toBe('payments_paused')
    expect(hooks().filter((h) => h.includes('"checkout.breaker.tripped"'))).toHaveLength(1)
  }, 90_000)
})
