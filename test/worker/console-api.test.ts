/**
 * What the merchant console reads and does through the merchant API (issue 24, README "Merchant
 * console"): each event's webhook delivery (pending, delivered, failing with its next try, tried
 * again at once; a delivered one not sent again) and
 * the overview (volume and count per day, success rate, top decline reasons). Over the public
 * routes, webhooks to the test catcher, the sandbox gateway over real HTTP.
 */
import {
  createExecutionContext,
  createScheduledController,
  runInDurableObject,
  waitOnExecutionContext,
} from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import {
  browser,
  call,
  cardBody,
  createSession,
  deliverNotification,
  merchant,
  newProfile,
  notificationSentFor,
  ORIGIN,
  pay,
  type Answer,
  type Session,
} from './api.ts'
import worker from '../../worker/index.ts'
import { retentionEnds, timePasses } from './clock.ts'
import { uniqueId } from './helpers.ts'
import { DECLINE, finishBankPage, sandboxInvoice, THREE_DS } from './outcome-support.ts'

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
const DAY_MS = 24 * 60 * 60_000

/** The daily retention sweep, as the Cron Trigger runs it, at `scheduledTime`. */
async function cronRunsAt(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext()
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '17 3 * * *' }), env, ctx)
  await waitOnExecutionContext(ctx)
}

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

/** A session paid, whose events the catcher refuses nine times each (an order named fail9-…): its first one failing. */
async function paidWithFailingEvents(): Promise<{ s: Session; failing: Delivery; stub: DurableObjectStub }> {
  const s = await createSession({ merchantTransactionId: uniqueId('fail9') })
  expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
  const failing = await deliveryEventually(`session=${s.id}&status=failing`, 'checkout.attempt.processing', () => true)
  return { s, failing, stub: env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub }
}

/** A session paid, its success delivered. */
async function paidAndDelivered(): Promise<{ s: Session; delivered: Delivery }> {
  const s = await createSession()
  expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
  const delivered = await deliveryEventually(
    `session=${s.id}`,
    'checkout.session.succeeded',
    (d) => d.status === 'delivered',
  )
  return { s, delivered }
}

/** The merchant asks for event `id` to be sent again. */
const sendAgain = (id: string) =>
  merchant<{ error: { code: string } }>('POST', `/v1/webhooks/deliveries/${id}/send-again`)

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

  it('an invoice regenerated by the shopper is recorded under its session (its event names it as sessionId)', async () => {
    const s = await createSession({
      flow: 'invoice',
      amount: '1.00',
      invoiceId: await sandboxInvoice('1.00'),
      merchantInvoiceId: uniqueId('inv'),
      invoiceExpirationPeriod: '24',
    })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    const regenerated = await deliveryEventually(`session=${s.id}`, 'invoice.regenerated', () => true)
    expect(regenerated.sessionId).toBe(s.id)
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

  it('a paid session whose endpoint refused its events is kept past its retention until they go through: its final event reaches the merchant once', async () => {
    const { s, stub } = await paidWithFailingEvents()
    // The session's time over, then a week on, the endpoint still refusing: the record and the
    // events stay.
    await timePasses(stub, 'clock')
    expect(await retentionEnds(stub)).toBe(false)
    // The endpoint is back: the merchant asks for each waiting event again, and they go, in order.
    let succeeded: Delivery | undefined
    for (let i = 0; i < 40 && !succeeded; i++) {
      const list = (await merchant<Page<Delivery>>('GET', `/v1/webhooks/deliveries?session=${s.id}`)).body.data
      succeeded = list.find((d) => d.type === 'checkout.session.succeeded' && d.status === 'delivered')
      const waiting = list.find((d) => d.status === 'failing')
      if (waiting) await sendAgain(waiting.id)
      await new Promise((r) => setTimeout(r, 150))
    }
    if (!succeeded) throw new Error('the final event never went through')
    expect(await receivedTimes(s.mtid, succeeded.id)).toBe(1)
    // Nothing waits any more: the next purge forgets the session.
    expect(await retentionEnds(stub)).toBe(true)
  })

  it('events still refused a month after the retention are dropped with the record; sending one again is then 404, never "already delivered"', async () => {
    const { failing, stub } = await paidWithFailingEvents()
    await timePasses(stub, 'clock')
    expect(await retentionEnds(stub)).toBe(false)
    // A month of daily purges held up by them, and of their tries.
    await runInDurableObject(stub, async (_i, state) => {
      const monthAgo = Date.now() - 31 * DAY_MS
      await state.storage.put('purge:held-since', monthAgo)
      for (const [key, item] of await state.storage.list<Record<string, unknown>>({ prefix: 'outbox:' }))
        await state.storage.put(key, { ...item, queuedAt: monthAgo })
    })
    expect(await retentionEnds(stub)).toBe(true)
    const again = await sendAgain(failing.id)
    expect(again.status).toBe(404)
    expect(again.body.error.code).toBe('not_found')
  })

  it('the retention sweep takes a delivered event’s row, and keeps one still waiting while its record may hold it (a month past the retention)', async () => {
    const { s: waiting, failing } = await paidWithFailingEvents()
    const { s: went, delivered } = await paidAndDelivered()
    const rows = async (id: string) =>
      (await merchant<Page<Delivery>>('GET', `/v1/webhooks/deliveries?session=${id}`)).body.data.map((d) => d.id)
    // Eight days on: the delivered row is gone, the waiting one stays.
    await cronRunsAt(Date.now() + 8 * DAY_MS)
    expect(await rows(went.id)).not.toContain(delivered.id)
    expect(await rows(waiting.id)).toContain(failing.id)
    // Past the month the record holds it: gone too.
    await cronRunsAt(Date.now() + 40 * DAY_MS)
    expect(await rows(waiting.id)).not.toContain(failing.id)
  })

  it('a delivered event of a session forgotten at the end of its retention is still "already delivered" while its row is kept', async () => {
    const { s, delivered } = await paidAndDelivered()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    await timePasses(stub, 'clock')
    expect(await retentionEnds(stub)).toBe(true)
    const again = await sendAgain(delivered.id)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('already_delivered')
  })

  it('does not send a delivered event again (a receiver may have forgotten its id), and knows no other event', async () => {
    const { s, delivered } = await paidAndDelivered()
    const again = await sendAgain(delivered.id)
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

/** A merchant of its own on sandbox member `member` (the overview's figures are exactly one test's): its API, sessions and pays. */
async function ownMerchant(member: number) {
  const shop = await newProfile(member, { allowedOrigins: [ORIGIN] })
  const as = <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Answer<T>> =>
    call<T>(path, {
      method,
      headers: { Authorization: `Bearer ${shop.apiKey.key}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const session = async (amount: string): Promise<Session> => {
    const mtid = uniqueId('ov')
    const res = await as<{ id: string; clientSecret: string }>('POST', '/v1/sessions', {
      flow: 'card',
      amount,
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
    })
    return { ...res.body, mtid }
  }
  const payWith = <T = { status: string }>(s: { id: string; clientSecret: string }, card: string) =>
    browser<T>(s, 'POST', '/pay', cardBody(card), { 'Idempotency-Key': uniqueId('k') })
  return { as, session, payWith }
}

type Overview = {
  attempts: Record<string, number | null>
  days: unknown[]
  declineReasons: { code: string | null; description: string | null; count: number }[]
  since: string
}

describe('the overview', () => {
  it('counts the day’s payments and volume per currency, the attempts’ success rate and the top decline reason', async () => {
    const { as, session, payWith } = await ownMerchant(45)
    // The day (UTC) before the payments and after the overview: a run across midnight has two.
    const utcDay = (at = Date.now()) => new Date(at).toISOString().slice(0, 10)
    const firstDay = utcDay()
    const first = await session('10.00')
    expect((await payWith(first, '4111111111111111')).body.status).toBe('succeeded')
    const second = await session('5.50')
    expect((await payWith(second, DECLINE)).body.status).toBe('declined')
    expect((await payWith(second, '4111111111111111')).body.status).toBe('succeeded')

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
    const overview = (await as<Overview>('GET', '/v1/reports/overview?days=7')).body
    const lastDay = utcDay()
    if (firstDay === lastDay) {
      expect(overview.days).toEqual([{ date: firstDay, currency: 'EUR', count: 2, volume: '15.50' }])
    } else {
      // Across midnight: the 10.00 on the first day or the next, the 5.50 after it.
      const days = overview.days as { date: string; currency: string; count: number; volume: string }[]
      expect(days.map((d) => d.date).every((d) => d === firstDay || d === lastDay)).toBe(true)
      expect(days.reduce((n, d) => n + d.count, 0)).toBe(2)
      expect(days.map((d) => d.volume).sort()).toEqual(days.length === 1 ? ['15.50'] : ['10.00', '5.50'])
    }
    expect(overview.attempts).toEqual({ total: 3, succeeded: 2, declined: 1, failed: 0, successRate: 2 / 3 })
    expect(overview.declineReasons).toHaveLength(1)
    expect(overview.declineReasons[0]).toMatchObject({ count: 1, code: expect.any(String) })
    // Seven days: the day the overview was asked on and the six before it.
    expect([firstDay, lastDay].map((d) => Date.parse(d) - 6 * 24 * 60 * 60_000)).toContain(Date.parse(overview.since))
    expect((await as('GET', '/v1/reports/overview?days=0')).status).toBe(400)
  })

  it('a payment its bank step declines is counted under the gateway’s decline, not under the 3-D Secure step it waited on', async () => {
    const { as, session, payWith } = await ownMerchant(47)
    const s = await session('12.00')
    const started = await payWith<{ status: string; paymentId: string; redirect: { url: string } }>(s, THREE_DS)
    expect(started.body.status).toBe('action_required')
    await finishBankPage(s, started.body.redirect.url, 'failed')
    const note = await notificationSentFor(s.id, 8_000, started.body.paymentId)
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'declined' })
    const { result } = JSON.parse(note) as { result: { code: string; description: string } }

    // The overview reads the index (which follows by a moment) and is answered again as it is for
    // 15 seconds: asked once the index has the declined session.
    await expect
      .poll(
        async () =>
          (await as<{ data: { id: string; status: string }[] }>('GET', '/v1/sessions')).body.data.find(
            (x) => x.id === s.id,
          )?.status,
        { timeout: 15_000 },
      )
      .toBe('declined')
    const overview = (await as<Overview>('GET', '/v1/reports/overview?days=7')).body
    expect(overview.declineReasons).toEqual([{ code: result.code, description: result.description, count: 1 }])
    // The attempt's own record says the same, not the bank step's "3-D Secure required".
    const view = await as<{ attempts: { status: string; code?: string; description?: string }[] }>(
      'GET',
      `/v1/sessions/${s.id}`,
    )
    expect(view.body.attempts).toEqual([
      expect.objectContaining({ status: 'declined', code: result.code, description: result.description }),
    ])
  })
})
