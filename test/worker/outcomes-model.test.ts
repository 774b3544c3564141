/**
 * Model-based test of payment outcomes (issue "payment outcomes are never lost, forged or
 * doubled"). fast-check drives a checkout session, a repeat operation and an invoice regenerated
 * through the merchant route, through random interleavings of pays (double submits included),
 * gateway answers and faults (lost answers among them), the shopper finishing or abandoning 3-D
 * Secure or paying the invoice, notifications (right, replayed, lost, wrong amount or currency,
 * another session's), the deletion of the repeated card, returns, alarms and expiry, then lets
 * everything settle and checks:
 *
 * 1. the gateway charged  <=> the session (operation) is paid, and the payment has its record;
 * 2. nothing is paid without a charge, and nothing is charged twice;
 * 3. exactly one final event per session (operation);
 * 4. no two different events share an id;
 * 5. events arrive in causal order (change numbers 1, 2, 3..., each from the state the last left);
 * 6. once a card's deletion is asked, no charge of it reaches the gateway.
 *
 * The gateway is scripted (it cannot be made to misbehave on cue otherwise): `globalThis.fetch`
 * is replaced for this file, so the Worker's gateway calls and webhook deliveries reach it in
 * memory. Everything else is real: routes, Durable Objects, storage, alarms. A failure prints
 * fast-check's seed and path; `SEED` below replays it.
 */
import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { gatewayConfig } from '../../worker/config.ts'
import type { Env } from '../../worker/env.ts'
import { invalidateAuthToken } from '../../worker/gateway/auth-token.ts'
import { sha256Hex } from '../../worker/ids.ts'
import { call, createSession, merchant, pay, type Session } from './api.ts'
import { settles, timePasses } from './clock.ts'
import { uniqueId } from './helpers.ts'
import {
  realFetch,
  type FakePayment,
  FakeGateway,
  checkEvents,
  sessionStub,
  sessionStatus,
  IN_FLIGHT,
  hasPaymentRecord,
  type SessionCommand,
  sessionCommand,
  type RepeatCommand,
  repeatCommand,
  type InvoiceCommand,
  invoiceCommand,
} from './model.ts'

/**
 * 150 runs of each model in every `npm test` (`MODEL_RUNS=2000 npm run test:worker` for a deeper
 * search); each run starts from a new seed, printed on failure, so CI's runs add up to new
 * interleavings every time. 150 keep this file (the worker suite's longest: 250 took 52 s of a
 * CI run, 500 ran 70 s alone) from holding up the whole `.ci/run`, which must stay well under ten
 * minutes on two cores.
 */
const RUNS = Number((env as { MODEL_RUNS?: string }).MODEL_RUNS) || 150
const SESSION_RUNS = RUNS
const REPEAT_RUNS = RUNS
const INVOICE_RUNS = RUNS
/** To replay a failure, put its seed and path here: `{ seed: 123, path: '4:2' }`. */
const SEED: { seed?: number; path?: string } = {}

const gateway = new FakeGateway()

beforeAll(() => {
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    // Only the gateway and the webhook receiver are scripted.
    return request.url.startsWith(env.GATEWAY_BASE_URL) || request.url.startsWith(env.MERCHANT_WEBHOOK_URL ?? '\0')
      ? gateway.handle(request)
      : realFetch(request)
  })
})
afterAll(() => {
  vi.restoreAllMocks()
  // The scripted gateway's tokens are no gateway's: the files after this one on its runtime get
  // real ones (the keeper is told which one it must not hand out again).
  for (const service of ['transaction', 'invoice'] as const)
    invalidateAuthToken({ ...gatewayConfig(env as Env), fetch: realFetch }, service)
})

// ---- a checkout session ---------------------------------------------------------------------

async function runSession(commands: SessionCommand[]): Promise<void> {
  gateway.reset()
  const s: Session = await createSession({ merchantTransactionId: uniqueId('model'), maxAttempts: 3 })
  // Another session's genuine, paid payment: its notification must never settle this one.
  const other: FakePayment = {
    id: 'FPOTHER',
    mtid: uniqueId('other'),
    amount: '100.00',
    currency: 'EUR',
    status: 'Y',
    notificationPath: '',
  }
  const sent: string[] = []
  const mine = () => gateway.payments.filter((p) => p.mtid === s.mtid)
  const notify = (body: string) =>
    call(`/v1/notifications/${s.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })

  for (const c of commands) {
    switch (c.t) {
      case 'pay': {
        gateway.queue.push(c.b, 'approve') // a second charge, were one made, would be approved
        if (c.double === 'no') await pay(s, '4111111111111111')
        else {
          const key = uniqueId('k')
          await Promise.all([
            pay(s, '4111111111111111', key),
            pay(s, '4111111111111111', c.double === 'same-key' ? key : uniqueId('k')),
          ])
        }
        gateway.queue = []
        break
      }
      case 'bank': {
        // The shopper finishes (or not) on the bank's page; the gateway may notify at once.
        const waiting = mine().filter((p) => p.status === '3D' || p.status === 'P')
        for (const p of waiting) {
          p.status = c.ok ? 'Y' : 'N'
          if (c.notify) {
            const body = await gateway.notification(p)
            sent.push(body)
            await notify(body)
          }
        }
        break
      }
      case 'notify': {
        const p = mine().at(-1)
        if (c.kind === 'other-session') {
          await notify(await gateway.notification(other))
        } else if (c.kind === 'replay') {
          const old = sent[Math.floor(sent.length / 2)]
          if (old) await notify(old)
        } else if (p) {
          const body = await gateway.notification(
            p,
            c.kind === 'wrong-amount' ? { amount: '1.00' } : c.kind === 'wrong-currency' ? { currency: 'JPY' } : {},
          )
          if (c.kind === 'right') sent.push(body)
          const res = await notify(body)
          if (c.kind !== 'right')
            expect(res.status, `a ${c.kind} notification is refused or changes nothing`).not.toBe(500)
        }
        break
      }
      case 'return':
        await call(`/v1/return/${s.id}`)
        break
      case 'alarm':
        await timePasses(sessionStub(s.id))
        break
      case 'expire':
        await timePasses(sessionStub(s.id), true)
        break
    }
  }

  // Let everything settle: unfinished bank pages are abandoned, inquiries and alarms run, the
  // session's time runs out, and every event is delivered.
  for (const p of mine()) if (p.status === '3D' || p.status === 'P') p.status = 'N'
  for (let i = 0; i < 30 && IN_FLIGHT.includes(await sessionStatus(s.id)); i++) await timePasses(sessionStub(s.id))
  expect(IN_FLIGHT, 'the session settles').not.toContain(await sessionStatus(s.id))
  await timePasses(sessionStub(s.id), true)
  // What is left runs: an attempt not found is asked about once more before the session ends.
  await settles(sessionStub(s.id))
  const status = await sessionStatus(s.id)

  // 1, 2. charged <=> paid, never twice.
  const charges = gateway.charged(s.mtid)
  expect(charges, 'charges').toBeLessThanOrEqual(1)
  expect(status === 'succeeded', `session ${status} with ${charges} charge(s)`).toBe(charges === 1)
  const taken = mine().find((p) => p.status === 'Y')
  if (taken) expect(await hasPaymentRecord(taken.id), `payment ${taken.id} has its record`).toBe(true)
  const events = gateway.delivered.filter((e) => e.data.id === s.id)
  checkEvents(
    events,
    ['checkout.session.succeeded', 'checkout.session.failed', 'checkout.session.expired'],
    `session ${s.id}`,
  )
}

// ---- a repeat operation ----------------------------------------------------------------------

/** A first payment through the Worker that saved its card: the payment a repeat charges again. */
async function savedCardParent(): Promise<{ paymentId: string; registrationId: string }> {
  gateway.queue.push('approve')
  const s = await createSession({
    merchantTransactionId: uniqueId('parent'),
    recurring: 'INITIAL',
    createRegistration: true,
  })
  const res = await pay(s, '4111111111111111')
  gateway.queue = []
  const p = gateway.payments.find((x) => x.mtid === s.mtid)
  if (res.body.status !== 'succeeded' || !p?.registrationId || !(await hasPaymentRecord(p.id)))
    throw new Error(`no parent: ${res.text}`)
  return { paymentId: p.id, registrationId: p.registrationId }
}

async function runRepeat(commands: RepeatCommand[]): Promise<void> {
  gateway.reset()
  // With a deletion in the run, the repeated payment is a real one whose card was saved.
  const parent = commands.some((c) => c.t === 'delete') ? await savedCardParent() : undefined
  const key = uniqueId('rk')
  const stub = env.OPERATIONS.get(env.OPERATIONS.idFromName(`repeat:${key}`)) as unknown as DurableObjectStub
  const opId = env.OPERATIONS.idFromName(`repeat:${key}`).toString()
  const repeat = () =>
    merchant(
      'POST',
      `/v1/payments/${parent?.paymentId ?? 'FPPARENT01'}/repeat`,
      { amount: '5.00', currency: 'EUR' },
      { 'Idempotency-Key': key },
    )
  /** How many of this repeat's requests had reached the gateway when the card's deletion was asked. */
  let sentAtDeletion: number | undefined
  const sent: string[] = []
  // The Worker derives the repeat's reference from the key (so an inquiry can find it).
  const mtid = `rp-${(await sha256Hex(`repeat:${key}`)).slice(0, 24)}`
  const mine = () => gateway.payments.filter((p) => p.mtid === mtid)
  const notify = (body: string) =>
    call(`/v1/notifications/op_${opId}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })

  for (const c of commands) {
    switch (c.t) {
      case 'repeat': {
        gateway.queue.push(c.b, 'approve')
        if (c.concurrent) await Promise.all([repeat(), repeat()])
        else await repeat()
        gateway.queue = []
        break
      }
      case 'settle':
        for (const p of mine().filter((x) => x.status === 'P')) {
          p.status = c.ok ? 'Y' : 'N'
          if (c.notify) {
            const body = await gateway.notification(p)
            sent.push(body)
            await notify(body)
          }
        }
        break
      case 'notify': {
        const p = mine().at(-1)
        if (c.kind === 'replay' && sent[0]) await notify(sent[0])
        // Another operation's genuine payment (the gateway signs only what it has; a payment with
        // this repeat's own reference would be this repeat's).
        else if (c.kind === 'other-payment')
          await notify(
            await gateway.notification({
              id: 'FPOTHER',
              mtid: `rp-${'0'.repeat(24)}`,
              amount: '5.00',
              currency: 'EUR',
              status: 'Y',
              notificationPath: '',
            }),
          )
        else if (p && c.kind !== 'replay') {
          const body = await gateway.notification(p, c.kind === 'wrong-amount' ? { amount: '1.00' } : {})
          if (c.kind === 'right') sent.push(body)
          await notify(body)
        }
        break
      }
      case 'alarm':
        await timePasses(stub)
        break
      case 'delete':
        if (parent && sentAtDeletion === undefined) {
          sentAtDeletion = mine().length
          await merchant('DELETE', `/v1/registrations/${parent.registrationId}`, undefined, {
            'Idempotency-Key': uniqueId('del'),
          })
        }
        break
    }
  }
  if (!commands.some((c) => c.t === 'repeat')) return // nothing was asked of the gateway

  for (const p of mine()) if (p.status === 'P') p.status = 'N'
  await settles(stub)
  const charges = gateway.charged(mtid)
  expect(charges, 'charges').toBeLessThanOrEqual(1)
  const events = gateway.delivered.filter((e) => e.data.idempotencyKeyHash === opId)
  checkEvents(events, ['payment.repeat.succeeded', 'payment.repeat.declined', 'payment.repeat.failed'], `repeat ${key}`)
  const final = events.find((e) => e.type !== 'payment.repeat.pending' && e.type !== 'payment.repeat.unknown')
  expect(final?.type === 'payment.repeat.succeeded', `repeat ended ${final?.type} with ${charges} charge(s)`).toBe(
    charges === 1,
  )
  const taken = mine().find((p) => p.status === 'Y')
  if (taken) expect(await hasPaymentRecord(taken.id), `repeat payment ${taken.id} has its record`).toBe(true)
  // 6. Not one request of the deleted card reached the gateway after its deletion was asked.
  if (sentAtDeletion !== undefined)
    expect(mine().length, 'requests to the gateway after the deletion').toBe(sentAtDeletion)
}

// ---- an invoice regenerated through the merchant route --------------------------------------

async function runInvoice(commands: InvoiceCommand[]): Promise<void> {
  gateway.reset()
  const key = uniqueId('ik')
  const ref = uniqueId('minv')
  const stub = env.OPERATIONS.get(env.OPERATIONS.idFromName(`regenerate:${key}`)) as unknown as DurableObjectStub
  const opId = env.OPERATIONS.idFromName(`regenerate:${key}`).toString()
  const regenerate = () =>
    merchant(
      'POST',
      '/v1/invoices/SI-OLD/regenerate',
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24' },
      { 'Idempotency-Key': key },
    )
  const notify = (body: string) =>
    call(`/v1/notifications/op_${opId}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
  const sent: string[] = []

  for (const c of commands) {
    switch (c.t) {
      case 'regenerate':
        gateway.queue.push(c.b, 'approve')
        if (c.concurrent) await Promise.all([regenerate(), regenerate()])
        else await regenerate()
        gateway.queue = []
        break
      case 'shopper': {
        // The shopper pays (or is declined) on the invoice's page; the notification may be lost.
        const p = gateway.payInvoice(ref, c.ok)
        if (p && c.notify) {
          const body = await gateway.notification(p)
          sent.push(body)
          await notify(body)
        }
        break
      }
      case 'notify': {
        if (c.kind === 'replay' && sent[0]) await notify(sent[0])
        else if (c.kind === 'other-payment')
          await notify(
            await gateway.notification({
              id: 'FPOTHER',
              mtid: uniqueId('minv'),
              amount: '30.00',
              currency: 'EUR',
              status: 'Y',
              notificationPath: '',
            }),
          )
        else if (c.kind === 'wrong-amount') {
          const p = gateway.payments.filter((x) => x.mtid === ref).at(-1)
          if (p) expect((await notify(await gateway.notification(p, { amount: '1.00' }))).status).not.toBe(500)
        }
        break
      }
      case 'return':
        expect((await call(`/v1/return/op_${opId}`)).status).toBeLessThan(500)
        break
      case 'alarm':
        // Time passes, up to and past the invoice's expiry: the gateway then takes no more payments.
        // A regeneration whose answer never came is asked again then, and may be refused or lost.
        gateway.queue.push(c.next)
        await timePasses(stub)
        gateway.queue = []
        if (
          gateway.invoices.length > 0 &&
          (await merchant<{ status: string }>('GET', `/v1/operations/op_${opId}`)).body.status === 'expired'
        )
          for (const i of gateway.invoices) i.expired = true
        break
    }
  }
  if (!commands.some((c) => c.t === 'regenerate')) return

  // Let everything settle: the invoice's time runs out at the gateway and here.
  for (const i of gateway.invoices) i.expired = true
  await settles(stub)
  const op = (await merchant<{ status: string; paymentId?: string }>('GET', `/v1/operations/op_${opId}`)).body
  const charges = gateway.charged(ref)
  expect(charges, 'charges').toBeLessThanOrEqual(1)
  expect(op.status === 'paid', `invoice ${op.status} with ${charges} charge(s)`).toBe(charges === 1)
  const taken = gateway.payments.find((p) => p.mtid === ref && p.status === 'Y')
  if (taken) expect(await hasPaymentRecord(taken.id), `invoice payment ${taken.id} has its record`).toBe(true)
  const events = gateway.delivered.filter((e) => e.data.idempotencyKeyHash === opId)
  checkEvents(events, ['invoice.paid', 'invoice.expired', 'invoice.regenerate.failed'], `invoice ${ref}`)
}

describe('payment outcomes under random interleavings (model-based)', () => {
  it(`a checkout session: charged <=> paid, one final event, unique ids, causal order (${SESSION_RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(sessionCommand, { minLength: 1, maxLength: 10 }), runSession), {
      numRuns: SESSION_RUNS,
      ...SEED,
    })
  }, 600_000)

  it(`a repeat operation: charged <=> succeeded, one final event, unique ids, causal order, a deleted card never charged (${REPEAT_RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(repeatCommand, { minLength: 1, maxLength: 8 }), runRepeat), {
      numRuns: REPEAT_RUNS,
      ...SEED,
    })
  }, 600_000)

  it(`an invoice regenerated through the merchant route: charged <=> paid with its payment record, one final event, unique ids, causal order (${INVOICE_RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(invoiceCommand, { minLength: 1, maxLength: 8 }), runInvoice), {
      numRuns: INVOICE_RUNS,
      ...SEED,
    })
  }, 600_000)
})
