/**
 * The decline-rate breaker over real HTTP (R12): a burst of declines across sessions, as card
 * testers cause, pauses new card attempts for the whole deployment and tells the merchant.
 * Its own stack, with a low threshold (4 settled attempts, half declined).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRETS } from '../support/credentials.ts'
import { startStack } from '../support/processes.mjs'
import { startReceiver, type Receiver } from '../support/receiver.ts'

let stack: { stop: () => Promise<unknown> }
let worker: { url: string }
let receiver: Receiver
const state = mkdtempSync(join(tmpdir(), 'pay-breaker-'))
const hooks = (): string[] => receiver.hooks.map((h) => h.body)

beforeAll(async () => {
  receiver = await startReceiver()
  stack = await startStack({
    stateDir: state,
    vars: { MERCHANT_WEBHOOK_URL: receiver.url, CARD_VELOCITY_LIMIT: '1000', BREAKER_MIN_ATTEMPTS: '4', BREAKER_DECLINE_RATE: '0.5', BREAKER_PAUSE_MS: '8000' },
  })
  worker = (stack as unknown as { worker: { url: string } }).worker
}, 180_000)

afterAll(async () => {
  await stack?.stop()
  await receiver?.close()
  rmSync(state, { recursive: true, force: true })
})

async function payOnce(number: string): Promise<{ status: number; headers: Headers; body: { status?: string; error?: { code: string } } }> {
  const created = await fetch(`${worker.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ flow: 'card', amount: '5.00', currency: 'EUR', merchantTransactionId: `brk-${Date.now()}-${Math.random().toString(36).slice(2, 8)}` }),
  })
  const s = (await created.json()) as { id: string; clientSecret: string }
  const res = await fetch(`${worker.url}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.clientSecret}`, 'Content-Type': 'application/json', 'Idempotency-Key': `k-${Math.random().toString(36).slice(2)}` },
    body: JSON.stringify({ card: { number, expiryMonth: '12', expiryYear: '2030', cvv: '123' }, customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' } }),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as { status?: string; error?: { code: string } } }
}

describe('the decline-rate breaker', () => {
  it('after a burst of declines across sessions, new card attempts are paused (429, Retry-After) and the merchant gets checkout.breaker.tripped; after the pause, checkout.breaker.reset and cards pay again', async () => {
    for (let i = 0; i < 4; i++) expect((await payOnce('4000000000000002')).body.status).toBe('declined')
    const deadline = Date.now() + 15_000
    let paused: Awaited<ReturnType<typeof payOnce>> | undefined
    while (Date.now() < deadline && !paused) {
      const attempt = await payOnce('4000000000000002')
      if (attempt.status === 429) paused = attempt
      else await new Promise((r) => setTimeout(r, 500))
    }
    expect(paused?.body.error?.code).toBe('payments_paused')
    expect(Number(paused?.headers.get('Retry-After'))).toBeGreaterThan(0)
    const until = Date.now() + 10_000
    while (Date.now() < until && !hooks().some((h) => h.includes('"checkout.breaker.tripped"'))) await new Promise((r) => setTimeout(r, 200))
    const tripped = JSON.parse(hooks().find((h) => h.includes('"checkout.breaker.tripped"')) ?? '{}') as { data?: { declines: number; attempts: number } }
    expect(tripped.data?.declines).toBeGreaterThanOrEqual(2)
    expect(tripped.data?.attempts).toBeGreaterThanOrEqual(4)
    // The pause (8 s here) ends by itself: the merchant is told, and a card pays.
    const resetBy = Date.now() + 15_000
    while (Date.now() < resetBy && !hooks().some((h) => h.includes('"checkout.breaker.reset"'))) await new Promise((r) => setTimeout(r, 250))
    expect(hooks().some((h) => h.includes('"checkout.breaker.reset"'))).toBe(true)
    expect((await payOnce('4111111111111111')).body.status).toBe('succeeded')
  }, 60_000)
})
