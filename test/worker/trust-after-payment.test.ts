/**
 * What a merchant trusts after the payment: a deleted card is never charged again, every payment the
 * Worker learns of is a payment record, the shopper's return page says what happened to the money,
 * a retry after a lost answer learns the outcome, and a settled repeat keeps one answer.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { OPERATION_PATHS } from '../../shared/fields.ts'
import { sha256Hex } from '../../worker/ids.ts'
import {
  browser,
  call,
  createSession,
  deliverNotification,
  distinctEvents,
  merchant,
  notificationSentFor,
  pay,
  payInvoicePage,
  sessionState,
  webhooksAbout,
  type Session,
} from './api.ts'
import { sessionTimeIsUp, timePasses, timeStandsStill } from './clock.ts'
import { chargesFor, injectFault, invoicePageFor, regenerationsRefused, uniqueId } from './helpers.ts'
import { gatewayOperationsOn, operate, paymentEventually, paymentStub } from './money.ts'
import { eventually, sandboxInvoice } from './outcome-support.ts'

type OperationBody = {
  id: string
  object: string
  kind: string
  status: string
  needsAttention?: boolean
  paymentId?: string | null
  resultCode?: string
  error?: { code: string }
}

/** A paid INITIAL payment that saved its card, and that card's registration. */
async function savedCardPayment(
  metadata: Record<string, string> = {},
): Promise<{ paymentId: string; registrationId: string; session: Session }> {
  const session = await createSession({ recurring: 'INITIAL', createRegistration: true, metadata })
  const res = await pay(session, '4111111111111111')
  if (res.body.status !== 'succeeded' || !res.body.paymentId) throw new Error(res.text)
  const registrationId = (await sessionState(session.id)).registrationId as string
  // The payment's record follows the success through the outbox.
  await paymentEventually(res.body.paymentId)
  return { paymentId: res.body.paymentId, registrationId, session }
}

/** A checkout offering the card an earlier payment saved (`over` says how: its flow or methods). */
async function savedCardCheckout(over: Record<string, unknown>): Promise<{ s: Session; registrationId: string }> {
  const { registrationId } = await savedCardPayment()
  const s = await createSession({
    ...over,
    registrationId,
    savedCard: { brand: 'visa', last4: '1111' },
    amount: '9.99',
  })
  return { s, registrationId }
}

const repeat = (paymentId: string, key: string, body: Record<string, unknown> = { amount: '9.99', currency: 'EUR' }) =>
  merchant<OperationBody>('POST', `/v1/payments/${paymentId}/repeat`, body, { 'Idempotency-Key': key })

/** The order reference the Worker gives the repeat of an Idempotency-Key (what the gateway counts). */
const repeatOrder = async (key: string) => `rp-${(await sha256Hex(`repeat:${key}`)).slice(0, 24)}`

const deleteRegistration = (registrationId: string) =>
  merchant<{ status: string }>('DELETE', `/v1/registrations/${registrationId}`, undefined, {
    'Idempotency-Key': uniqueId('del'),
  })

const opStub = (name: string) => env.OPERATIONS.get(env.OPERATIONS.idFromName(name)) as unknown as DurableObjectStub

/** The notifications the sandbox sent to an operation's address (the catcher records them for tests to relay). */
const notificationsOfOperation = async (opId: string): Promise<string[]> =>
  (await (await fetch(`${env.CATCHER_URL}/v1/notifications/op_${opId}`)).json()) as string[]

/** The `registration.deleted` events the merchant got about a card, each once. */
const deletionsTold = async (registrationId: string) =>
  distinctEvents(
    (await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as { body: string; signature: string | undefined }[],
  ).filter((e) => e.body.includes('"type":"registration.deleted"') && e.body.includes(`"${registrationId}"`))

/** A card saved by a payment that waited on the bank's page while its deletion was asked (404 then), stored since. */
async function cardStoredAfterItsDeletion() {
  const s = await createSession({ recurring: 'INITIAL', createRegistration: true })
  const res = await pay(s, '4000000000003220')
  expect(res.body.status).toBe('action_required')
  const registrationId = (await sessionState(s.id)).registrationId as string
  expect(registrationId).toMatch(/^R\d+$/)
  expect((await deleteRegistration(registrationId)).status).toBe(404)
  await fetch(`${res.body.redirect?.url}/complete`, {
    method: 'POST',
    body: new URLSearchParams({ outcome: 'authenticated' }),
    redirect: 'manual',
  })
  await deliverNotification(s.id, await notificationSentFor(s.id))
  expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', registrationId })
  return { registrationId, paymentId: res.body.paymentId as string }
}

describe('a deleted card is never charged again', () => {
  it('a repeat of its first payment is 409 registration_deleted and reaches no gateway', async () => {
    const { paymentId, registrationId } = await savedCardPayment()
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    const key = uniqueId('rk')
    const res = await repeat(paymentId, key)
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'registration_deleted' })
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
    // Its event names the request, so the merchant matches it to the charge it tried.
    const [failed] = await webhooksAbout(await repeatOrder(key), 1, 10_000, 'payment.repeat.failed')
    expect(JSON.parse(failed?.body ?? '{}').data).toMatchObject({
      error: 'registration_deleted',
      repeatOf: paymentId,
      amount: '9.99',
      currency: 'EUR',
    })
  })

  it('a repeat of a repeat of it is refused too (the repeat inherits the card)', async () => {
    const { paymentId, registrationId } = await savedCardPayment()
    const first = await repeat(paymentId, uniqueId('rk'))
    expect(first.body.status).toBe('succeeded')
    const second = first.body.paymentId as string
    await paymentEventually(second)
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    const key = uniqueId('rk')
    expect((await repeat(second, key)).status).toBe(409)
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
  })

  it('a saved-card session created before the deletion is refused at pay, before any gateway call', async () => {
    const { s, registrationId } = await savedCardCheckout({ flow: 'saved-card' })
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    const res = await browser(s, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ error: { code: 'registration_deleted' } })
    expect(await chargesFor(s.mtid)).toBe(0)
  })

  it('a checkout opened after the deletion does not offer the card: its other methods remain', async () => {
    const { s, registrationId } = await savedCardCheckout({ methods: ['saved-card', 'card'] })
    expect((await browser(s, 'GET', '')).body).toMatchObject({
      methods: expect.arrayContaining(['saved-card', 'card']),
      savedCard: { brand: 'visa', last4: '1111' },
    })
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    const view = await browser(s, 'GET', '')
    expect(view.status).toBe(200)
    expect(view.body).toMatchObject({ methods: ['card'], flow: 'card', savedCard: null, status: 'open' })
  })

  it('a checkout of the deleted card alone says registration_deleted when read, as its pay would', async () => {
    const { s, registrationId } = await savedCardCheckout({ flow: 'saved-card' })
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    const view = await browser(s, 'GET', '')
    expect(view.status).toBe(409)
    expect(view.body).toMatchObject({ error: { code: 'registration_deleted' } })
  })

  it('a card deleted while its first payment was on the bank’s page (404, the gateway had none yet) is deleted at the gateway when asked again, and stays refused', async () => {
    const { registrationId, paymentId } = await cardStoredAfterItsDeletion()
    // The card is stored at the gateway now: asked again, the deletion reaches it.
    const again = await deleteRegistration(registrationId)
    expect(again.status).toBe(200)
    expect(again.body.status).toBe('deleted')
    const deletedEvents = () => deletionsTold(registrationId)
    await expect.poll(async () => (await deletedEvents()).length, { timeout: 10_000 }).toBe(1)
    const key = uniqueId('rk')
    expect((await repeat(paymentId, key)).body.error).toMatchObject({ code: 'registration_deleted' })
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
    // Once deleted, asked again, it is the deletion done: told once.
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    await new Promise((r) => setTimeout(r, 300))
    expect(await deletedEvents()).toHaveLength(1)
  })

  it('a deletion asked again after a 404 whose answer is lost ends deleted when its retry finds no such card: registration.deleted is told once', async () => {
    const { registrationId } = await cardStoredAfterItsDeletion()
    // The gateway deletes the card; its answer is lost.
    await injectFault({ op: 'deleteRegistration', fault: 'http500', field: 'id', value: registrationId, times: 1 })
    const again = await deleteRegistration(registrationId)
    expect(again.status).toBe(202)
    expect(again.body.status).toBe('deleting')
    // Its retry, from the object's alarm: the gateway has no such card now, so the deletion went through.
    const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(registrationId)) as unknown as DurableObjectStub
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        expect(await deletionsTold(registrationId)).toHaveLength(1)
      },
      { timeout: 10_000, interval: 200 },
    )
    expect((await deleteRegistration(registrationId)).body.status).toBe('deleted')
  })

  it('a deletion whose retry the gateway refuses (its token refused) keeps the card refused for every charge, and is asked again until it is done, told once', async () => {
    const { paymentId, registrationId } = await savedCardPayment()
    // The first ask's answer is lost; its retry's token is refused, and again with a fresh one.
    await injectFault({ op: 'deleteRegistration', fault: 'http500', field: 'id', value: registrationId, times: 1 })
    await injectFault({
      op: 'deleteRegistration',
      fault: 'token_refused',
      field: 'id',
      value: registrationId,
      times: 2,
    })
    expect((await deleteRegistration(registrationId)).status).toBe(202)
    const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(registrationId)) as unknown as DurableObjectStub
    await timePasses(stub)
    const key = uniqueId('rk')
    expect((await repeat(paymentId, key)).body.error).toMatchObject({ code: 'registration_deleted' })
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        expect(await deletionsTold(registrationId)).toHaveLength(1)
      },
      { timeout: 10_000, interval: 200 },
    )
  })

  it('a new card saved by a checkout that also offered a saved card is the one its payment names: its deletion stops the payment’s repeats', async () => {
    const { s, registrationId: offered } = await savedCardCheckout({
      methods: ['saved-card', 'card'],
      createRegistration: true,
      recurring: 'INITIAL',
    })
    // The shopper pays with a new card; the answer is lost and the gateway's notification settles it.
    await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: s.mtid })
    expect((await pay(s, '4111111111111111')).body).toMatchObject({ status: 'unknown' })
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).status).toBe(200)
    const { paymentId } = (await sessionState(s.id)) as { paymentId: string }
    // The card it saved, asked of the gateway, is the payment's.
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    let saved: string | undefined
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        saved = ((await paymentEventually(paymentId)) as { registrationId?: string | null }).registrationId ?? undefined
        expect(saved).toMatch(/^R/)
      },
      { timeout: 10_000, interval: 200 },
    )
    expect(saved).not.toBe(offered)
    expect((await deleteRegistration(saved ?? '')).status).toBe(200)
    const key = uniqueId('rk')
    expect((await repeat(paymentId, key)).body.error).toMatchObject({ code: 'registration_deleted' })
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
  })

  it('from the moment the deletion is asked, while its gateway call is still unanswered', async () => {
    const { paymentId, registrationId } = await savedCardPayment()
    await injectFault({ op: 'deleteRegistration', fault: 'timeout', field: 'id', value: registrationId })
    const deleting = await deleteRegistration(registrationId)
    expect(deleting.status).toBe(202)
    expect(deleting.body.status).toBe('deleting')
    const key = uniqueId('rk')
    expect((await repeat(paymentId, key)).body.error).toMatchObject({ code: 'registration_deleted' })
    expect(await chargesFor(await repeatOrder(key))).toBe(0)
  })
})

describe('every payment the Worker learns of is a payment record', () => {
  it('is open when the merchant hears of the success: a lookup made as the event arrives finds it', async () => {
    const s = await createSession()
    const heard: { paymentId: string; status: number }[] = []
    const realFetch = globalThis.fetch
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      if (url.startsWith(env.MERCHANT_WEBHOOK_URL ?? '\0') && typeof init?.body === 'string') {
        const event = JSON.parse(init.body) as { type: string; data: { id?: string; paymentId?: string } }
        // The merchant's server looks the payment up the moment the success reaches it.
        if (event.type === 'checkout.session.succeeded' && event.data.id === s.id && event.data.paymentId)
          heard.push({
            paymentId: event.data.paymentId,
            status: (await merchant('GET', `/v1/payments/${event.data.paymentId}`)).status,
          })
      }
      return realFetch.call(globalThis, input, init)
    })
    try {
      const paid = await pay(s, '4111111111111111')
      expect(paid.body.status).toBe('succeeded')
      expect((await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).length).toBe(1)
    } finally {
      vi.restoreAllMocks()
    }
    expect(heard.length).toBeGreaterThan(0)
    expect(heard.every((h) => h.status === 200)).toBe(true)
  })

  it('a repeat is found with the card and metadata of the payment it repeats', async () => {
    const { paymentId } = await savedCardPayment({ orderId: 'A-1001' })
    const res = await repeat(paymentId, uniqueId('rk'))
    expect(res.body.status).toBe('succeeded')
    const payment = await paymentEventually(res.body.paymentId as string)
    expect(payment).toMatchObject({ source: 'repeat', metadata: { orderId: 'A-1001' }, card: { last4: '1111' } })
  })

  it('an invoice regenerated through the merchant route and paid is found, listed by its order and refundable, with its metadata', async () => {
    const invoiceId = await sandboxInvoice('30.00')
    const key = uniqueId('ik')
    const ref = uniqueId('mref')
    const res = await merchant<{ id: string; status: string; invoice: { transactionUrl: string } }>(
      'POST',
      `/v1/invoices/${invoiceId}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24', metadata: { orderId: 'INV-7' } },
      { 'Idempotency-Key': key },
    )
    expect(res.body.status).toBe('succeeded')
    const opId = env.OPERATIONS.idFromName(`regenerate:${key}`).toString()
    expect(res.body.id).toBe(`op_${opId}`)
    // Before it is paid, the shopper's page does not say "Payment successful".
    const before = await call(`/v1/return/op_${opId}`)
    expect(before.text).toContain('Not paid yet')
    expect(before.text).not.toContain('Payment successful')
    await payInvoicePage(res.body.invoice.transactionUrl)
    const note = await eventually(async () => (await notificationsOfOperation(opId))[0])
    expect(
      (
        await call(`/v1/notifications/op_${opId}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: note,
        })
      ).body,
    ).toMatchObject({ applied: true })
    const paymentId = (JSON.parse(note) as { paymentId: string }).paymentId
    const payment = await paymentEventually(paymentId)
    expect(payment).toMatchObject({
      source: 'invoice',
      merchantTransactionId: ref,
      amount: '30.00',
      metadata: { orderId: 'INV-7' },
    })
    // The return page now says the money was taken.
    expect((await call(`/v1/return/op_${opId}`)).text).toContain('Payment successful')
    const listed = await eventually(async () => {
      const page = await merchant<{ data: { id: string }[] }>('GET', `/v1/payments?order=${encodeURIComponent(ref)}`)
      return page.body.data.some((p) => p.id === paymentId) ? page : undefined
    })
    expect(listed.status).toBe(200)
    const refund = await operate(paymentId, 'refunds', { amount: '10.00' })
    expect(refund.body.operation).toMatchObject({ status: 'succeeded', amount: '10.00' })
  })
})

describe('a retry after a lost answer learns the outcome', () => {
  it('a repeat whose answer was lost replays, once settled, as it is now; GET /v1/operations/{id} reads it', async () => {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('rk')
    await injectFault({ op: 'repeat', fault: 'timeout', field: 'merchantTransactionId', value: await repeatOrder(key) })
    const first = await repeat(paymentId, key)
    expect(first.body.status).toBe('unknown')
    const read = await merchant<OperationBody>('GET', `/v1/operations/${first.body.id}`)
    expect(read.body).toMatchObject({ id: first.body.id, object: 'operation', kind: 'repeat', status: 'unknown' })
    // Time passes: the alarm's inquiry finds the charge.
    await timePasses(opStub(`repeat:${key}`))
    const again = await repeat(paymentId, key)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toMatchObject({ id: first.body.id, status: 'succeeded' })
    expect((await merchant<OperationBody>('GET', `/v1/operations/${first.body.id}`)).body.status).toBe('succeeded')
    expect(await chargesFor(await repeatOrder(key))).toBe(1)
  })

  it('a repeat whose Worker went away during the call: settled by the alarm, its key replays the outcome (not 409 in progress) and nothing is charged twice', async () => {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('rk')
    const order = await repeatOrder(key)
    await injectFault({ op: 'repeat', fault: 'late', field: 'merchantTransactionId', value: order })
    const first = repeat(paymentId, key)
    await eventually(async () => ((await chargesFor(order)) === 1 ? true : undefined))
    // The gateway has charged; its answer is on its way when the object is reset (a deploy, an eviction).
    await runInDurableObject(opStub(`repeat:${key}`), (_instance, state) => state.abort()).catch(() => undefined)
    expect((await first).status).toBeGreaterThanOrEqual(500)
    await timePasses(opStub(`repeat:${key}`))
    const again = await repeat(paymentId, key)
    expect([again.status, again.headers.get('Idempotent-Replayed')]).toEqual([200, 'true'])
    expect(again.body).toMatchObject({ status: 'succeeded', repeatOf: paymentId })
    expect(await chargesFor(order)).toBe(1)
  })

  it('a shopper pay whose answer was lost replays, once settled, as its attempt is now', async () => {
    const s = await createSession()
    await injectFault({ op: 'payment', fault: 'unparseable', field: 'merchantTransactionId', value: s.mtid })
    const key = uniqueId('key')
    expect((await pay(s, '4111111111111111', key)).body).toMatchObject({ status: 'unknown' })
    await timePasses(env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub)
    const again = await pay(s, '4111111111111111', key)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toMatchObject({ status: 'succeeded', message: 'Payment successful.' })
    expect(await chargesFor(s.mtid)).toBe(1)
  })

  it('a second attempt whose answer was lost names no payment yet, not the declined first one’s', async () => {
    const s = await createSession()
    const first = await pay(s, '4000000000000002')
    expect(first.body).toMatchObject({ status: 'declined', paymentId: expect.any(String) })
    await injectFault({ op: 'payment', fault: 'timeout', field: 'merchantTransactionId', value: s.mtid })
    const second = await pay(s, '4111111111111111')
    expect(second.body.status).toBe('unknown')
    expect(second.body.paymentId).toBeUndefined()
    expect((await sessionState(s.id)).paymentId).toBeNull()
    // Time passes: the inquiry finds the second attempt's charge, and names it.
    await timePasses(env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub)
    const settled = await sessionState(s.id)
    expect(settled).toMatchObject({ status: 'succeeded' })
    expect(settled.paymentId).not.toBe(first.body.paymentId)
  })

  it('GET /v1/operations/{id} of an id that names no operation is 404', async () => {
    expect((await merchant('GET', `/v1/operations/op_${'0'.repeat(64)}`)).status).toBe(404)
    expect((await merchant('GET', '/v1/operations/op_nothex')).status).toBe(404)
  })
})

describe("an object's alarm is never lost", () => {
  /** A repeat charged at the gateway whose answer was lost: unknown, its inquiry a task of its alarm. */
  async function unknownRepeat() {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('rk')
    const order = await repeatOrder(key)
    await injectFault({ op: 'repeat', fault: 'http500', field: 'merchantTransactionId', value: order, times: 1 })
    const first = await repeat(paymentId, key)
    expect(first.body.status).toBe('unknown')
    expect(await chargesFor(order)).toBe(1)
    const stub = opStub(`repeat:${key}`)
    await timeStandsStill(stub)
    const status = async () => (await merchant<OperationBody>('GET', `/v1/operations/${first.body.id}`)).body.status
    // A stub of the object as it is now (one held across a reset answers only that it was reset).
    return { stub, status, fresh: () => opStub(`repeat:${key}`) }
  }

  it('a run cut short while its task waits on the gateway (the object reset: a deploy) takes the task up again', async () => {
    const { stub, status, fresh } = await unknownRepeat()
    // The inquiry is on its way to the gateway when the object is reset.
    const state = await runInDurableObject(stub, (_instance, s) => s)
    const realFetch = globalThis.fetch
    let cut = false
    const resetting = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const req = new Request(input, init)
      if (!(await req.clone().text()).includes('paymentType=IN')) return realFetch(req)
      cut = true
      try {
        state.abort()
      } catch {
        // abort() throws at its caller: the run ends here, as a reset ends it.
      }
      throw new Error('the object was reset')
    })
    try {
      await timePasses(stub).catch(() => undefined)
    } finally {
      resetting.mockRestore()
    }
    expect(cut).toBe(true)
    expect(await status()).toBe('unknown')
    // The object, started again, has its alarm set for it (here, time passes).
    expect(await runInDurableObject(fresh(), (_instance, s) => s.storage.getAlarm())).not.toBeNull()
    await timePasses(fresh())
    expect(await status()).toBe('succeeded')
  })

  it("a run that cannot read its merchant's configuration (its store down) keeps every task and wakes again later, backing off; then runs them", async () => {
    const { stub, status } = await unknownRepeat()
    await runInDurableObject(stub, (instance) => {
      ;(instance as unknown as { fresh: () => Promise<void> }).fresh = () =>
        Promise.reject(new Error('profile store down'))
    })
    const alarmIn = async () =>
      ((await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())) ?? 0) - Date.now()
    await timePasses(stub).catch(() => undefined)
    expect(await status()).toBe('unknown')
    expect(await alarmIn()).toBeGreaterThan(20_000)
    await runDurableObjectAlarm(stub)
    // Backing off: twice as long.
    expect(await alarmIn()).toBeGreaterThan(50_000)
    expect(await status()).toBe('unknown')
    await runInDurableObject(stub, (instance) => {
      delete (instance as unknown as { fresh?: unknown }).fresh
    })
    await timePasses(stub)
    expect(await status()).toBe('succeeded')
  })
  it('a run that ran its tasks sets the alarm as the tasks left say: an object with nothing due soon is not woken every half-minute', async () => {
    const s = await createSession()
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    // Its webhook delivered, then the job that records the delivery (a second on) done.
    await timePasses(stub)
    const [next, alarm] = await eventually(async () => {
      await runDurableObjectAlarm(stub)
      return runInDurableObject(stub, async (_instance, state) => {
        const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
        return 'jobs' in tasks ? undefined : [Math.min(...Object.values(tasks)), await state.storage.getAlarm()]
      })
    })
    // Its next task (the purge of a paid session) is hours away, and so is its alarm.
    expect(next - Date.now()).toBeGreaterThan(60 * 60_000)
    expect(alarm).toBe(next)
    // A run with nothing due (the alarm fired early) sets it no sooner either.
    await runDurableObjectAlarm(stub)
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(next)
  })
})

describe('an issued invoice is asked about before its session ends unpaid', () => {
  /** A session offering an invoice (with `methods`) not issued yet, and its invoice's reference. */
  async function invoiceSession(
    methods: string[] = ['invoice'],
    over: Record<string, unknown> = {},
  ): Promise<{ s: Session; ref: string; stub: DurableObjectStub; invoiceId: string }> {
    const ref = uniqueId('new')
    const invoiceId = await sandboxInvoice('100.00')
    const s = await createSession({
      flow: undefined,
      methods,
      invoiceId,
      merchantInvoiceId: ref,
      invoiceExpirationPeriod: '24',
      ...over,
    })
    return { s, ref, invoiceId, stub: env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub }
  }

  /** An invoice session whose invoice the shopper had issued, and the page to pay it. */
  async function issuedInvoice(
    methods: string[] = ['invoice'],
    first?: (s: Session) => Promise<void>,
  ): Promise<{ s: Session; payPage: string; stub: DurableObjectStub }> {
    const { s, stub } = await invoiceSession(methods)
    await first?.(s)
    const regen = await browser<{ invoice: { transactionUrl: string } }>(s, 'POST', '/invoice/regenerate', {})
    expect(regen.status).toBe(200)
    return { s, payPage: regen.body.invoice.transactionUrl, stub }
  }

  it('a declined try on its page told after the session’s time does not end it unasked: the invoice paid after it, its notification lost, ends it paid', async () => {
    const { s, payPage, stub } = await issuedInvoice()
    // The session's time is up; its expiry has not run yet when the decline is told.
    await timeStandsStill(stub)
    await sessionTimeIsUp(stub)
    await payInvoicePage(payPage, '4000000000000002')
    const declined = await notificationSentFor(s.id)
    // Another try pays it; its notification never arrives. The decline's comes late.
    await payInvoicePage(payPage)
    expect((await deliverNotification(s.id, declined)).status).toBe(200)
    expect((await sessionState(s.id)).status).not.toBe('expired')
    await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
  })

  it.each([
    ['an invoice session', ['invoice'], undefined],
    [
      'a session that offers a card too, declined first',
      ['card', 'invoice'],
      async (s: Session) => expect((await pay(s, '4000000000000002')).body.status).toBe('declined'),
    ],
  ])(
    '%s, paid on its page, its notification lost: the session ends paid at its expiry, with one final event',
    async (_, methods, first) => {
      const { s, payPage, stub } = await issuedInvoice(methods, first)
      await payInvoicePage(payPage)
      // The gateway sent its notification; it never arrives.
      await timePasses(stub, true)
      expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
      // Once the success is delivered, every event about the order so far: one final among them.
      await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
      const finals = (await webhooksAbout(s.mtid)).map((h) => (JSON.parse(h.body) as { type: string }).type)
      expect(finals.filter((t) => /^checkout\.session\.(succeeded|failed|expired)$/.test(t))).toEqual([
        'checkout.session.succeeded',
      ])
    },
  )

  it('the shopper back from the invoice’s page, its notification not there yet: the gateway is asked, and the page says paid', async () => {
    const { s, payPage } = await issuedInvoice()
    const paid = await payInvoicePage(payPage)
    expect(paid.headers.get('Location')).toContain(`/v1/return/${s.id}`)
    const page = await call(`/v1/return/${s.id}`)
    expect(page.text).toContain('Payment successful')
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
  })

  it('an invoice being issued as the session’s time runs out: the session waits for it, lives as long as it, and its payment settles it', async () => {
    const { s, ref, stub } = await invoiceSession()
    await injectFault({ op: 'invoiceRegenerate', fault: 'timeout', field: 'merchantInvoiceId', value: ref })
    const issuing = browser(s, 'POST', '/invoice/regenerate', {})
    await new Promise((r) => setTimeout(r, 300))
    // The session's time runs out while the gateway has not answered.
    await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('open')
    expect((await issuing).status).toBe(503)
    // Its alarm asks again: the invoice is issued, and the session lives as long as it.
    await timePasses(stub)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'open', invoice: { merchantInvoiceId: ref } })
    expect(Date.parse(state.expiresAt as string)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
    const page = (state.invoice as { transactionUrl: string }).transactionUrl
    await payInvoicePage(page)
    await timePasses(stub, true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
  })

  it('the shopper’s click on "get a new invoice" after the session’s time, the first ask still unanswered: the session has not expired, and the click asks again and gets the invoice', async () => {
    const { s, ref, stub } = await invoiceSession()
    await injectFault({ op: 'invoiceRegenerate', fault: 'timeout', field: 'merchantInvoiceId', value: ref, times: 2 })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(503)
    // The session's time runs out; its alarm asks again, unanswered again.
    await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('open')
    // The shopper reads it as open with its invoice under way, not as expired.
    expect((await browser(s, 'GET', '')).body).toMatchObject({ status: 'open', method: 'invoice' })
    const again = await browser<{ invoice: { merchantInvoiceId: string } }>(s, 'POST', '/invoice/regenerate', {})
    expect(again.status).toBe(200)
    expect(again.body.invoice.merchantInvoiceId).toBe(ref)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'open', invoice: { merchantInvoiceId: ref } })
    expect(Date.parse(state.expiresAt as string)).toBeGreaterThan(Date.now() + 23 * 3_600_000)
  })

  it('an invoice asked for again after its first answer was lost, every ask refused, then paid on its page (the gateway sent it): asked about by its reference at the session’s expiry, the session ends paid, told once', async () => {
    const { s, ref, invoiceId, stub } = await invoiceSession()
    await injectFault({ op: 'invoiceRegenerate', fault: 'http500', field: 'merchantInvoiceId', value: ref })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(503)
    // The gateway made it (the same reference answers the same invoice) and sent the shopper its page.
    const page = await invoicePageFor(invoiceId, ref)
    // Asked again, the gateway refuses, every time.
    const refusing = regenerationsRefused()
    try {
      await timePasses(stub)
      // Still being issued, as far as the session knows; the merchant reads the refusal.
      expect(await sessionState(s.id)).toMatchObject({ status: 'open', lastError: { gatewayCode: '30002' } })
      // Its notification is refused: the session knows no invoice yet.
      await payInvoicePage(page)
      for (let i = 0; i < 4 && (await sessionState(s.id)).status === 'open'; i++) await timePasses(stub, true)
    } finally {
      refusing.restore()
    }
    expect(await sessionState(s.id)).toMatchObject({
      status: 'succeeded',
      method: 'invoice',
      invoice: { merchantInvoiceId: ref },
    })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('an invoice paid while its regeneration’s answer is still on its way, found paid by its reference on the shopper’s return: the answer, when it comes, changes nothing, and the success is the last event', async () => {
    const { s, ref, invoiceId } = await invoiceSession()
    // The gateway makes the invoice (and sends the shopper its page) before its answer to the
    // Worker comes: the same reference answers the same invoice.
    const page = await invoicePageFor(invoiceId, ref)
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    let asked = false
    const real = globalThis.fetch
    const holding = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      if (new URL(request.url).pathname === OPERATION_PATHS.invoiceRegenerate) {
        asked = true
        await held
      }
      return real(request)
    })
    try {
      const issuing = browser(s, 'POST', '/invoice/regenerate', {})
      await eventually(async () => (asked ? true : undefined))
      await payInvoicePage(page)
      // Back from the invoice's page: asked about by its reference, it is paid.
      expect((await call(`/v1/return/${s.id}`)).text).toContain('Payment successful')
      expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
      release()
      expect((await issuing).body).toMatchObject({ error: { code: 'session_completed' } })
    } finally {
      release()
      holding.mockRestore()
    }
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'invoice' })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    const told = (await webhooksAbout(s.mtid, 99, 500)).map((h) => (JSON.parse(h.body) as { type: string }).type)
    expect(told.at(-1)).toBe('checkout.session.succeeded')
    expect(told).not.toContain('invoice.regenerated')
  })

  it('a regeneration whose Worker went away before the answer is asked again by the alarm', async () => {
    const { s, stub } = await invoiceSession()
    await runInDurableObject(stub, async (instance, state) => {
      const cached = (instance as unknown as { session?: Record<string, unknown> }).session
      const session =
        cached ?? ((await state.storage.get<Record<string, unknown>>('session')) as Record<string, unknown>)
      session.regeneration = { status: 'processing', at: Date.now() - 60_000 }
      await state.storage.put('session', session)
      const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
      await state.storage.put('tasks', { ...tasks, regenerate: Date.now() })
    })
    await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open', invoice: { transactionUrl: expect.any(String) } })
  })

  it('with a returnUrl, the shopper back from the invoice’s page reaches it through the Worker’s return, with the session and its status', async () => {
    const returnUrl = 'https://shop.example/thanks?o=42'
    const { s } = await invoiceSession(['invoice'], { returnUrl })
    const regen = await browser<{ invoice: { transactionUrl: string } }>(s, 'POST', '/invoice/regenerate', {})
    const paid = await payInvoicePage(regen.body.invoice.transactionUrl)
    const back = new URL(paid.headers.get('Location') ?? '')
    expect(back.pathname).toBe(`/v1/return/${s.id}`)
    const onward = await call(`${back.pathname}${back.search}`, { redirect: 'manual' })
    expect(onward.status).toBe(303)
    const shop = new URL(onward.headers.get('Location') ?? '')
    expect(`${shop.origin}${shop.pathname}`).toBe('https://shop.example/thanks')
    expect(Object.fromEntries(shop.searchParams)).toEqual({ o: '42', session: s.id, status: 'succeeded' })
  })

  it('a session naming an invoice the gateway does not have: the shopper is refused, and the merchant reads why', async () => {
    const s = await createSession({
      flow: undefined,
      methods: ['invoice'],
      invoiceId: 'INV000000',
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(404)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open', lastError: { code: 'not_found' } })
  })

  it('not paid: it expires; the gateway not answering: it stays open and is asked again', async () => {
    const { s, stub } = await issuedInvoice()
    const invoiceRef = (await sessionState(s.id)).invoice as { merchantInvoiceId: string }
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: invoiceRef.merchantInvoiceId })
    await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('open')
    await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('expired')
  })

  it('a gateway that cannot say for three days of hourly asks: it ends expired all the same, and is not kept for ever', async () => {
    const { s, stub } = await issuedInvoice()
    const invoiceRef = (await sessionState(s.id)).invoice as { merchantInvoiceId: string }
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: invoiceRef.merchantInvoiceId, times: 100 })
    for (let ask = 1; ask < 72; ask++) await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('open')
    await timePasses(stub, true)
    expect((await sessionState(s.id)).status).toBe('expired')
  })
})

describe('a settled card pay keeps one answer', () => {
  it('a notification that overtakes the gateway’s own "pending" answer: the pay answers succeeded, so do its replays, and the session’s record keeps the success, and the card the answer registered', async () => {
    const s = await createSession({ createRegistration: true })
    await injectFault({ op: 'payment', fault: 'late_pending', field: 'merchantTransactionId', value: s.mtid })
    const key = uniqueId('key')
    const answer = pay(s, '4111111111111111', key)
    // While the gateway's answer is on its way, its notification arrives and is delivered.
    const note = await notificationSentFor(s.id)
    expect((await deliverNotification(s.id, note)).status).toBe(200)
    expect((await answer).body).toMatchObject({ status: 'succeeded' })
    expect((await pay(s, '4111111111111111', key)).body).toMatchObject({ status: 'succeeded' })
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded' })
    expect(state.transactionStatus).not.toBe('P')
    expect(state.resultCode).not.toBe('00002')
    expect((state.attempts as { status: string }[]).map((a) => a.status)).toEqual(['succeeded'])
    // The registration only the answer names (a notification carries none) is the session's,
    // and its payment's (opened at the success, before the answer came): a repeat's deletion
    // guard checks that card.
    expect(state.registrationId).toMatch(/^R\d+$/)
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${String(state.paymentId)}`)).body.registrationId, {
        timeout: 8_000,
      })
      .toBe(state.registrationId)
    expect(await chargesFor(s.mtid)).toBe(1)
  })
})

/**
 * A card payment that saved a card (`createRegistration`), its answer lost and its notification
 * (which names no card) delivered: the session succeeded without the card, and its first
 * `unanswered` asks for it get no answer.
 */
async function savedWithAnswerLost(unanswered = 0) {
  const s = await createSession({ recurring: 'INITIAL', createRegistration: true })
  await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: s.mtid, times: 1 })
  expect((await pay(s, '4111111111111111')).body.status).toBe('unknown')
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id))
  // The session's own inquiry (which would name the card) waits: the notification comes first.
  await timeStandsStill(stub)
  const note = await notificationSentFor(s.id)
  expect(note).not.toContain('registrationId')
  const paymentId = (JSON.parse(note) as { paymentId: string }).paymentId
  if (unanswered > 0)
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: paymentId, times: unanswered })
  expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
  return { s, stub, paymentId }
}

describe('the card a payment saved is never lost', () => {
  it('a payment settled by its notification while its answer was lost: the Worker asks the gateway for the card it saved, the session and the payment name it, registration.created tells it once, and its deletion stops repeats', async () => {
    const { s, stub } = await savedWithAnswerLost()
    const succeeded = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(succeeded[0]?.body ?? '{}')).toMatchObject({ data: { registrationId: null } })
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        expect((await sessionState(s.id)).registrationId).toMatch(/^R\d+$/)
      },
      { timeout: 10_000, interval: 200 },
    )
    const state = await sessionState(s.id)
    const registrationId = state.registrationId as string
    const paymentId = state.paymentId as string
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${paymentId}`)).body.registrationId, { timeout: 8_000 })
      .toBe(registrationId)
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'registration.created')
    expect(told.map((t) => (JSON.parse(t.body) as { data: unknown }).data)).toEqual([
      expect.objectContaining({ registrationId, sessionId: s.id, paymentId }),
    ])
    // The merchant deletes the card it was told of: a repeat of the payment no longer charges it.
    const deletion = await merchant('DELETE', `/v1/registrations/${registrationId}`, undefined, {
      'Idempotency-Key': uniqueId('d'),
    })
    expect(deletion.status).toBe(200)
    const repeatKey = uniqueId('rk')
    const again = await merchant<{ error: { code: string } }>(
      'POST',
      `/v1/payments/${paymentId}/repeat`,
      { amount: '5.00', currency: 'EUR' },
      { 'Idempotency-Key': repeatKey },
    )
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('registration_deleted')
    expect(await chargesFor(await repeatOrder(repeatKey))).toBe(0)
    await timePasses(stub)
    expect(await webhooksAbout(s.mtid, 2, 300, 'registration.created')).toHaveLength(1)
  })
  it('a repeat asked before the card the payment saved is known is refused (409 payment_state) and charges nothing; once the card is known the repeat charges it, and after the card’s deletion neither is repeated again', async () => {
    // The session's first ask for the card gets no answer: it asks again later.
    const { stub, paymentId } = await savedWithAnswerLost(1)
    await expect.poll(async () => (await merchant('GET', `/v1/payments/${paymentId}`)).status).toBe(200)
    // The card is not known yet: a repeat now would carry no card for a later deletion to stop.
    const early = uniqueId('rk')
    const refused = await repeat(paymentId, early)
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatchObject({ code: 'payment_state' })
    expect(await chargesFor(await repeatOrder(early))).toBe(0)
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        expect((await merchant('GET', `/v1/payments/${paymentId}`)).body.registrationId).toMatch(/^R\d+$/)
      },
      { timeout: 10_000, interval: 200 },
    )
    const registrationId = (await merchant('GET', `/v1/payments/${paymentId}`)).body.registrationId as string
    // Known: the repeat charges it, and the repeat's payment carries the card.
    const later = uniqueId('rk')
    const charged = await repeat(paymentId, later)
    expect(charged.status).toBe(200)
    expect(charged.body.status).toBe('succeeded')
    const repeatPaymentId = charged.body.paymentId as string
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${repeatPaymentId}`)).body.registrationId, {
        timeout: 8_000,
      })
      .toBe(registrationId)
    expect((await deleteRegistration(registrationId)).status).toBe(200)
    for (const id of [paymentId, repeatPaymentId]) {
      const key = uniqueId('rk')
      expect((await repeat(id, key)).body.error).toMatchObject({ code: 'registration_deleted' })
      expect(await chargesFor(await repeatOrder(key))).toBe(0)
    }
  })
  it('a gateway that does not say for a day: the session keeps asking (hourly, after two hours of doubling), and names the card once it does', async () => {
    // Twenty asks unanswered: more than the doubling's two hours.
    const { s, stub } = await savedWithAnswerLost(20)
    let asks = 0
    while (asks < 30 && !(await sessionState(s.id)).registrationId) {
      await timePasses(stub)
      asks += 1
    }
    expect((await sessionState(s.id)).registrationId).toMatch(/^R\d+$/)
    expect(asks).toBeGreaterThan(12)
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'registration.created')).toHaveLength(1)
  })

  it('the card an earlier attempt’s bank step named is not the session’s: the card its paying attempt saved is asked for and named', async () => {
    const s = await createSession({ recurring: 'INITIAL', createRegistration: true })
    const first = await pay(s, '4000000000003220')
    expect(first.body.status).toBe('action_required')
    const earlierCard = (await sessionState(s.id)).registrationId as string
    expect(earlierCard).toMatch(/^R\d+$/)
    // The bank's step fails: that card is never stored, and the shopper pays with another.
    await fetch(`${first.body.redirect?.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'failed' }),
      redirect: 'manual',
    })
    await deliverNotification(s.id, await notificationSentFor(s.id, 8_000, first.body.paymentId))
    expect((await sessionState(s.id)).status).toBe('declined')
    await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: s.mtid, times: 1 })
    expect((await pay(s, '4111111111111111')).body.status).toBe('unknown')
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id))
    await timeStandsStill(stub)
    // The second payment's notification (it names no card) settles it.
    const note = await vi.waitFor(
      async () => {
        const bodies = (await (await fetch(`${env.CATCHER_URL}/v1/notifications/${s.id}`)).json()) as string[]
        const second = bodies.find((b) => (JSON.parse(b) as { paymentId: string }).paymentId !== first.body.paymentId)
        if (!second) throw new Error('no notification of the second payment yet')
        return second
      },
      { timeout: 8_000, interval: 100 },
    )
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
    const paymentId = (JSON.parse(note) as { paymentId: string }).paymentId
    const stored = (await (await fetch(`${env.GATEWAY_BASE_URL}/sandbox/payments/${paymentId}`)).json()) as {
      registrationId: string
    }
    expect(stored.registrationId).toMatch(/^R\d+$/)
    expect(stored.registrationId).not.toBe(earlierCard)
    await vi.waitFor(
      async () => {
        await timePasses(stub)
        expect((await sessionState(s.id)).registrationId).toBe(stored.registrationId)
      },
      { timeout: 10_000, interval: 200 },
    )
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${paymentId}`)).body.registrationId, { timeout: 8_000 })
      .toBe(stored.registrationId)
  })
})

describe('a settled repeat keeps one answer', () => {
  it('a notification that overtakes the gateway’s own "pending" answer: the repeat answers succeeded, and so do its replays', async () => {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('rk')
    await injectFault({
      op: 'repeat',
      fault: 'late_pending',
      field: 'merchantTransactionId',
      value: await repeatOrder(key),
    })
    const answer = repeat(paymentId, key)
    // While the gateway's answer is on its way, its notification arrives and is delivered.
    const opId = env.OPERATIONS.idFromName(`repeat:${key}`).toString()
    const note = await eventually(async () => (await notificationsOfOperation(opId))[0])
    await call(`/v1/notifications/op_${opId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: note,
    })
    const res = await answer
    expect(res.body).toMatchObject({ status: 'succeeded' })
    expect(res.body.resultCode).not.toBe('00002')
    const replay = await repeat(paymentId, key)
    expect(replay.body).toMatchObject({ status: 'succeeded' })
    expect(replay.body.resultCode).not.toBe('00002')
  })
})

describe('an operation the gateway cannot settle for hours is told once and listed, and asked about until it settles', () => {
  it('a repeat still unknown after two hours of inquiries: one payment.repeat.needs_attention, listed by GET /v1/operations?needs_attention=true; the gateway back, it settles and leaves the list', async () => {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('rk')
    const order = await repeatOrder(key)
    await injectFault({ op: 'repeat', fault: 'timeout', field: 'merchantTransactionId', value: order })
    // The next 14 inquiries about it fail too: the gateway cannot tell.
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: order, times: 14 })
    const first = await repeat(paymentId, key)
    expect(first.body.status).toBe('unknown')
    for (let i = 0; i < 14; i++) await timePasses(opStub(`repeat:${key}`))
    const told = await webhooksAbout(order, 1, 10_000, 'payment.repeat.needs_attention')
    expect(told).toHaveLength(1)
    const listed = await eventually(async () => {
      const page = await merchant<{ data: OperationBody[] }>('GET', '/v1/operations?needs_attention=true')
      return page.body.data.find((o) => o.id === first.body.id)
    })
    expect(listed).toMatchObject({ status: 'unknown', needsAttention: true })
    // An hour later the gateway can say: the repeat settles, told as any is, and no longer listed.
    await timePasses(opStub(`repeat:${key}`))
    expect((await merchant<OperationBody>('GET', `/v1/operations/${first.body.id}`)).body).toMatchObject({
      status: 'succeeded',
      needsAttention: false,
    })
    expect(await webhooksAbout(order, 1, 10_000, 'payment.repeat.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(order, 2, 1_000, 'payment.repeat.needs_attention')).toHaveLength(1)
    await eventually(async () => {
      const page = await merchant<{ data: OperationBody[] }>('GET', '/v1/operations?needs_attention=true')
      return page.body.data.some((o) => o.id === first.body.id) ? undefined : true
    })
    expect(await chargesFor(order)).toBe(1)
  })

  it('a refund still unknown after six hours of inquiries: one refund.needs_attention, listed by GET /v1/payments?needs_attention=true; the gateway back, it settles, counted once, and leaves the list', async () => {
    const { paymentId } = await savedCardPayment()
    const key = uniqueId('re')
    const refundHash = (await sha256Hex(`${env.PAYMENTS.idFromName(paymentId).toString()}|refund|${key}`)).slice(0, 24)
    await injectFault({ op: 'refund', fault: 'timeout', field: 'merchantTransactionId', value: `re-${refundHash}` })
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: `re-${refundHash}`, times: 18 })
    const refund = await operate(paymentId, 'refunds', { amount: '10.00' }, key)
    expect(refund.body.operation).toMatchObject({ id: `re_${refundHash}`, status: 'unknown' })
    for (let i = 0; i < 18; i++) await timePasses(paymentStub(paymentId))
    const payment = await paymentEventually(
      paymentId,
      (p) => (p as unknown as { needsAttention: boolean }).needsAttention,
    )
    expect(payment.refunds[0]).toMatchObject({ status: 'unknown', needsAttention: true })
    const listed = await eventually(async () => {
      const page = await merchant<{ data: { id: string }[] }>('GET', '/v1/payments?needs_attention=true')
      return page.body.data.find((p) => p.id === paymentId)
    })
    expect(listed).toBeDefined()
    // An hour later the gateway can say: the refund settles, once, and the payment leaves the list.
    await timePasses(paymentStub(paymentId))
    expect(await paymentEventually(paymentId, (p) => p.refunds[0]?.status === 'succeeded')).toMatchObject({
      amountRefunded: '10.00',
      needsAttention: false,
    })
    await eventually(async () => {
      const page = await merchant<{ data: { id: string }[] }>('GET', '/v1/payments?needs_attention=true')
      return page.body.data.some((p) => p.id === paymentId) ? undefined : true
    })
    expect(await gatewayOperationsOn(paymentId)).toMatchObject({ refunds: 1 })
  })

  it('a regenerated invoice never paid ends at its expiry with one final invoice.expired', async () => {
    const invoiceId = await sandboxInvoice('12.00')
    const key = uniqueId('ik')
    const ref = uniqueId('mref')
    const res = await merchant<OperationBody>(
      'POST',
      `/v1/invoices/${invoiceId}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24' },
      { 'Idempotency-Key': key },
    )
    expect(res.body.status).toBe('succeeded')
    // Its 24 hours pass.
    await timePasses(opStub(`regenerate:${key}`))
    expect((await merchant<OperationBody>('GET', `/v1/operations/${res.body.id}`)).body.status).toBe('expired')
    const opId = res.body.id.slice(3)
    const events = await eventually(async () => {
      const hooks = (await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as { body: string }[]
      const mine = distinctEvents(hooks)
        .map((h) => JSON.parse(h.body) as { type: string; data: { idempotencyKeyHash?: string } })
        .filter((e) => e.data.idempotencyKeyHash === opId)
      return mine.some((e) => e.type === 'invoice.expired') ? mine : undefined
    })
    expect(events.filter((e) => e.type === 'invoice.expired')).toHaveLength(1)
    expect((await call(`/v1/return/${res.body.id}`)).text).toContain('Checkout expired')
  })
  it('a regenerated invoice paid whose notification never came ends paid at its expiry (the gateway is asked), never expired', async () => {
    const invoiceId = await sandboxInvoice('14.00')
    const key = uniqueId('ik')
    const ref = uniqueId('mref')
    const res = await merchant<OperationBody & { invoice: { transactionUrl: string } }>(
      'POST',
      `/v1/invoices/${invoiceId}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24' },
      { 'Idempotency-Key': key },
    )
    await payInvoicePage(res.body.invoice.transactionUrl)
    // The notification is lost (never relayed); the invoice's 24 hours pass.
    await timePasses(opStub(`regenerate:${key}`))
    const op = (await merchant<OperationBody>('GET', `/v1/operations/${res.body.id}`)).body
    expect(op.status).toBe('paid')
    expect(await paymentEventually(op.paymentId as string)).toMatchObject({
      source: 'invoice',
      merchantTransactionId: ref,
      amount: '14.00',
    })
  })
})
