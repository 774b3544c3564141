/**
 * Finding payments and sessions through the search index (D1) over the public routes: filters,
 * newest first, cursor pagination over more than 60 payments; metadata from the session to its
 * payment, every event and the listings; a deleted saved card refused for new sessions.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { browser, createSession, merchant, pay, webhooksAbout } from './api.ts'
import { client, uniqueId } from './helpers.ts'
import { sessionStub } from './model.ts'
import { openPayment } from '../../worker/payments/opening.ts'
import { DEFAULT_MERCHANT } from '../../worker/merchants/profiles.ts'
import type { PaymentObject } from '../../worker/payments/payment-object.ts'
import { operate, paidPayment, paymentEventually, paymentStub, type PaymentBody } from './money.ts'

type Page<T> = {
  object: 'list'
  data: T[]
  has_more: boolean
  error?: { code: string; fields?: { field: string; code: string }[] }
}

/** Polls a listing until `predicate` holds: the index follows the objects through their outbox. */
async function listingEventually<T>(
  path: string,
  predicate: (p: Page<T>) => boolean,
  timeoutMs = 15_000,
): Promise<Page<T>> {
  const deadline = Date.now() + timeoutMs
  let last: Page<T> | undefined
  while (Date.now() < deadline) {
    const res = await merchant<Page<T>>('GET', path)
    last = res.body
    if (res.status === 200 && predicate(res.body)) return res.body
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`listing ${path} not reached: ${JSON.stringify(last).slice(0, 300)}`)
}

async function inBatches<T>(n: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => make(i + j)))))
  return out
}

describe('GET /v1/payments', () => {
  it('lists 64 payments newest first, 25 a page, by cursor, and filters by status, time, order, email, amount, card last four and one metadata pair', async () => {
    const run = uniqueId('run')
    const made = await inBatches(64, 8, async (i) => {
      const { paymentId, session } = await paidPayment(
        {
          amount: `${10 + i}.00`,
          customer: { email: `buyer-${i % 2}-${run}@example.com` },
          metadata: { run, parity: String(i % 2) },
        },
        // One Mastercard among the Visas: a card's last four to find it by.
        i === 5 ? '5555555555554444' : '4111111111111111',
      )
      return { paymentId, mtid: session.mtid }
    })
    // Refund three of them in full: a status to filter by.
    for (const m of made.slice(0, 3)) expect((await operate(m.paymentId, 'refunds')).status).toBe(200)
    const all = await listingEventually<PaymentBody>(
      `/v1/payments?metadata[run]=${run}&limit=100`,
      (p) => p.data.length === 64 && p.data.filter((x) => x.status === 'refunded').length === 3,
    )
    expect(all.has_more).toBe(false)
    const created = all.data.map((p) => Date.parse((p as unknown as { createdAt: string }).createdAt))
    expect([...created].sort((a, b) => b - a)).toEqual(created)
    expect(new Set(all.data.map((p) => p.id))).toEqual(new Set(made.map((m) => m.paymentId)))

    // Pages of 25 by cursor: every payment once, in the same order.
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    for (;;) {
      const page = (
        await merchant<Page<PaymentBody>>(
          'GET',
          `/v1/payments?metadata[run]=${run}&limit=25${cursor ? `&starting_after=${cursor}` : ''}`,
        )
      ).body
      pages += 1
      seen.push(...page.data.map((p) => p.id))
      if (!page.has_more) break
      cursor = page.data[page.data.length - 1]?.id
    }
    expect(pages).toBe(3)
    expect(seen).toEqual(all.data.map((p) => p.id))

    const refunded = (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}&status=refunded`))
      .body
    expect(refunded.data.map((p) => p.id).sort()).toEqual(
      made
        .slice(0, 3)
        .map((m) => m.paymentId)
        .sort(),
    )
    const odd = (
      await merchant<Page<PaymentBody>>(
        'GET',
        `/v1/payments?metadata[parity]=1&email=${encodeURIComponent(`buyer-1-${run}@example.com`)}&limit=100`,
      )
    ).body
    expect(odd.data).toHaveLength(32)
    expect(odd.data.every((p) => p.metadata.parity === '1' && p.metadata.run === run)).toBe(true)
    const one = made[10]
    const byOrder = (await merchant<Page<PaymentBody>>('GET', `/v1/payments?order=${one?.mtid}`)).body
    expect(byOrder.data.map((p) => p.id)).toEqual([one?.paymentId])
    // A support agent's search: what the customer can read off their statement and their card.
    const byAmount = (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}&amount=22.00`)).body
    expect(byAmount.data.map((p) => p.id)).toEqual([made[12]?.paymentId])
    const byLast4 = (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}&last4=4444`)).body
    expect(byLast4.data.map((p) => p.id)).toEqual([made[5]?.paymentId])
    const visas = (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}&last4=1111&limit=100`))
      .body
    expect(visas.data).toHaveLength(63)
    // A time window: the 10 oldest are before the 11th's creation.
    const oldest = [...all.data].reverse()
    const edge = (oldest[10] as unknown as { createdAt: string }).createdAt
    const before = (
      await merchant<Page<PaymentBody>>(
        'GET',
        `/v1/payments?metadata[run]=${run}&created_lt=${encodeURIComponent(edge)}&limit=100`,
      )
    ).body
    const since = (
      await merchant<Page<PaymentBody>>(
        'GET',
        `/v1/payments?metadata[run]=${run}&created_gte=${encodeURIComponent(edge)}&limit=100`,
      )
    ).body
    expect(before.data.length + since.data.length).toBe(64)
    expect(before.data.every((p) => (p as unknown as { createdAt: string }).createdAt < edge)).toBe(true)
  }, 120_000)

  it("lists a paid session's payment from the row its session writes, and the payment's record sets no alarm for it", async () => {
    const run = uniqueId('prow')
    const { session, paymentId, payment } = await paidPayment({ metadata: { run } })
    // The payment's first row waits with the session's own (read right after the record opened;
    // on a machine so slow that the session's run came first, the listing below is the check).
    const waiting = await runInDurableObject(sessionStub(session.id), (_object, state) =>
      state.storage.get<{ job: { row: { status: string; seq: number } } }>(`job:index:payments:${paymentId}`),
    )
    if (waiting) expect(waiting.job.row).toMatchObject({ status: 'captured', seq: 1 })
    const record = await runInDurableObject(paymentStub(paymentId), async (_object, state) => ({
      alarm: await state.storage.getAlarm(),
      jobs: [...(await state.storage.list({ prefix: 'job:' })).keys()],
    }))
    expect(record).toEqual({ alarm: null, jobs: [] })
    const page = await listingEventually<PaymentBody>(`/v1/payments?metadata[run]=${run}`, (p) => p.data.length > 0)
    // The row is the record the object opened with, to the millisecond.
    expect(page.data).toEqual([payment])
  })

  /** The jobs that open a card payment of EUR 10.00 tagged with `run`, and write its first row. */
  const opening = (paymentId: string, run: string) =>
    openPayment({
      paymentId,
      sessionId: null,
      merchantTransactionId: uniqueId('order'),
      amount: '10.00',
      currency: 'EUR',
      paymentType: 'DB',
      source: 'card',
      recurring: null,
      metadata: { run },
    })

  it("writes a payment's first row only once its record is open", async () => {
    const paymentId = uniqueId('pw')
    const run = uniqueId('pwait')
    const [open, row] = opening(paymentId, run)
    // An outbox (any object's: a session's here) whose jobs are due at the times given, its
    // payment's opening absent when not given.
    const outbox = sessionStub(uniqueId('cs_outbox'))
    const due = async (next: { open?: number; row: number }) => {
      await runInDurableObject(outbox, async (_object, state) => {
        await state.storage.put({
          ...(next.open === undefined
            ? {}
            : { [`job:payment:${paymentId}`]: { job: open, tries: 1, next: next.open, seq: 1 } }),
          [`job:index:payments:${paymentId}`]: { job: row, tries: 0, next: next.row, seq: 1 },
          tasks: { jobs: Date.now() },
        })
        await state.storage.setAlarm(Date.now())
      })
      await runDurableObjectAlarm(outbox)
    }
    const listed = async () => (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}`)).body
    // The opening waits a minute (a retry) while the row is due: no row.
    await due({ open: Date.now() + 60_000, row: Date.now() })
    expect((await listed()).data).toEqual([])
    expect((await merchant('GET', `/v1/payments/${paymentId}`)).status).toBe(404)
    // The opening's time comes: the record opens, and the row waits for the run after it.
    await due({ open: Date.now(), row: Date.now() })
    expect((await merchant('GET', `/v1/payments/${paymentId}`)).status).toBe(200)
    expect((await listed()).data).toEqual([])
    await due({ row: Date.now() })
    expect((await listed()).data.map((p) => p.id)).toEqual([paymentId])
  })

  it('lists a payment opened by a version before, which queued no row of its own', async () => {
    const paymentId = uniqueId('pold')
    const run = uniqueId('pold')
    const [open] = opening(paymentId, run)
    if (open?.kind !== 'payment') throw new Error('no opening job')
    // The opening as an opener of the version before sends it: without `indexed`.
    const stub = paymentStub(paymentId) as unknown as DurableObjectStub<PaymentObject>
    await stub.open(open.snapshot, DEFAULT_MERCHANT)
    const page = await listingEventually<PaymentBody>(`/v1/payments?metadata[run]=${run}`, (p) => p.data.length > 0)
    expect(page.data.map((p) => [p.id, p.status])).toEqual([[paymentId, 'captured']])
  })

  it('refuses unknown parameters, bad values and a cursor that names nothing, by field', async () => {
    const bad = await merchant<Page<unknown>>(
      'GET',
      '/v1/payments?status=paid&limit=500&created_gte=yesterday&colour=red&last4=12345&amount=1.5',
    )
    expect(bad.status).toBe(400)
    expect(bad.body.error?.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'status', code: 'invalid_value' }),
        expect.objectContaining({ field: 'limit', code: 'out_of_range' }),
        expect.objectContaining({ field: 'created_gte', code: 'format' }),
        expect.objectContaining({ field: 'colour', code: 'not_allowed' }),
        expect.objectContaining({ field: 'last4', code: 'format' }),
        expect.objectContaining({ field: 'amount', code: 'format' }),
      ]),
    )
    expect((await merchant<Page<unknown>>('GET', '/v1/payments?starting_after=1234567890')).status).toBe(400)
    expect((await merchant<Page<unknown>>('GET', '/v1/payments?metadata[a]=1&metadata[b]=2')).status).toBe(400)
  })
})

describe('GET /v1/payments by amount', () => {
  it('finds a payment captured in part by the amount taken, as the console shows it, and by the amount authorised', async () => {
    const run = uniqueId('cap')
    const { paymentId } = await paidPayment({ metadata: { run }, amount: '49.00', paymentType: 'PA' })
    expect((await operate(paymentId, 'capture', { amount: '20.50' })).status).toBe(200)
    for (const amount of ['20.50', '49.00']) {
      const found = await listingEventually<PaymentBody>(
        `/v1/payments?metadata[run]=${run}&amount=${amount}`,
        (p) => p.data.length === 1,
      )
      expect(found.data.map((p) => p.id)).toEqual([paymentId])
    }
    expect(
      (await merchant<Page<PaymentBody>>('GET', `/v1/payments?metadata[run]=${run}&amount=28.50`)).body.data,
    ).toEqual([])
  })
})

describe('GET /v1/sessions', () => {
  it('lists sessions with their status and metadata, filtered by status and metadata', async () => {
    const run = uniqueId('srun')
    const open = await createSession({ metadata: { run } })
    const paid = await createSession({ metadata: { run } })
    expect((await pay(paid, '4111111111111111')).body.status).toBe('succeeded')
    const page = await listingEventually<{ id: string; status: string; metadata: Record<string, string> }>(
      `/v1/sessions?metadata[run]=${run}`,
      (p) => p.data.length === 2 && p.data.some((s) => s.status === 'succeeded'),
    )
    expect(page.data.map((s) => s.id)).toEqual([paid.id, open.id])
    const succeeded = (
      await merchant<Page<{ id: string }>>('GET', `/v1/sessions?metadata[run]=${run}&status=succeeded`)
    ).body
    expect(succeeded.data.map((s) => s.id)).toEqual([paid.id])
  })

  // A session's row waits a second for newer changes; each of them joins the index write already
  // planned rather than planning its own. A pay's `processing` and its result, a moment apart, are
  // one write in one run of the object's jobs, not two alarms a few milliseconds apart.
  it("a pay's result joins the index write its session already planned, and that write lists it as succeeded", async () => {
    const run = uniqueId('srun')
    const s = await createSession({ metadata: { run } })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const waiting = await runInDurableObject(sessionStub(s.id), async (_object, state) => ({
      planned: (await state.storage.get<Record<string, number>>('tasks'))?.jobs,
      row: await state.storage.get<{ job: { row: { status: string } }; next: number }>(`job:index:sessions:${s.id}`),
    }))
    // Read right after the answer. On a machine so slow that the planned run (within a second of
    // the answer) came first, the row is written already and the listing below is the check.
    if (waiting.row) {
      expect(waiting.row.job.row.status).toBe('succeeded')
      expect(waiting.row.next).toBe(waiting.planned)
    }
    const page = await listingEventually<{ id: string; status: string }>(`/v1/sessions?metadata[run]=${run}`, (p) =>
      p.data.some((x) => x.status === 'succeeded'),
    )
    expect(page.data.map((x) => [x.id, x.status])).toEqual([[s.id, 'succeeded']])
  })
})

describe('metadata', () => {
  it('travels from the session to its payment, every event and the listings', async () => {
    const metadata = { orderId: 'A-1001', customer: 'cus_42' }
    const { session, paymentId, payment } = await paidPayment({ metadata, amount: '30.00' })
    expect(
      (await merchant<{ metadata: Record<string, string> }>('GET', `/v1/sessions/${session.id}`)).body.metadata,
    ).toEqual(metadata)
    expect(payment.metadata).toEqual(metadata)
    expect((await operate(paymentId, 'refunds', { amount: '10.00' })).status).toBe(200)
    const events = await webhooksAbout(session.mtid, 3, 10_000)
    const types = new Set<string>()
    for (const e of events.map((w) => JSON.parse(w.body) as { type: string; data: { metadata?: unknown } })) {
      types.add(e.type)
      expect(e.data.metadata, e.type).toEqual(metadata)
    }
    expect(types).toEqual(new Set(['checkout.attempt.processing', 'checkout.session.succeeded', 'refund.succeeded']))
    const listed = await listingEventually<PaymentBody>(
      `/v1/payments?metadata[orderId]=A-1001&order=${session.mtid}`,
      (p) => p.data.length === 1,
    )
    expect(listed.data[0]?.metadata).toEqual(metadata)
  })

  it('travels into the invoice.regenerated event of an invoice session', async () => {
    const metadata = { orderId: 'INV-7' }
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('inv'),
      amount: '100.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
    })
    if (created.kind !== 'succeeded') throw new Error(created.kind)
    const s = await createSession({
      flow: 'invoice',
      metadata,
      invoiceId: created.response.systemInvoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    const [event] = await webhooksAbout(s.mtid, 1, 10_000, 'invoice.regenerated')
    expect((JSON.parse(event?.body ?? '{}') as { data: { metadata?: unknown } }).data.metadata).toEqual(metadata)
  })

  it('is refused over 20 keys, with long keys or values, or with card data, naming the field only', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))
    const res = await merchant<{ error: { fields: { field: string; code: string }[] } }>('POST', '/v1/sessions', {
      flow: 'card',
      amount: '1.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('m'),
      metadata: tooMany,
    })
    expect(res.status).toBe(400)
    expect(res.body.error.fields).toContainEqual(expect.objectContaining({ field: 'metadata', code: 'out_of_range' }))
    const bad = await merchant<{ error: { fields: { field: string; code: string }[] } }>('POST', '/v1/sessions', {
      flow: 'card',
      amount: '1.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('m'),
      metadata: { ['k'.repeat(41)]: 'v', long: 'x'.repeat(501), note: 'card 4111-1111-1111-1111', n: 5 },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'metadata', code: 'length' }),
        expect.objectContaining({ field: 'metadata.long', code: 'length' }),
        expect.objectContaining({ field: 'metadata.note', code: 'not_allowed' }),
        expect.objectContaining({ field: 'metadata.n', code: 'format' }),
      ]),
    )
    expect(JSON.stringify(bad.body)).not.toContain('4111-1111')
  })
})

describe('DELETE /v1/registrations/{registrationId}', () => {
  it('deletes a saved card at the gateway; a later saved-card session with it is refused', async () => {
    const first = await createSession({ recurring: 'INITIAL', createRegistration: true })
    expect((await pay(first, '4111111111111111')).body.status).toBe('succeeded')
    const registrationId = (await merchant<{ registrationId: string }>('GET', `/v1/sessions/${first.id}`)).body
      .registrationId
    expect(registrationId).toMatch(/^R\d+$/)
    // Accepted before deletion.
    await createSession({ flow: 'saved-card', registrationId, savedCard: { brand: 'visa', last4: '1111' } })
    const key = uniqueId('del')
    const deleted = await merchant<{ id: string; status: string }>(
      'DELETE',
      `/v1/registrations/${registrationId}`,
      undefined,
      { 'Idempotency-Key': key },
    )
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ id: registrationId, status: 'deleted' })
    const again = await merchant('DELETE', `/v1/registrations/${registrationId}`, undefined, { 'Idempotency-Key': key })
    expect(again.status).toBe(200)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    const refused = await merchant<{ error: { code: string; fields: unknown[] } }>('POST', '/v1/sessions', {
      flow: 'saved-card',
      registrationId,
      amount: '5.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('m'),
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatchObject({
      code: 'registration_deleted',
      fields: [expect.objectContaining({ field: 'registrationId', code: 'invalid_value' })],
    })
    expect((await merchant('DELETE', `/v1/registrations/${registrationId}`)).status).toBe(400)
  })
})

describe('repeats', () => {
  it('a merchant repeat opens a payment record that can be refunded', async () => {
    const { paymentId: initial } = await paidPayment({ recurring: 'INITIAL', createRegistration: true })
    const repeat = await merchant<{ status: string; paymentId: string }>(
      'POST',
      `/v1/payments/${initial}/repeat`,
      { amount: '9.99', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('rk') },
    )
    expect(repeat.body.status).toBe('succeeded')
    const payment = await paymentEventually(repeat.body.paymentId)
    expect(payment).toMatchObject({ status: 'captured', amount: '9.99', sessionId: null })
    expect((await operate(repeat.body.paymentId, 'refunds')).body.payment).toMatchObject({ status: 'refunded' })
  })
})
