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
import { checksum } from '../../shared/gateway/checksum.ts'
import { sha256Hex } from '../../worker/ids.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { call, createSession, merchant, pay, type Session } from './api.ts'
import { settles, timePasses } from './clock.ts'
import { uniqueId } from './helpers.ts'

/** 500 runs of each model, every `npm test`; each run starts from a new seed, printed on failure. */
const SESSION_RUNS = 500
const REPEAT_RUNS = 500
const INVOICE_RUNS = 500
/** To replay a failure, put its seed and path here: `{ seed: 123, path: '4:2' }`. */
const SEED: { seed?: number; path?: string } = {}

type Behaviour = 'approve' | 'decline' | '3ds' | 'pending' | 'timeout' | 'http500' | 'lost' | 'token_refused' | 'reject'
type GatewayStatus = 'Y' | 'N' | '3D' | 'P'

interface FakePayment {
  readonly id: string
  readonly mtid: string
  readonly amount: string
  readonly currency: string
  status: GatewayStatus
  readonly notificationPath: string
  /** A first payment that saved its card (createRegistration). */
  readonly registrationId?: string
}

interface Delivered {
  readonly id: string
  readonly type: string
  readonly body: string
  readonly data: {
    id?: string
    status?: string
    previousStatus?: string
    sequence?: number
    idempotencyKeyHash?: string
  }
}

/** An invoice the gateway made (regenerated), payable on its page until it expires. */
interface FakeInvoice {
  readonly merchantInvoiceId: string
  readonly notificationPath: string
  expired: boolean
}

/** The scripted gateway and the merchant's webhook receiver, in memory. */
class FakeGateway {
  payments: FakePayment[] = []
  invoices: FakeInvoice[] = []
  /** Registrations whose deletion the gateway was asked for. */
  deletions: string[] = []
  /** What the next charges (and regenerations) do, in order; with nothing queued: approved. */
  queue: Behaviour[] = []
  delivered: Delivered[] = []
  private n = 0

  reset(): void {
    this.payments = []
    this.invoices = []
    this.deletions = []
    this.queue = []
    this.delivered = []
  }

  charged(mtid: string): number {
    return this.payments.filter((p) => p.mtid === mtid && p.status === 'Y').length
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (request.url.startsWith(env.MERCHANT_WEBHOOK_URL ?? '\0')) {
      const body = await request.text()
      const event = JSON.parse(body) as { id: string; type: string; data: Delivered['data'] }
      this.delivered.push({ id: event.id, type: event.type, body, data: event.data })
      // A copy to the catcher, which checks every event against the API document (setup.ts asks).
      await realFetch(`${env.CATCHER_URL}/webhooks-model`, { method: 'POST', body })
      return new Response('ok')
    }
    const form = Object.fromEntries(new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer())))
    if (url.pathname.endsWith('/authToken'))
      return Response.json({ result: { code: '200', description: 'ok' }, AuthToken: 'fake-token' })
    const registration = /\/paywithtoken\/([^/]+)$/.exec(url.pathname)?.[1]
    if (registration && form.paymentType === 'DL') {
      this.deletions.push(registration)
      return Response.json({
        result: { code: '00006', description: 'Cancelled' },
        registrationId: registration,
        paymentType: 'DL',
      })
    }
    if (url.pathname.endsWith('/regenerate')) return this.regenerate(form)
    const byId = /\/payments\/([^/]+)$/.exec(url.pathname)?.[1]
    if (byId && form.paymentType === 'IN') {
      const p =
        form.idType === 'MID'
          ? this.payments.filter((x) => x.mtid === byId).at(-1)
          : this.payments.find((x) => x.id === byId)
      return Response.json(p ? this.body(p) : { result: { code: '10026', description: 'Record not found' } })
    }
    if (url.pathname.endsWith('/payments') || byId) return this.charge(form)
    return new Response('no such path', { status: 404 })
  }

  private async charge(form: Record<string, string>): Promise<Response> {
    const behaviour = this.queue.shift() ?? 'approve'
    if (behaviour === 'lost') throw new TypeError('connection reset before the request was sent')
    if (behaviour === 'token_refused')
      return Response.json({ result: { code: '20001', description: 'AuthToken invalid' } })
    if (behaviour === 'reject') return Response.json({ result: { code: '30002', description: 'Invalid parameter' } })
    const status: GatewayStatus =
      behaviour === 'decline' ? 'N' : behaviour === '3ds' ? '3D' : behaviour === 'pending' ? 'P' : 'Y'
    const p: FakePayment = {
      id: `FP${String(++this.n).padStart(8, '0')}`,
      mtid: form.merchantTransactionId ?? '',
      amount: form.amount ?? '',
      currency: form.currency ?? '',
      status,
      notificationPath: new URL(form.notificationUrl ?? 'http://x/').pathname,
      ...(form.createRegistration === 'true' ? { registrationId: `RFAKE${this.n}` } : {}),
    }
    this.payments.push(p)
    // The charge is on the gateway's books; the answer may still be lost on the way back.
    if (behaviour === 'timeout') throw new DOMException('The operation timed out.', 'TimeoutError')
    if (behaviour === 'http500') return new Response('<h1>500</h1>', { status: 500 })
    return Response.json(this.body(p, status === '3D'))
  }

  /** A regeneration: the same merchantInvoiceId always answers the same invoice (asking again is safe). */
  private async regenerate(form: Record<string, string>): Promise<Response> {
    const behaviour = this.queue.shift() ?? 'approve'
    if (behaviour === 'lost') throw new TypeError('connection reset before the request was sent')
    if (behaviour === 'reject' || behaviour === 'decline')
      return Response.json({ statusInvoiceResult: { code: '30002', description: 'Invalid parameter' } })
    if (behaviour === 'token_refused')
      return Response.json({ result: { code: '20001', description: 'AuthToken invalid' } })
    const ref = form.merchantInvoiceId ?? ''
    if (!this.invoices.some((i) => i.merchantInvoiceId === ref))
      this.invoices.push({
        merchantInvoiceId: ref,
        notificationPath: new URL(form.notificationUrl ?? 'http://x/').pathname,
        expired: false,
      })
    if (behaviour === 'timeout') throw new DOMException('The operation timed out.', 'TimeoutError')
    if (behaviour === 'http500') return new Response('<h1>500</h1>', { status: 500 })
    return Response.json({
      statusInvoiceResult: { code: '00013', description: 'Invoice regenerated' },
      invoiceDetails: {
        amount: '30.00',
        currency: 'EUR',
        merchantInvoiceId: ref,
        systemInvoiceId: `SI-${ref}`,
        invoiceExpirationPeriod: '24',
        transactionUrl: `https://pay.example/invoice/${ref}`,
      },
    })
  }

  /** The shopper tries to pay an invoice on its page: a payment the gateway records (once paid, no more). */
  payInvoice(ref: string, ok: boolean): FakePayment | undefined {
    const invoice = this.invoices.find((i) => i.merchantInvoiceId === ref)
    if (!invoice || invoice.expired || this.charged(ref) > 0) return undefined
    const p: FakePayment = {
      id: `FP${String(++this.n).padStart(8, '0')}`,
      mtid: ref,
      amount: '30.00',
      currency: 'EUR',
      status: ok ? 'Y' : 'N',
      notificationPath: invoice.notificationPath,
    }
    this.payments.push(p)
    return p
  }

  body(p: FakePayment, withRedirect = false): Record<string, unknown> {
    const code = { Y: '00001', N: '10001', '3D': '00003', P: '00002' }[p.status]
    return {
      paymentId: p.id,
      merchantTransactionId: p.mtid,
      amount: p.amount,
      currency: p.currency,
      transactionStatus: p.status,
      ...(p.registrationId ? { registrationId: p.registrationId } : {}),
      result: { code, description: 'scripted' },
      ...(withRedirect
        ? {
            redirect: { url: `https://acs.example/${p.id}`, method: 'POST', parameters: [{ name: 'MD', value: p.id }] },
          }
        : {}),
    }
  }

  /** The gateway's signed notification of `p` as it stands, optionally tampered after signing. */
  async notification(p: FakePayment, over: Record<string, string> = {}): Promise<string> {
    const sum = await checksum('notification', {
      paymentId: p.id,
      merchantTransactionId: p.mtid,
      amount: p.amount,
      transactionStatus: p.status,
      secureKey: SANDBOX.secureKey,
    })
    return JSON.stringify({
      paymentId: p.id,
      merchantTransactionId: p.mtid,
      amount: p.amount,
      currency: p.currency,
      status: p.status,
      transactionStatus: p.status,
      checksum: sum.ok ? sum.value : '',
      result: { code: '00001' },
      ...over,
    })
  }
}

const gateway = new FakeGateway()

const realFetch = globalThis.fetch

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
})

const sessionStub = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id)) as unknown as DurableObjectStub
const sessionStatus = async (id: string): Promise<string> =>
  (await merchant<{ status: string }>('GET', `/v1/sessions/${id}`)).body.status
const IN_FLIGHT = ['processing', 'action_required', 'pending', 'unknown']

/** Whether the Worker has the record of a payment (it follows the success through the outbox). */
async function hasPaymentRecord(paymentId: string, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  do {
    if ((await merchant('GET', `/v1/payments/${paymentId}`)).status === 200) return true
    await new Promise((r) => setTimeout(r, 25))
  } while (Date.now() < deadline)
  return false
}

// ---- the invariants -------------------------------------------------------------------------

function checkEvents(events: Delivered[], finalTypes: readonly string[], label: string): void {
  // 4. one id, one event: a redelivery carries the same body; different changes, different ids.
  const byId = new Map<string, string>()
  for (const e of events) {
    const seen = byId.get(e.id)
    if (seen !== undefined) expect(e.body, `${label}: two events with id ${e.id}`).toBe(seen)
    byId.set(e.id, e.body)
  }
  const distinct = [...new Map(events.map((e) => [e.id, e])).values()]
  // 3. exactly one final event.
  expect(
    distinct.filter((e) => finalTypes.includes(e.type)).map((e) => e.type),
    `${label}: final events`,
  ).toHaveLength(1)
  // 5. causal order: change numbers 1, 2, 3... and each change starts where the last ended.
  expect(
    distinct.map((e) => e.data.sequence),
    `${label}: sequence`,
  ).toEqual(distinct.map((_, i) => i + 1))
  for (let i = 1; i < distinct.length; i++)
    expect(distinct[i]?.data.previousStatus, `${label}: event ${i + 1} follows ${distinct[i - 1]?.type}`).toBe(
      distinct[i - 1]?.data.status,
    )
}

// ---- a checkout session ---------------------------------------------------------------------

const behaviour = fc.constantFrom<Behaviour>(
  'approve',
  'decline',
  '3ds',
  'pending',
  'timeout',
  'http500',
  'lost',
  'token_refused',
  'reject',
)

type SessionCommand =
  | { t: 'pay'; b: Behaviour; double: 'no' | 'same-key' | 'other-key' }
  | { t: 'bank'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'right' | 'replay' | 'wrong-amount' | 'wrong-currency' | 'other-session' }
  | { t: 'return' }
  | { t: 'alarm' }
  | { t: 'expire' }

const sessionCommand: fc.Arbitrary<SessionCommand> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('pay' as const),
      b: behaviour,
      double: fc.constantFrom('no' as const, 'same-key' as const, 'other-key' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('bank' as const), ok: fc.boolean(), notify: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('notify' as const),
      kind: fc.constantFrom(
        'right' as const,
        'replay' as const,
        'wrong-amount' as const,
        'wrong-currency' as const,
        'other-session' as const,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'return' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'alarm' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'expire' as const }) },
)

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
  await timePasses(sessionStub(s.id))
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

type RepeatCommand =
  | { t: 'repeat'; b: Behaviour; concurrent: boolean }
  | { t: 'settle'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'right' | 'replay' | 'wrong-amount' | 'other-payment' }
  | { t: 'alarm' }
  | { t: 'delete' }

const repeatCommand: fc.Arbitrary<RepeatCommand> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('repeat' as const), b: behaviour, concurrent: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('settle' as const), ok: fc.boolean(), notify: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('notify' as const),
      kind: fc.constantFrom('right' as const, 'replay' as const, 'wrong-amount' as const, 'other-payment' as const),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ t: 'alarm' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'delete' as const }) },
)

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

type InvoiceCommand =
  | { t: 'regenerate'; b: Behaviour; concurrent: boolean }
  | { t: 'shopper'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'replay' | 'wrong-amount' | 'other-payment' }
  | { t: 'return' }
  | { t: 'alarm' }

const invoiceCommand: fc.Arbitrary<InvoiceCommand> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('regenerate' as const),
      b: fc.constantFrom<Behaviour>('approve', 'timeout', 'http500', 'lost', 'reject', 'token_refused'),
      concurrent: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('shopper' as const), ok: fc.boolean(), notify: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('notify' as const),
      kind: fc.constantFrom('replay' as const, 'wrong-amount' as const, 'other-payment' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'return' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'alarm' as const }) },
)

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
        await timePasses(stub)
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
