/**
 * Payment outcomes are never lost, forged or doubled: each case seen over real HTTP against the
 * sandbox, through the Worker's public routes. (The model-based test, outcomes-model.test.ts,
 * checks the same rules under random interleavings.)
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../shared/webhooks/sign.ts'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import {
  browser,
  call,
  createSession,
  deliverNotification,
  merchant,
  notificationSentFor,
  pay,
  payInvoicePage,
  sessionState,
  webhooksAbout,
} from './api.ts'
import { timePasses } from './clock.ts'
import { cardFields, chargesFor, client, injectFault, uniqueId } from './helpers.ts'
import {
  THREE_DS,
  DECLINE,
  PENDING,
  stubOf,
  eventTypes,
  finishBankPage,
  eventually,
  sandboxInvoice,
} from './outcome-support.ts'

describe('1. a payment in flight never expires; a verified result wins', () => {
  it('a 3-D Secure payment finished after the session time ran out ends paid, with one final event: succeeded', async () => {
    const s = await createSession({ expiresIn: 60 })
    const res = await pay(s, THREE_DS)
    expect(res.body.status).toBe('action_required')
    // Seventy seconds later: the session's time is up while the shopper is on the bank's page.
    await timePasses(stubOf(s), true)
    expect((await sessionState(s.id)).status).toBe('action_required')
    await finishBankPage(s, res.body.redirect?.url ?? '')
    // The notification (or the session's own inquiry, whichever comes first) settles it.
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).body).toMatchObject({
      received: true,
      status: 'succeeded',
    })
    expect((await call(`/v1/return/${s.id}`)).text).toContain('Payment successful')
    const types = await eventTypes(s.mtid, 3)
    expect(types.filter((t) => t.startsWith('checkout.session.'))).toEqual(['checkout.session.succeeded'])
  })

  it('an invoice session lives as long as its invoice: past its own 30 minutes it stays open and the paid invoice settles it', async () => {
    const invoiceId = await sandboxInvoice('250.00')
    const s = await createSession({
      flow: 'invoice',
      amount: '250.00',
      invoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    const regen = await browser<{ invoice: { transactionUrl: string } }>(s, 'POST', '/invoice/regenerate', {})
    expect(regen.status).toBe(200)
    expect(Date.parse((await sessionState(s.id)).expiresAt as string)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
    await timePasses(stubOf(s)) // the 30-minute mark passes: nothing to expire yet
    expect((await sessionState(s.id)).status).toBe('open')
    await payInvoicePage(regen.body.invoice.transactionUrl)
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).body).toMatchObject({ applied: true })
    expect((await sessionState(s.id)).status).toBe('succeeded')
  })
})

describe('1b. a record outlives its retention while its payment is in flight', () => {
  it('a session whose payment is still pending when its seven days are up is kept, and the late notification settles it paid', async () => {
    const s = await createSession()
    const res = await pay(s, PENDING)
    expect(res.body.status).toBe('pending')
    // Seven days later, with the gateway still silent: only the purge is due.
    await runInDurableObject(stubOf(s), async (_instance, state) => {
      const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
      await state.storage.put('tasks', { purge: Date.now() - 1, ...(tasks.webhook ? { webhook: tasks.webhook } : {}) })
      await state.storage.setAlarm(Date.now())
    })
    await runDurableObjectAlarm(stubOf(s))
    expect((await sessionState(s.id)).status).toBe('pending')
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).body).toMatchObject({
      received: true,
      status: 'succeeded',
    })
  })
})

describe('2. an invoice settles only at the session amount', () => {
  it('an invoice for another amount is refused at regeneration (409 invoice_mismatch), never offered, and the session fails', async () => {
    const invoiceId = await sandboxInvoice('1.00')
    const s = await createSession({
      flow: 'invoice',
      amount: '120.00',
      invoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    const regen = await browser(s, 'POST', '/invoice/regenerate', {})
    expect(regen.status).toBe(409)
    expect(regen.body).toMatchObject({ error: { code: 'invoice_mismatch' } })
    expect(regen.text).not.toContain('transactionUrl')
    expect(await sessionState(s.id)).toMatchObject({
      status: 'failed',
      invoice: null,
      lastError: { code: 'invoice_mismatch' },
    })
    expect(await eventTypes(s.mtid, 1)).toEqual(['checkout.session.failed'])
  })
})

describe('4. one event per change', () => {
  it('eight "charge again" repeats, answered and notified at once, each tell payment.repeat.succeeded exactly once', async () => {
    const parent = await createSession({ recurring: 'INITIAL', createRegistration: true })
    const initial = await pay(parent, '4111111111111111')
    const keys = Array.from({ length: 8 }, () => uniqueId('rk'))
    const answers = await Promise.all(
      keys.map((key) =>
        merchant<{ status: string; merchantTransactionId: string }>(
          'POST',
          `/v1/payments/${initial.body.paymentId}/repeat`,
          { amount: '2.50', currency: 'EUR' },
          { 'Idempotency-Key': key },
        ),
      ),
    )
    for (const a of answers) {
      expect(a.body.status).toBe('succeeded')
      // The sandbox notifies the operation too: relay it, as the gateway would deliver it.
      const opId = env.OPERATIONS.idFromName(`repeat:${keys[answers.indexOf(a)]}`).toString()
      const note = (await (await fetch(`${env.CATCHER_URL}/v1/notifications/op_${opId}`)).json()) as string[]
      for (const body of note)
        await call(`/v1/notifications/op_${opId}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        })
    }
    await new Promise((r) => setTimeout(r, 500))
    for (const a of answers) {
      const hooks = await webhooksAbout(a.body.merchantTransactionId, 1, 10_000, 'payment.repeat.succeeded')
      expect(hooks).toHaveLength(1)
      expect(JSON.parse(hooks[0]?.body ?? '{}')).toMatchObject({ data: { resultCode: expect.any(String) } })
    }
  })

  it('ten parallel invoice regenerations of one session make one gateway call and one invoice.regenerated event', async () => {
    const invoiceId = await sandboxInvoice('250.00')
    const s = await createSession({
      flow: 'invoice',
      amount: '250.00',
      invoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        browser<{ invoice?: { systemInvoiceId: string } }>(s, 'POST', '/invoice/regenerate', {}),
      ),
    )
    const ok = answers.filter((a) => a.status === 200)
    expect(new Set(ok.map((a) => a.body.invoice?.systemInvoiceId)).size).toBe(1)
    for (const a of answers.filter((x) => x.status !== 200))
      expect(a.body).toMatchObject({ error: { code: 'payment_in_progress' } })
    expect(await eventTypes(s.mtid, 1)).toEqual(['invoice.regenerated'])
  })
})

describe('5. a charge is never re-sent after a token refusal', () => {
  it('a charge answered with 20001 after the gateway took it is unknown, then paid by inquiry: one charge, one attempt', async () => {
    const s = await createSession()
    await injectFault({ op: 'payment', fault: 'token_refused', field: 'merchantTransactionId', value: s.mtid })
    const res = await pay(s, '4111111111111111')
    expect(res.body.status).toBe('unknown')
    await timePasses(stubOf(s))
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', attempts: [{ n: 1, status: 'succeeded' }] })
    expect(await chargesFor(s.mtid)).toBe(1)
  })
})

describe('6. attempt events are not final', () => {
  it('a decline with attempts left is checkout.attempt.declined; the later success is the one final event', async () => {
    const s = await createSession()
    expect((await pay(s, DECLINE)).body).toMatchObject({ status: 'declined', attemptsRemaining: 2 })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const types = await eventTypes(s.mtid, 4)
    expect(types).toEqual([
      'checkout.attempt.processing',
      'checkout.attempt.declined',
      'checkout.attempt.processing',
      'checkout.session.succeeded',
    ])
  })

  it('the last attempt declined fails the session: checkout.session.failed, and the widget is told no attempts remain', async () => {
    const s = await createSession({ maxAttempts: 1 })
    expect((await pay(s, DECLINE)).body).toMatchObject({ status: 'declined', attemptsRemaining: 0 })
    expect((await sessionState(s.id)).status).toBe('failed')
    expect((await eventTypes(s.mtid, 2)).filter((t) => t.startsWith('checkout.session.'))).toEqual([
      'checkout.session.failed',
    ])
    // Personal data leaves the browser view once the session is final.
    expect((await browser(s, 'GET', '')).body).toMatchObject({ status: 'failed', customer: null })
  })
})

describe('7. clear operator outcomes', () => {
  it('a request the gateway refuses (30005) says so: 502 gateway_rejected to the browser, the gateway’s code kept on the session for the merchant, nothing charged', async () => {
    const mtid = uniqueId('dup')
    // A live payment with this reference already exists at the gateway (made outside this Worker).
    expect(
      (
        await client().payment({
          amount: '1.00',
          currency: 'EUR',
          paymentType: 'DB',
          merchantTransactionId: mtid,
          ...cardFields(PENDING),
        } as never)
      ).kind,
    ).toBe('pending')
    const s = await createSession({ merchantTransactionId: mtid })
    const res = await pay(s, '4111111111111111')
    expect(res.status).toBe(502)
    // The browser gets our code and words; the gateway's code is the merchant's (the session, its events).
    expect(res.body).toMatchObject({ error: { code: 'gateway_rejected' } })
    expect(res.text).not.toContain('30005')
    expect(await sessionState(s.id)).toMatchObject({
      status: 'open',
      lastError: { code: 'gateway_rejected', gatewayCode: '30005' },
    })
  })

  it('GET /healthz?deep=1 needs the merchant key and proves a token can be had; unreachable and refused are told apart', async () => {
    const { default: app } = await import('../../worker/index.ts')
    const deep = (over: Partial<typeof env> = {}, auth = true) =>
      app.fetch(
        new Request('http://worker.test/healthz?deep=1', {
          headers: auth ? { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}` } : {},
        }),
        { ...env, ...over },
      )
    expect((await deep({}, false)).status).toBe(401)
    const ok = await deep()
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ ok: true, deep: { token: 'ok' } })
    const down = await deep({ GATEWAY_BASE_URL: 'http://127.0.0.1:9' })
    expect(down.status).toBe(503)
    expect(await down.json()).toMatchObject({ ok: false, deep: { error: 'gateway_unavailable' } })
    const refused = await deep({ PARTNER_ID: 'not-the-partner' })
    expect(refused.status).toBe(503)
    expect(await refused.json()).toMatchObject({ ok: false, deep: { token: 'refused', error: 'gateway_auth_failed' } })
  })

  it('an abandoned 3-D Secure payment ends declined once the gateway closes the authentication, not unknown for a day', async () => {
    const s = await createSession()
    expect((await pay(s, THREE_DS)).body.status).toBe('action_required')
    await timePasses(stubOf(s)) // asked while the shopper is still on the bank's page: still waiting
    expect((await sessionState(s.id)).status).toBe('action_required')
    await new Promise((r) => setTimeout(r, 4_200)) // the sandbox's authentication window (4 s in tests)
    await timePasses(stubOf(s))
    expect(await sessionState(s.id)).toMatchObject({
      status: 'declined',
      attempts: [{ status: 'declined', code: '10016' }],
    })
  })
})

describe('8. invoices regenerated through the merchant route', () => {
  it('carry a notification address and a return page of their own; the paid invoice is told as invoice.paid', async () => {
    const invoiceId = await sandboxInvoice('30.00')
    const key = uniqueId('ik')
    const ref = uniqueId('mref')
    const res = await merchant<{ status: string; invoice: { transactionUrl: string } }>(
      'POST',
      `/v1/invoices/${invoiceId}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24' },
      { 'Idempotency-Key': key },
    )
    expect(res.body.status).toBe('succeeded')
    const opId = env.OPERATIONS.idFromName(`regenerate:${key}`).toString()
    const paid = await payInvoicePage(res.body.invoice.transactionUrl)
    // The shopper lands on the Worker's page for this operation, not a 404.
    expect(paid.headers.get('Location')).toContain(`/v1/return/op_${opId}`)
    const page = await call(`/v1/return/op_${opId}`)
    expect(page.status).toBe(200)
    // The gateway notifies from its own queue, a moment after the payment: wait for it to arrive.
    const notes = await eventually(async () => {
      const got = (await (await fetch(`${env.CATCHER_URL}/v1/notifications/op_${opId}`)).json()) as string[]
      return got.length > 0 ? got : undefined
    })
    const settled = await call(`/v1/notifications/op_${opId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: notes[0],
    })
    expect(settled.body).toMatchObject({ applied: true })
    const paidEvent = await eventually(async () => {
      const hooks = (await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as {
        body: string
        signature?: string
      }[]
      return hooks
        .map((h) => ({ h, e: JSON.parse(h.body) as { type: string; data: { idempotencyKeyHash?: string } } }))
        .find(({ e }) => e.type === 'invoice.paid' && e.data.idempotencyKeyHash === opId)
    })
    expect((await verifyWebhook(paidEvent.h.body, paidEvent.h.signature, TEST_SECRETS.WEBHOOK_SECRET)).ok).toBe(true)
  })
})

describe('9. amounts respect the currency’s minor unit', () => {
  it('1000.50 JPY is refused at creation (amount: minor_units); 1000.00 JPY is accepted and charged as shown', async () => {
    const half = await merchant('POST', '/v1/sessions', {
      flow: 'card',
      amount: '1000.50',
      currency: 'JPY',
      merchantTransactionId: uniqueId('jpy'),
    })
    expect(half.status).toBe(400)
    expect(half.body).toMatchObject({
      error: { code: 'invalid_request', fields: [{ field: 'amount', code: 'minor_units' }] },
    })
    expect(half.text).not.toContain('1000.50')
    const whole = await createSession({ amount: '1000.00', currency: 'JPY' })
    expect((await browser(whole, 'GET', '')).body).toMatchObject({ amount: '1000.00', currency: 'JPY' })
  })

  it('a repeat of 5.50 JPY is refused before any gateway call', async () => {
    const res = await merchant(
      'POST',
      '/v1/payments/P000000001/repeat',
      { amount: '5.50', currency: 'JPY' },
      { 'Idempotency-Key': uniqueId('k') },
    )
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: { fields: [{ field: 'amount', code: 'minor_units' }] } })
  })
})
