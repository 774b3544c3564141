/**
 * One retention policy for shoppers' personal data: after PERSONAL_DATA_RETENTION_DAYS (default 7)
 * the daily sweep erases the customer's email and the merchant's metadata from payments (which keep
 * what accounts for the money) and from the search index. Run through the Worker's own scheduled
 * handler, as the Cron Trigger runs it, at a time past the retention.
 */
import {
  createExecutionContext,
  createScheduledController,
  env,
  runInDurableObject,
  waitOnExecutionContext,
} from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import worker from '../../worker/index.ts'
import { sweep } from '../../worker/retention/sweep.ts'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { merchant, webhooksAbout } from './api.ts'
import { injectFault, uniqueId } from './helpers.ts'
import { gatewayOperationsOn, operate, paidPayment, paymentEventually, paymentStub } from './money.ts'

const DAY_MS = 24 * 60 * 60_000

async function cronRunsAt(scheduledTime: number): Promise<void> {
  const ctx = createExecutionContext()
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '17 3 * * *' }), env, ctx)
  await waitOnExecutionContext(ctx)
}

async function listed(query: string): Promise<string[]> {
  return (await merchant<{ data: { id: string }[] }>('GET', `/v1/payments?${query}`)).body.data.map((p) => p.id)
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read()
    if (done(v)) return v
    await new Promise((r) => setTimeout(r, 50))
  }
  return read()
}

describe('the retention of personal data', () => {
  it('past the retention, a payment keeps its money facts and loses its email and metadata, here and in the listings', async () => {
    const email = `${uniqueId('keep')}@example.com`.toLowerCase()
    const tag = uniqueId('t')
    const { paymentId, session } = await paidPayment({ customer: { email }, metadata: { tag } })
    expect(
      await until(
        () => listed(`email=${encodeURIComponent(email)}`),
        (ids) => ids.length === 1,
      ),
    ).toEqual([paymentId])
    // Its events' deliveries are listed (rows of ids and states: the bodies wait in the objects).
    const deliveries = () =>
      merchant<{ data: unknown[] }>('GET', `/v1/webhooks/deliveries?session=${session.id}`).then((r) => r.body.data)
    expect((await until(deliveries, (d) => d.length >= 2)).length).toBeGreaterThanOrEqual(2)

    // A week and a day later the daily sweep runs.
    await cronRunsAt(Date.now() + 8 * DAY_MS)
    const erased = await paymentEventually(paymentId, (p) => (p as unknown as { email: string | null }).email === null)
    expect(erased).toMatchObject({
      id: paymentId,
      amount: '100.00',
      currency: 'EUR',
      status: 'captured',
      metadata: {},
      card: { last4: '1111' },
    })
    expect(
      await until(
        () => listed(`email=${encodeURIComponent(email)}`),
        (ids) => ids.length === 0,
      ),
    ).toEqual([])
    expect(await listed(`metadata[tag]=${tag}`)).toEqual([])
    expect(await deliveries()).toEqual([])
    const sessions = (
      await merchant<{ data: { id: string; metadata: Record<string, string> }[] }>(
        'GET',
        `/v1/sessions?order=${encodeURIComponent(session.mtid)}`,
      )
    ).body.data
    expect(sessions.map((s) => s.metadata)).toEqual([{}])
    expect(
      (await merchant<{ data: unknown[] }>('GET', `/v1/sessions?email=${encodeURIComponent(email)}`)).body.data,
    ).toEqual([])
    // What accounts for the money is still there: it can be refunded.
    const refund = await merchant<{ operation: { status: string } }>(
      'POST',
      `/v1/payments/${paymentId}/refunds`,
      { amount: '1.00' },
      { 'Idempotency-Key': uniqueId('re') },
    )
    expect(refund.body.operation.status).toBe('succeeded')
  })

  it('a refund still at the gateway while the sweep erases its payment: both hold, the refund counted and the email gone', async () => {
    const email = `${uniqueId('late')}@example.com`.toLowerCase()
    const { paymentId } = await paidPayment({ amount: '60.00', customer: { email }, metadata: { kept: 'no' } })
    await until(
      () => listed(`email=${encodeURIComponent(email)}`),
      (ids) => ids.length === 1,
    )
    // The refund reaches the gateway, whose answer comes a second late; the sweep runs meanwhile.
    await injectFault({ op: 'refund', fault: 'late', field: 'id', value: paymentId })
    const refunding = operate(paymentId, 'refunds', { amount: '25.00' })
    await until(
      () => gatewayOperationsOn(paymentId),
      (sent) => sent.refunds === 1,
    )
    await cronRunsAt(Date.now() + 8 * DAY_MS)
    expect((await refunding).body.operation.status).toBe('succeeded')
    expect(await paymentEventually(paymentId)).toMatchObject({
      email: null,
      metadata: {},
      amountRefunded: '25.00',
      amountRefundable: '35.00',
    })
    expect((await operate(paymentId, 'refunds', { amount: '35.01' })).body.error?.code).toBe('amount_too_large')
    expect(
      await until(
        () => listed(`email=${encodeURIComponent(email)}`),
        (ids) => ids.length === 0,
      ),
    ).toEqual([])
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
  })

  it('a session’s view, its events and its listing never carry the shopper’s network (the breaker’s hashed source)', async () => {
    const { session } = await paidPayment()
    const view = await merchant<{ attempts: Record<string, unknown>[] }>('GET', `/v1/sessions/${session.id}`)
    expect(view.body.attempts).toHaveLength(1)
    expect(view.body.attempts[0]).not.toHaveProperty('source')
    const listed = await until(
      () =>
        merchant<{ data: { attempts: Record<string, unknown>[] }[] }>(
          'GET',
          `/v1/sessions?order=${encodeURIComponent(session.mtid)}`,
        ),
      (r) => r.body.data[0]?.attempts.length === 1,
    )
    expect(listed.body.data[0]?.attempts[0]).not.toHaveProperty('source')
    const told = await webhooksAbout(session.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(told[0]?.body).not.toContain('"source"')
  })

  it('one run erases every payment past the retention, however many pages of the index they take', async () => {
    const paid: Awaited<ReturnType<typeof paidPayment>>[] = []
    for (let i = 0; i < 3; i++)
      paid.push(await paidPayment({ customer: { email: `${uniqueId('page')}@example.com`.toLowerCase() } }))
    for (const { session } of paid)
      await until(
        () => listed(`order=${encodeURIComponent(session.mtid)}`),
        (ids) => ids.length === 1,
      )
    // A page of one payment: the run goes through them all, not only the first page.
    await sweep(env, Date.now() + 8 * DAY_MS, 1)
    for (const { paymentId } of paid)
      expect((await merchant<{ email: string | null }>('GET', `/v1/payments/${paymentId}`)).body.email).toBeNull()
  })

  it('a payment’s events still refused by the merchant’s endpoint when the sweep erases it wait with its data erased', async () => {
    const email = `${uniqueId('wait')}@example.com`.toLowerCase()
    const tag = uniqueId('t')
    // The endpoint refuses each event of this order nine times (backoff: most of a minute).
    const { paymentId } = await paidPayment({
      merchantTransactionId: uniqueId('fail9'),
      customer: { email },
      metadata: { tag },
    })
    await until(
      () => listed(`email=${encodeURIComponent(email)}`),
      (ids) => ids.length === 1,
    )
    expect((await operate(paymentId, 'refunds', { amount: '1.00' })).body.operation.status).toBe('succeeded')
    await cronRunsAt(Date.now() + 8 * DAY_MS)
    const waiting = await runInDurableObject(paymentStub(paymentId), async (_instance, state) =>
      [...(await state.storage.list<{ body: string }>({ prefix: 'outbox:' })).values()].map((item) => item.body),
    )
    expect(waiting.some((body) => body.includes('"refund.succeeded"'))).toBe(true)
    for (const body of waiting) {
      expect(body).not.toContain(email)
      expect(body).not.toContain(tag)
    }
  })

  it('within the retention, nothing is erased', async () => {
    const email = `${uniqueId('young')}@example.com`.toLowerCase()
    const { paymentId } = await paidPayment({ customer: { email }, metadata: { kept: 'yes' } })
    await cronRunsAt(Date.now() + 3 * DAY_MS)
    expect(await paymentEventually(paymentId)).toMatchObject({ email, metadata: { kept: 'yes' } })
  })

  it('forgets a console sign-out once its session’s hour has passed (a copy of the cookie has expired by then)', async () => {
    const own = new URL(env.PUBLIC_BASE_URL).origin
    const signIn = await worker.fetch(
      new Request('http://worker.test/console/api/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: own },
        body: JSON.stringify({ apiKey: TEST_SECRETS.MERCHANT_API_KEY }),
      }),
      env,
      createExecutionContext(),
    )
    const { csrfToken } = (await signIn.json()) as { csrfToken: string }
    const cookie = /^([^;]*)/.exec(signIn.headers.get('Set-Cookie') ?? '')?.[1] ?? ''
    const out = await worker.fetch(
      new Request('http://worker.test/console/api/session', {
        method: 'DELETE',
        headers: { Origin: own, Cookie: cookie, 'X-CSRF-Token': csrfToken },
      }),
      env,
      createExecutionContext(),
    )
    expect(out.status).toBe(204)
    const kept = () =>
      env.DB.prepare('SELECT COUNT(*) AS n FROM console_sign_outs WHERE expires_at > ?')
        .bind(Date.now())
        .first<{ n: number }>()
    expect((await kept())?.n).toBeGreaterThan(0)
    await cronRunsAt(Date.now() + 2 * 60 * 60_000)
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM console_sign_outs').first<{ n: number }>())?.n).toBe(0)
  })
})
