/**
 * A notification settles only what it belongs to: its payment, order, amount and currency, each
 * seen over real HTTP against the sandbox through the Worker's public routes (the rest of the
 * outcome rules: outcomes.test.ts).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { checksum } from '../../shared/gateway/checksum.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import {
  call,
  createSession,
  deliverNotification,
  merchant,
  notificationSentFor,
  pay,
  sessionState,
  webhooksAbout,
} from './api.ts'
import { uniqueId } from './helpers.ts'
import { THREE_DS, PENDING, sandboxInvoice } from './outcome-support.ts'

describe('3. a notification settles only what it belongs to', () => {
  it('a second session with the same merchantTransactionId is refused at creation (409 duplicate_order)', async () => {
    const first = await createSession()
    const second = await merchant('POST', '/v1/sessions', {
      flow: 'card',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: first.mtid,
    })
    expect(second.status).toBe(409)
    expect(second.body).toMatchObject({
      error: { code: 'duplicate_order', fields: [{ field: 'merchantTransactionId' }] },
    })
  })

  it('a second invoice session with the same merchantInvoiceId is refused at creation: one paid invoice settles one session', async () => {
    const invoiceId = await sandboxInvoice('100.00')
    const ref = uniqueId('inv')
    const first = await merchant('POST', '/v1/sessions', {
      flow: 'invoice',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('order'),
      invoiceId,
      merchantInvoiceId: ref,
      invoiceExpirationPeriod: '24',
    })
    expect(first.status).toBe(201)
    const order = uniqueId('order')
    const second = await merchant('POST', '/v1/sessions', {
      methods: ['card', 'invoice'],
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: order,
      invoiceId,
      merchantInvoiceId: ref,
      invoiceExpirationPeriod: '24',
    })
    expect(second.status).toBe(409)
    expect(second.body).toMatchObject({ error: { code: 'duplicate_order', fields: [{ field: 'merchantInvoiceId' }] } })
    // Its order reference was given back: the same order with a new invoice reference is created.
    const fixed = await merchant('POST', '/v1/sessions', {
      methods: ['card', 'invoice'],
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: order,
      invoiceId,
      merchantInvoiceId: uniqueId('inv'),
      invoiceExpirationPeriod: '24',
    })
    expect(fixed.status).toBe(201)
  })

  it('the same creation request repeated with its Idempotency-Key gets the same session and secret; another body with the key is 422', async () => {
    const key = uniqueId('create')
    const body = { flow: 'card', amount: '10.00', currency: 'EUR', merchantTransactionId: uniqueId('order') }
    const first = await merchant<{ id: string; clientSecret: string }>('POST', '/v1/sessions', body, {
      'Idempotency-Key': key,
    })
    const again = await merchant<{ id: string; clientSecret: string }>('POST', '/v1/sessions', body, {
      'Idempotency-Key': key,
    })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    const other = await merchant('POST', '/v1/sessions', { ...body, amount: '11.00' }, { 'Idempotency-Key': key })
    expect(other.status).toBe(422)
  })

  it('another session’s signed notification is recorded and refused; the session stays open with no attempt', async () => {
    const a = await createSession()
    const paid = await pay(a, PENDING)
    expect(paid.body.status).toBe('pending')
    const note = await notificationSentFor(a.id)
    const b = await createSession()
    const refused = await deliverNotification(b.id, note)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ error: { code: 'notification_mismatch' } })
    expect(await sessionState(b.id)).toMatchObject({
      status: 'open',
      attempts: [],
      paymentId: null,
      refusedNotifications: 1,
    })
    // It still belongs to its own session (settled by it, or already by that session's inquiry).
    expect((await deliverNotification(a.id, note)).body).toMatchObject({ received: true, status: 'succeeded' })
  })

  it('a signed notification in another currency is refused (the checksum does not cover the currency)', async () => {
    const s = await createSession()
    const res = await pay(s, THREE_DS) // waits on the bank page: nothing settles it meanwhile
    expect(res.body.status).toBe('action_required')
    const paymentId = res.body.paymentId ?? ''
    const sum = await checksum('notification', {
      paymentId,
      merchantTransactionId: s.mtid,
      amount: '100.00',
      transactionStatus: 'Y',
      secureKey: SANDBOX.secureKey,
    })
    const signed = {
      paymentId,
      merchantTransactionId: s.mtid,
      amount: '100.00',
      transactionStatus: 'Y',
      checksum: sum.ok ? sum.value : '',
    }
    const refused = await deliverNotification(s.id, JSON.stringify({ ...signed, currency: 'JPY' }))
    expect(refused.status).toBe(409)
    expect((await sessionState(s.id)).status).toBe('action_required')
    // The same signed notification in the session's currency is its own.
    expect((await deliverNotification(s.id, JSON.stringify({ ...signed, currency: 'EUR' }))).body).toMatchObject({
      applied: true,
      status: 'succeeded',
    })
  })

  it('a repeat operation refuses a signed notification about another payment', async () => {
    const parent = await createSession({ recurring: 'INITIAL', createRegistration: true })
    const initial = await pay(parent, '4111111111111111')
    const key = uniqueId('rk')
    const rep = await merchant<{ status: string }>(
      'POST',
      `/v1/payments/${initial.body.paymentId}/repeat`,
      { amount: '9.99', currency: 'EUR' },
      { 'Idempotency-Key': key },
    )
    expect(rep.body.status).toBe('succeeded')
    const opId = env.OPERATIONS.idFromName(`repeat:${key}`).toString()
    const someoneElses = await notificationSentFor(parent.id)
    const res = await call(`/v1/notifications/op_${opId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: someoneElses,
    })
    expect(res.status).toBe(409)
  })
  it('a charged repeat stays charged: a signed decline naming its payment is a duplicate, and payment.repeat.succeeded stays its one final event', async () => {
    const parent = await createSession({ recurring: 'INITIAL', createRegistration: true })
    const initial = await pay(parent, '4111111111111111')
    const key = uniqueId('rk')
    const rep = await merchant<{ status: string; paymentId: string; merchantTransactionId: string }>(
      'POST',
      `/v1/payments/${initial.body.paymentId}/repeat`,
      { amount: '9.99', currency: 'EUR' },
      { 'Idempotency-Key': key },
    )
    expect(rep.body.status).toBe('succeeded')
    const { paymentId, merchantTransactionId } = rep.body
    const sum = await checksum('notification', {
      paymentId,
      merchantTransactionId,
      amount: '9.99',
      transactionStatus: 'N',
      secureKey: SANDBOX.secureKey,
    })
    const decline = JSON.stringify({
      paymentId,
      merchantTransactionId,
      amount: '9.99',
      currency: 'EUR',
      transactionStatus: 'N',
      checksum: sum.ok ? sum.value : '',
    })
    const opId = env.OPERATIONS.idFromName(`repeat:${key}`).toString()
    const res = await call<{ applied?: boolean; status?: string }>(`/v1/notifications/op_${opId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: decline,
    })
    expect(res.body).toMatchObject({ applied: false, status: 'succeeded' })
    await new Promise((r) => setTimeout(r, 300))
    const types = (await webhooksAbout(merchantTransactionId, 1, 10_000)).map(
      (h) => (JSON.parse(h.body) as { type: string }).type,
    )
    expect(types).toEqual(['payment.repeat.succeeded'])
  })
})
