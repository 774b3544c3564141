/**
 * Registering a card without paying (`flow: "setup"`, issue 19 row 15), through the public routes
 * against the sandbox gateway: one call for the merchant, the card registered by the smallest
 * authorisation of the currency, which the Worker voids itself (the sandbox counts the reversals
 * on the authorisation: `gatewayOperationsOn`), one `registration.created` event, lost answers
 * settled by inquiry, and the registration then paying in a saved-card session.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { browser, call, createSession, merchant, pay, sessionState, webhooksAbout, type Session } from './api.ts'
import { timePasses } from './clock.ts'
import { injectFault, uniqueId } from './helpers.ts'
import { gatewayOperationsOn, operate, paymentStub } from './money.ts'
import { PENDING } from './outcome-support.ts'

const setupSession = (over: Record<string, unknown> = {}): Promise<Session> =>
  createSession({ flow: 'setup', amount: undefined, ...over })
const sessionStub = (id: string): DurableObjectStub =>
  env.SESSIONS.get(env.SESSIONS.idFromName(id)) as unknown as DurableObjectStub

/** The merchant view once the setup's authorisation is voided (the session's alarm runs the void). */
async function voided(id: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  let last: Record<string, unknown> = {}
  while (Date.now() < deadline) {
    last = await sessionState(id)
    if ((last.setup as { void?: string } | null)?.void === 'voided') return last
    // Time passes for the session: a void or an inquiry waiting for its backoff runs now.
    await timePasses(sessionStub(id))
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`not voided; last state ${JSON.stringify({ status: last.status, setup: last.setup })}`)
}

/** The registration's first payment, in a saved-card session of 25.00 (the series INITIAL), with its CVV. */
async function payWithSavedCard(registrationId: string, last4: string) {
  const s = await createSession({
    flow: 'saved-card',
    registrationId,
    recurringType: 'INITIAL',
    savedCard: { brand: 'visa', last4 },
    amount: '25.00',
  })
  return browser(s, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
}

const registrationEvents = async (mtid: string) =>
  (await webhooksAbout(mtid, 1, 10_000, 'registration.created')).map(
    (w) => JSON.parse(w.body) as { id: string; type: string; data: Record<string, unknown> },
  )

describe('a setup session registers a card without a payment', () => {
  it('one call: the session succeeds with the registrationId, its authorisation of 0.01 is voided at the gateway, and registration.created is told once', async () => {
    const s = await setupSession({ currency: 'EUR', metadata: { customer: 'c-42' } })
    // The widget is told it saves a card (no amount to pay) and shows the card form.
    expect((await browser(s, 'GET', '')).body).toMatchObject({ flow: 'card', methods: ['card'], setup: true })
    const res = await pay(s, '4111111111111111')
    expect(res.body).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '1111' } })
    // The shopper's page is told the card is saved, not a payment: the authorisation is voided.
    expect(res.body.paymentId).toBeUndefined()
    const paymentId = (await sessionState(s.id)).paymentId as string
    const state = await voided(s.id)
    expect(state).toMatchObject({
      flow: 'setup',
      methods: ['setup'],
      method: 'setup',
      status: 'succeeded',
      amount: '0.01',
      paymentType: 'PA',
      paymentId,
      setup: { amount: '0.01', void: 'voided' },
    })
    expect(state.registrationId).toMatch(/^R\d+$/)
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ reversals: 1, captures: 0, refunds: 0 })
    const events = await registrationEvents(s.mtid)
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toMatchObject({
      registrationId: state.registrationId,
      sessionId: s.id,
      merchantTransactionId: s.mtid,
      paymentId,
      card: { brand: 'visa', last4: '1111' },
      metadata: { customer: 'c-42' },
    })
    // The session's own success is told too, as for every session.
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
  })

  it('authorises the smallest amount of a currency without a minor unit (JPY 1.00)', async () => {
    const s = await setupSession({ currency: 'JPY' })
    const res = await pay(s, '5555555555554444')
    expect(res.body.status).toBe('succeeded')
    const state = await voided(s.id)
    expect(state).toMatchObject({ amount: '1.00', currency: 'JPY', setup: { amount: '1.00', void: 'voided' } })
    expect(await gatewayOperationsOn((await sessionState(s.id)).paymentId as string)).toMatchObject({ reversals: 1 })
  })

  it('no payment record offers to capture or refund the setup authorisation', async () => {
    const s = await setupSession()
    await pay(s, '4111111111111111')
    const paymentId = (await sessionState(s.id)).paymentId as string
    await voided(s.id)
    expect((await merchant('GET', `/v1/payments/${paymentId}`)).status).toBe(404)
    expect((await operate(paymentId, 'capture')).status).toBe(404)
    expect((await operate(paymentId, 'refunds', { amount: '0.01' })).status).toBe(404)
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ captures: 0, refunds: 0, reversals: 1 })
  })

  it('the setup authorisation is not repeated: 409 payment_state, before any gateway call, and the same after the card is deleted', async () => {
    const s = await setupSession()
    await pay(s, '4111111111111111')
    const paymentId = (await sessionState(s.id)).paymentId as string
    const { registrationId } = await voided(s.id)
    const repeat = () =>
      merchant<{ error?: { code: string } }>(
        'POST',
        `/v1/payments/${paymentId}/repeat`,
        { amount: '4.00', currency: 'EUR' },
        { 'Idempotency-Key': uniqueId('rk') },
      )
    const before = await repeat()
    expect(before.status).toBe(409)
    expect(before.body.error).toMatchObject({ code: 'payment_state' })
    const deletion = await merchant('DELETE', `/v1/registrations/${registrationId as string}`, undefined, {
      'Idempotency-Key': uniqueId('d'),
    })
    expect(deletion.status).toBe(200)
    const after = await repeat()
    expect(after.status).toBe(409)
    expect(after.body.error).toMatchObject({ code: 'payment_state' })
  })

  it('a repeat key that reached the gateway before the authorisation was marked replays its answer, never the refusal of new repeats', async () => {
    const s = await setupSession()
    await pay(s, '4111111111111111')
    const paymentId = (await voided(s.id)).paymentId as string
    // As in the moment before the session's outbox marked it: the mark is not there yet.
    const stub = paymentStub(paymentId)
    const mark = await runInDurableObject(stub, async (_o, state) => {
      const kept = await state.storage.get('setup')
      await state.storage.delete('setup')
      return kept
    })
    expect(mark).toMatchObject({ sessionId: s.id })
    const key = uniqueId('rk')
    const repeat = () =>
      merchant<{ error?: { code: string } }>(
        'POST',
        `/v1/payments/${paymentId}/repeat`,
        { amount: '4.00', currency: 'EUR' },
        { 'Idempotency-Key': key },
      )
    const first = await repeat()
    // The sandbox refuses a repeat of a payment that began no recurring series: what matters is
    // that it was sent, and that its key answers the same once the mark is there.
    expect(first.status).toBe(502)
    await runInDurableObject(stub, (_o, state) => state.storage.put('setup', mark))
    const again = await repeat()
    expect(again.status).toBe(first.status)
    expect(again.body.error).toEqual(first.body.error)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    const fresh = await merchant<{ error?: { code: string } }>(
      'POST',
      `/v1/payments/${paymentId}/repeat`,
      { amount: '4.00', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('rk') },
    )
    expect(fresh.body.error).toMatchObject({ code: 'payment_state' })
  })

  it('a void whose answer was lost is found by inquiry: the authorisation ends voided, reversed once', async () => {
    const s = await setupSession()
    // The reversal reaches the gateway and is recorded; its answer is lost (the reversal carries
    // the session's own reference, sv-<session id>).
    await injectFault({
      op: 'reversal',
      fault: 'http500',
      field: 'merchantTransactionId',
      value: `sv-${s.id}`,
      times: 1,
    })
    const res = await pay(s, '4111111111111111')
    expect(res.body.status).toBe('succeeded')
    const state = await voided(s.id)
    expect(state.setup).toMatchObject({ void: 'voided' })
    expect(await gatewayOperationsOn((await sessionState(s.id)).paymentId as string)).toMatchObject({ reversals: 1 })
  })

  it('an authorisation whose own answer was lost is settled by status inquiry, then voided, and its registration told', async () => {
    const s = await setupSession()
    await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: s.mtid, times: 1 })
    const res = await pay(s, '4111111111111111')
    expect(res.body.status).toBe('unknown')
    const state = await voided(s.id)
    expect(state.status).toBe('succeeded')
    expect(state.registrationId).toMatch(/^R\d+$/)
    expect(await gatewayOperationsOn(state.paymentId as string)).toMatchObject({ reversals: 1 })
    const events = await registrationEvents(s.mtid)
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toMatchObject({ registrationId: state.registrationId })
  })

  it('3-D Secure on a setup card works as on a card payment: after the bank page, the card is registered and the authorisation voided', async () => {
    const s = await setupSession({ returnUrl: 'https://shop.example/saved' })
    const res = await pay(s, '4000000000003220')
    expect(res.body).toMatchObject({ status: 'action_required', redirect: { url: expect.stringContaining('/acs/') } })
    await fetch(`${res.body.redirect?.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    const back = await call(`/v1/return/${s.id}`)
    expect(back.headers.get('Location')).toBe(`https://shop.example/saved?session=${s.id}&status=succeeded`)
    const state = await voided(s.id)
    expect(state.registrationId).toMatch(/^R\d+$/)
    expect(await gatewayOperationsOn((await sessionState(s.id)).paymentId as string)).toMatchObject({ reversals: 1 })
    expect(await registrationEvents(s.mtid)).toHaveLength(1)
  })

  it('a declined card registers nothing and voids nothing: the shopper may try another card', async () => {
    const s = await setupSession()
    const declined = await pay(s, '4000000000000002')
    expect(declined.body).toMatchObject({ status: 'declined' })
    expect(declined.body).not.toHaveProperty('paymentId')
    expect(await sessionState(s.id)).toMatchObject({ status: 'declined', registrationId: null, setup: { void: null } })
    // The page reads the session as it was answered: the authorisation's id is never the page's.
    const read = await browser<{ result: { paymentId: string | null; card: unknown } | null }>(s, 'GET', '')
    expect(read.body.result).toMatchObject({ paymentId: null, card: { last4: '0002' } })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    expect((await voided(s.id)).registrationId).toMatch(/^R\d+$/)
  })

  it('the registration then pays in a saved-card session: its first payment is the series INITIAL', async () => {
    const setup = await setupSession()
    expect((await pay(setup, '4111111111111111')).body.status).toBe('succeeded')
    const registrationId = (await voided(setup.id)).registrationId as string
    const res = await payWithSavedCard(registrationId, '1111')
    expect(res.body).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '1111' } })
  })

  it('a card registered by a payment the gateway answered pending pays in a saved-card session once it settled', async () => {
    const setup = await setupSession()
    expect((await pay(setup, PENDING)).body.status).toBe('pending')
    const registrationId = (await voided(setup.id)).registrationId as string
    expect(registrationId).toMatch(/^R\d+$/)
    const res = await payWithSavedCard(registrationId, '0259')
    expect(res.body).toMatchObject({ status: 'succeeded', card: { last4: '0259' } })
  })

  it('refuses an amount, a payment type or another method beside setup, naming the field and the rule', async () => {
    const create = (body: Record<string, unknown>) =>
      merchant<{ error: { code: string; fields: { field: string; code: string }[] } }>('POST', '/v1/sessions', {
        currency: 'EUR',
        merchantTransactionId: uniqueId('order'),
        allowedOrigins: ['https://shop.example'],
        ...body,
      })
    const withAmount = await create({ flow: 'setup', amount: '10.00', paymentType: 'DB' })
    expect(withAmount.status).toBe(400)
    expect(withAmount.body.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'amount', code: 'not_allowed' }),
        expect.objectContaining({ field: 'paymentType', code: 'not_allowed' }),
      ]),
    )
    const mixed = await create({ methods: ['setup', 'qr'] })
    expect(mixed.status).toBe(400)
    expect(mixed.body.error.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'methods', code: 'not_allowed' })]),
    )
    // Without setup the amount stays required.
    const noAmount = await create({ flow: 'card' })
    expect(noAmount.body.error.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'amount', code: 'required' })]),
    )
  })
})
