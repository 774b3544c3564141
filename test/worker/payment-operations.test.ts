/**
 * Capture, void and refund over the public merchant routes, against the sandbox gateway: amount
 * bounds before any gateway call, states, concurrency, idempotency, and a lost answer settled by
 * inquiry, never re-sent. The sandbox counts what reached it (`gatewayOperationsOn`).
 */
import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../shared/webhooks/events.ts'
import { call, webhooksAbout } from './api.ts'
import { timePasses, timeStandsStill } from './clock.ts'
import { injectFault, uniqueId } from './helpers.ts'
import { gatewayOperationsOn, operate, paidPayment, paymentEventually, paymentStub } from './money.ts'

const eventsOf = async (mtid: string, type: string, count = 1) =>
  (await webhooksAbout(mtid, count, 10_000, type)).map(
    (w) =>
      JSON.parse(w.body) as {
        id: string
        type: string
        data: Record<string, unknown> & { operation: { id: string; status: string; amount: string } }
      },
  )

describe('capture', () => {
  it('captures an authorisation in full: the payment is captured and payment.captured is told once', async () => {
    const { session, paymentId, payment } = await paidPayment({ paymentType: 'PA', amount: '80.00' })
    expect(payment).toMatchObject({
      status: 'authorized',
      paymentType: 'PA',
      amountCaptured: '0.00',
      amountRefundable: '0.00',
      sessionId: session.id,
      merchantTransactionId: session.mtid,
    })
    const res = await operate(paymentId, 'capture')
    expect(res.status).toBe(200)
    expect(res.body.operation).toMatchObject({ object: 'capture', status: 'succeeded', amount: '80.00' })
    expect(res.body.payment).toMatchObject({ status: 'captured', amountCaptured: '80.00', amountRefundable: '80.00' })
    const events = await eventsOf(session.mtid, 'payment.captured')
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toMatchObject({
      id: paymentId,
      status: 'captured',
      operation: { status: 'succeeded', amount: '80.00' },
    })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 1 })
  })

  it('a session showing the QR wallet first but paid by card records the card authorisation, which then captures', async () => {
    const { paymentId, payment } = await paidPayment({
      flow: undefined,
      methods: ['qr', 'card'],
      paymentType: 'PA',
      amount: '40.00',
    })
    expect(payment).toMatchObject({
      status: 'authorized',
      paymentType: 'PA',
      source: 'card',
      amountCaptured: '0.00',
      amountRefundable: '0.00',
    })
    const res = await operate(paymentId, 'capture')
    expect(res.status).toBe(200)
    expect(res.body.payment).toMatchObject({ status: 'captured', amountCaptured: '40.00' })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 1 })
  })

  it('captures part of an authorisation, once: a second capture is refused without reaching the gateway', async () => {
    const { paymentId } = await paidPayment({ paymentType: 'PA', amount: '80.00' })
    const part = await operate(paymentId, 'capture', { amount: '30.00' })
    expect(part.status).toBe(200)
    expect(part.body.payment).toMatchObject({ status: 'captured', amountCaptured: '30.00', amountRefundable: '30.00' })
    const again = await operate(paymentId, 'capture', { amount: '10.00' })
    expect(again.status).toBe(409)
    expect(again.body.error?.code).toBe('payment_state')
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 1 })
  })

  it('refuses a capture above the authorised amount before any gateway call', async () => {
    const { paymentId } = await paidPayment({ paymentType: 'PA', amount: '80.00' })
    const res = await operate(paymentId, 'capture', { amount: '80.01' })
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({
      code: 'amount_too_large',
      fields: [expect.objectContaining({ field: 'amount', code: 'out_of_range' })],
    })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 0 })
    expect((await paymentEventually(paymentId)).status).toBe('authorized')
  })

  it('a capture and a void of one authorisation at once: exactly one reaches the gateway', async () => {
    const { paymentId } = await paidPayment({ paymentType: 'PA', amount: '70.00' })
    const [captured, voided] = await Promise.all([operate(paymentId, 'capture'), operate(paymentId, 'void')])
    expect([captured.status, voided.status].sort()).toEqual([200, 409])
    const sent = await gatewayOperationsOn(paymentId)
    expect(sent.captures + sent.reversals).toBe(1)
    expect((await paymentEventually(paymentId)).status).toBe(captured.status === 200 ? 'captured' : 'voided')
  })

  it('a capture answered by an HTTP 500 is unknown, then captured by inquiry without a second capture', async () => {
    const { session, paymentId } = await paidPayment({ paymentType: 'PA', amount: '75.00' })
    await injectFault({ op: 'capture', fault: 'http500', field: 'id', value: paymentId })
    const lost = await operate(paymentId, 'capture', { amount: '50.00' })
    expect(lost.status).toBe(202)
    expect(lost.body.operation.status).toBe('unknown')
    await timeStandsStill(paymentStub(paymentId))
    // In flight, it blocks a second capture, a void and a refund, each told that a capture is under
    // way (not that the payment is captured already, nor that nothing is).
    for (const [kind, body] of [
      ['capture', { amount: '10.00' }],
      ['void', undefined],
      ['refunds', { amount: '10.00' }],
    ] as const) {
      const refused = await operate(paymentId, kind, body)
      expect(refused.body.error, kind).toMatchObject({
        code: 'payment_state',
        message: expect.stringMatching(/^A capture of this authorisation is in progress/),
      })
    }
    await timePasses(paymentStub(paymentId))
    expect(await paymentEventually(paymentId, (p) => p.status === 'captured')).toMatchObject({
      amountCaptured: '50.00',
      amountRefundable: '50.00',
    })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 1, reversals: 0 })
    expect(new Set((await eventsOf(session.mtid, 'payment.captured')).map((e) => e.id)).size).toBe(1)
  })

  it('refuses to capture a sale (DB), which was captured when paid', async () => {
    const { paymentId, payment } = await paidPayment()
    expect(payment).toMatchObject({ status: 'captured', amountCaptured: '100.00' })
    const res = await operate(paymentId, 'capture')
    expect(res.status).toBe(409)
    expect(res.body.error?.code).toBe('payment_state')
  })
})

describe('void', () => {
  it('voids an authorisation before capture; nothing can be captured or refunded after', async () => {
    const { session, paymentId } = await paidPayment({ paymentType: 'PA', amount: '55.00' })
    const res = await operate(paymentId, 'void')
    expect(res.status).toBe(200)
    expect(res.body.payment).toMatchObject({ status: 'voided', amountCaptured: '0.00' })
    expect((await eventsOf(session.mtid, 'payment.voided'))[0]?.data).toMatchObject({ id: paymentId, status: 'voided' })
    expect((await operate(paymentId, 'capture')).body.error?.code).toBe('payment_state')
    expect((await operate(paymentId, 'refunds')).body.error?.code).toBe('payment_state')
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 0, refunds: 0, reversals: 1 })
  })

  it('refuses to void an authorisation that was captured (refund it instead)', async () => {
    const { paymentId } = await paidPayment({ paymentType: 'PA', amount: '55.00' })
    expect((await operate(paymentId, 'capture')).status).toBe(200)
    const res = await operate(paymentId, 'void')
    expect(res.status).toBe(409)
    expect(res.body.error?.code).toBe('payment_state')
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ reversals: 0 })
  })
})

describe('refunds', () => {
  it('two partial refunds, then a third above the remainder is refused before the gateway', async () => {
    const { session, paymentId } = await paidPayment({ amount: '100.00' })
    const first = await operate(paymentId, 'refunds', { amount: '30.00', reason: 'one item returned' })
    expect(first.status).toBe(200)
    expect(first.body.payment).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: '30.00',
      amountRefundable: '70.00',
    })
    const second = await operate(paymentId, 'refunds', { amount: '50.00' })
    expect(second.body.payment).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: '80.00',
      amountRefundable: '20.00',
    })
    const third = await operate(paymentId, 'refunds', { amount: '20.01' })
    expect(third.status).toBe(409)
    expect(third.body.error).toMatchObject({
      code: 'amount_too_large',
      fields: [expect.objectContaining({ field: 'amount', code: 'out_of_range' })],
    })
    const rest = await operate(paymentId, 'refunds')
    expect(rest.body.operation).toMatchObject({ status: 'succeeded', amount: '20.00' })
    const payment = await paymentEventually(paymentId)
    expect(payment).toMatchObject({ status: 'refunded', amountRefunded: '100.00', amountRefundable: '0.00' })
    expect(payment.refunds.map((r) => [r.amount, r.status, r.reason])).toEqual([
      ['30.00', 'succeeded', 'one item returned'],
      ['50.00', 'succeeded', null],
      ['20.00', 'succeeded', null],
    ])
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 3 })
    const events = await eventsOf(session.mtid, 'refund.succeeded', 3)
    expect(events.map((e) => e.data.operation.amount)).toEqual(['30.00', '50.00', '20.00'])
    expect(new Set(events.map((e) => e.id)).size).toBe(3)
  })

  it('two parallel full refunds: exactly one reaches the gateway, the other is refused', async () => {
    const { paymentId } = await paidPayment({ amount: '42.00' })
    const answers = await Promise.all([
      operate(paymentId, 'refunds', { amount: '42.00' }),
      operate(paymentId, 'refunds', { amount: '42.00' }),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
    expect(answers.find((a) => a.status === 409)?.body.error?.code).toBe('amount_too_large')
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
    expect((await paymentEventually(paymentId)).status).toBe('refunded')
  })

  it('a refund whose answer is lost is unknown, settled by inquiry, and never sent twice', async () => {
    const { session, paymentId } = await paidPayment({ amount: '60.00' })
    await injectFault({ op: 'refund', fault: 'timeout', field: 'id', value: paymentId })
    const lost = await operate(paymentId, 'refunds', { amount: '25.00' })
    expect(lost.status).toBe(202)
    expect(lost.body.operation).toMatchObject({ status: 'unknown', amount: '25.00' })
    // In flight: it counts against what may still be refunded.
    expect(lost.body.payment).toMatchObject({ amountRefunded: '0.00', amountRefundable: '35.00' })
    expect((await operate(paymentId, 'refunds', { amount: '35.01' })).body.error?.code).toBe('amount_too_large')
    await timePasses(paymentStub(paymentId))
    const settled = await paymentEventually(paymentId, (p) => p.refunds[0]?.status === 'succeeded')
    expect(settled).toMatchObject({ status: 'partially_refunded', amountRefunded: '25.00', amountRefundable: '35.00' })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
    // Delivery is at least once: one change, one event id, however often it arrives.
    const unknown = await eventsOf(session.mtid, 'refund.unknown')
    const succeeded = await eventsOf(session.mtid, 'refund.succeeded')
    expect(new Set(unknown.map((e) => e.id)).size).toBe(1)
    expect(new Set(succeeded.map((e) => e.id)).size).toBe(1)
    expect(succeeded[0]?.data.operation.id).toBe(unknown[0]?.data.operation.id)
  })

  it('the same key sent five times at once: one refund reaches the gateway, the others are told it is in progress (409) or get its answer', async () => {
    const { paymentId } = await paidPayment({ amount: '60.00' })
    const key = uniqueId('same')
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => operate(paymentId, 'refunds', { amount: '10.00' }, key)),
    )
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((st) => st === 200).length).toBeGreaterThanOrEqual(1)
    for (const a of answers.filter((x) => x.status !== 200))
      expect([a.status, a.body.error?.code]).toEqual([409, 'idempotency_in_progress'])
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.body.operation?.id)).size).toBe(1)
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
    expect((await paymentEventually(paymentId)).amountRefunded).toBe('10.00')
  })

  it('is idempotent: the same key replays the refund, another body with it is 422, no key is 400', async () => {
    const { paymentId } = await paidPayment({ amount: '20.00' })
    const key = uniqueId('rk')
    const first = await operate(paymentId, 'refunds', { amount: '5.00' }, key)
    expect(first.status).toBe(200)
    const again = await operate(paymentId, 'refunds', { amount: '5.00' }, key)
    expect(again.status).toBe(200)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body.operation.id).toBe(first.body.operation.id)
    const other = await operate(paymentId, 'refunds', { amount: '6.00' }, key)
    expect(other.status).toBe(422)
    expect(other.body.error?.code).toBe('idempotency_mismatch')
    const { merchant } = await import('./api.ts')
    expect((await merchant('POST', `/v1/payments/${paymentId}/refunds`, { amount: '1.00' })).status).toBe(400)
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
  })

  it('refuses bodies it does not understand, naming the field and never echoing a card number', async () => {
    const { paymentId } = await paidPayment({ amount: '20.00' })
    const res = await operate(paymentId, 'refunds', { amount: '1', reason: 'card 4111 1111 1111 1111', extra: true })
    expect(res.status).toBe(400)
    expect(res.body.error?.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'extra', code: 'not_allowed' }),
        expect.objectContaining({ field: 'amount', code: 'format' }),
        expect.objectContaining({ field: 'reason', code: 'not_allowed' }),
      ]),
    )
    expect(res.text).not.toContain('4111 1111')
  })

  it('answers 404 for a payment it does not know', async () => {
    const res = await operate('9999999999', 'refunds', { amount: '1.00' })
    expect(res.status).toBe(404)
    expect(res.body.error?.code).toBe('not_found')
  })
})

describe('GET /openapi.json', () => {
  it('documents every payment route, its body and statuses, and every payment event', async () => {
    const doc = (
      await call<{
        paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>
        webhooks: Record<string, unknown>
      }>('/openapi.json')
    ).body
    for (const [path, method] of [
      ['/v1/payments', 'get'],
      ['/v1/sessions', 'get'],
      ['/v1/payments/{paymentId}', 'get'],
      ['/v1/payments/{paymentId}/capture', 'post'],
      ['/v1/payments/{paymentId}/void', 'post'],
      ['/v1/payments/{paymentId}/refunds', 'post'],
      ['/v1/registrations/{registrationId}', 'delete'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined()
    }
    expect(Object.keys(doc.paths['/v1/payments/{paymentId}/refunds']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '202', '400', '404', '409', '422', '502']),
    )
    expect(doc.paths['/v1/payments/{paymentId}/capture']?.post?.requestBody).toBeDefined()
    for (const type of Object.keys(EVENT_TYPES).filter(
      (t) => t.startsWith('payment.') || t.startsWith('refund.') || t.startsWith('registration.'),
    ))
      expect(doc.webhooks[type], type).toBeDefined()
  })
})
