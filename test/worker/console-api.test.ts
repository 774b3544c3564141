/**
 * What the merchant console reads and does through the merchant API (issue 24, README "Merchant
 * console"): each event's webhook delivery (pending, delivered, failing with its next try, tried
 * again at once; a delivered one not sent again) and
 * the overview (volume and count per day, success rate, top decline reasons). Over the public
 * routes, webhooks to the test catcher, the sandbox gateway over real HTTP.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { browser, call, cardBody, createSession, merchant, newProfile, ORIGIN, pay, type Answer } from './api.ts'
import { uniqueId } from './helpers.ts'
import { DECLINE } from './outcome-support.ts'

interface Delivery {
  id: string
  type: string
  sessionId: string | null
  paymentId: string | null
  status: 'pending' | 'delivered' | 'failing'
  tries: number
  lastStatus: number | null
  nextRetryAt: string | null
  createdAt: string
}
type Page<T> = { data: T[]; has_more: boolean }

/** Polls the deliveries at `query` until one of type `type` meets `predicate`. */
async function deliveryEventually(
  query: string,
  type: string,
  predicate: (d: Delivery) => boolean,
  timeoutMs = 15_000,
): Promise<Delivery> {
  let last: unknown
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const res = await merchant<Page<Delivery>>('GET', `/v1/webhooks/deliveries?${query}`)
    last = res.body
    const found = res.body.data?.find((d) => d.type === type && predicate(d))
    if (found) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no ${type} delivery as expected at ${query}: ${JSON.stringify(last).slice(0, 400)}`)
}

/** How many times the catcher received event `id` (every delivery, repeats included). */
async function receivedTimes(mtid: string, id: string): Promise<number> {
  const items = (await (await fetch(`${env.CATCHER_URL}/webhooks?mtid=${mtid}`)).json()) as { body: string }[]
  return items.filter((i) => (JSON.parse(i.body) as { id: string }).id === id).length
}

describe('webhook deliveries', () => {
  it('a paid session’s events are recorded delivered, with the answer’s status, under its session and its payment', async () => {
    const s = await createSession()
    const paid = await pay(s, '4111111111111111')
    expect(paid.body.status).toBe('succeeded')
    const succeeded = await deliveryEventually(
      `session=${s.id}`,
      'checkout.session.succeeded',
      (d) => d.status === 'delivered',
    )
    expect(succeeded).toMatchObject({ sessionId: s.id, paymentId: paid.body.paymentId, tries: 1, lastStatus: 200 })
    expect(succeeded.nextRetryAt).toBeNull()
    // A payment's page asks for its events and its session's together.
    const story = await merchant<Page<Delivery>>(
      'GET',
      `/v1/webhooks/deliveries?payment=${paid.body.paymentId}&session=${s.id}`,
    )
    expect(story.body.data.map((d) => d.id)).toContain(succeeded.id)
    expect(await receivedTimes(s.mtid, succeeded.id)).toBe(1)
  })

  it('a delivery the receiver keeps refusing shows failing with its last status and next try, the events behind it pending; sending it again tries it at once', async () => {
    // The catcher answers 500 to the first nine tries of an order named fail9-… (backoff: minutes in all).
    const s = await createSession({ merchantTransactionId: uniqueId('fail9') })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const failing = await deliveryEventually(
      `session=${s.id}&status=failing`,
      'checkout.attempt.processing',
      (d) => d.tries >= 1,
    )
    expect(failing.lastStatus).toBe(500)
    expect(Date.parse(failing.nextRetryAt ?? '')).toBeGreaterThan(Date.parse(failing.createdAt))
    // Its session's later events wait behind it, in their order: queued, not tried.
    const behind = await deliveryEventually(`session=${s.id}`, 'checkout.session.succeeded', () => true)
    expect(behind).toMatchObject({ status: 'pending', tries: 0, lastStatus: null })

    const again = await merchant<Delivery>('POST', `/v1/webhooks/deliveries/${failing.id}/send-again`)
    expect(again.status).toBe(202)
    expect(again.body).toMatchObject({ id: failing.id, status: 'pending' })
    await deliveryEventually(`session=${s.id}`, 'checkout.attempt.processing', (d) => d.tries > failing.tries)
  })

  it('does not send a delivered event again (a receiver may have forgotten its id), and knows no other event', async () => {
    const s = await createSession()
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const delivered = await deliveryEventually(
      `session=${s.id}`,
      'checkout.session.succeeded',
      (d) => d.status === 'delivered',
    )
    const again = await merchant<{ error: { code: string } }>(
      'POST',
      `/v1/webhooks/deliveries/${delivered.id}/send-again`,
    )
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('already_delivered')
    await new Promise((r) => setTimeout(r, 300))
    expect(await receivedTimes(s.mtid, delivered.id)).toBe(1)

    expect((await merchant('POST', '/v1/webhooks/deliveries/evt_000000000000000000000000/send-again')).status).toBe(404)
    expect((await merchant('POST', '/v1/webhooks/deliveries/not-an-event/send-again')).status).toBe(404)
    const bad = await merchant<{ error: { fields: { field: string; code: string }[] } }>(
      'GET',
      '/v1/webhooks/deliveries?status=lost&session=cs_1',
    )
    expect(bad.status).toBe(400)
    expect(bad.body.error.fields.map((f) => `${f.field}:${f.code}`).sort()).toEqual([
      'session:format',
      'status:invalid_value',
    ])
  })
})

describe('the overview', () => {
  it('counts the day’s payments and volume per currency, the attempts’ success rate and the top decline reason', async () => {
    // A merchant of its own: the figures are exactly this test's.
    const shop = await newProfile(45, { allowedOrigins: [ORIGIN] })
    const as = <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Answer<T>> =>
      call<T>(path, {
        method,
        headers: { Authorization: `Bearer ${shop.apiKey.key}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const session = async (amount: string) => {
      const res = await as<{ id: string; clientSecret: string }>('POST', '/v1/sessions', {
        flow: 'card',
        amount,
        currency: 'EUR',
        merchantTransactionId: uniqueId('ov'),
        allowedOrigins: [ORIGIN],
      })
      return res.body
    }
    const payWith = (s: { id: string; clientSecret: string }, card: string) =>
      browser<{ status: string }>(s, 'POST', '/pay', cardBody(card), { 'Idempotency-Key': uniqueId('k') })
    const first = await session('10.00')
    expect((await payWith(first, '4111111111111111')).body.status).toBe('succeeded')
    const second = await session('5.50')
    expect((await payWith(second, DECLINE)).body.status).toBe('declined')
    expect((await payWith(second, '4111111111111111')).body.status).toBe('succeeded')

    const today = new Date().toISOString().slice(0, 10)
    // The overview reads the index (which follows by a moment) and is answered again as it is for
    // 15 seconds: asked once the index has both payments and both sessions' attempts.
    await expect
      .poll(async () => (await as<{ data: unknown[] }>('GET', '/v1/payments')).body.data.length, { timeout: 15_000 })
      .toBe(2)
    await expect
      .poll(
        async () =>
          (await as<{ data: { status: string }[] }>('GET', '/v1/sessions')).body.data.filter(
            (x) => x.status === 'succeeded',
          ).length,
        { timeout: 15_000 },
      )
      .toBe(2)
    const overview = (
      await as<{
        attempts: Record<string, number | null>
        days: unknown[]
        declineReasons: { code: string | null; count: number }[]
        since: string
      }>('GET', '/v1/reports/overview?days=7')
    ).body
    expect(overview.days).toEqual([{ date: today, currency: 'EUR', count: 2, volume: '15.50' }])
    expect(overview.attempts).toEqual({ total: 3, succeeded: 2, declined: 1, failed: 0, successRate: 2 / 3 })
    expect(overview.declineReasons).toHaveLength(1)
    expect(overview.declineReasons[0]).toMatchObject({ count: 1, code: expect.any(String) })
    expect(Date.parse(overview.since)).toBe(Date.parse(today) - 6 * 24 * 60 * 60_000)
    expect((await as('GET', '/v1/reports/overview?days=0')).status).toBe(400)
  })
})
