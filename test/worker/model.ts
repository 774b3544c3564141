/**
 * The model of the model-based test (outcomes-model.test.ts): the scripted gateway and merchant
 * webhook receiver, in memory; the commands a run is made of; what a run may ask the Worker; and
 * the invariants every run's events must keep.
 */
import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { expect } from 'vitest'
import { checksum } from '../../shared/gateway/checksum.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { merchant } from './api.ts'

/** The runtime's own fetch, taken before the test replaces it (everything not scripted goes there). */
export const realFetch = globalThis.fetch

export type Behaviour =
  'approve' | 'decline' | '3ds' | 'pending' | 'timeout' | 'http500' | 'lost' | 'token_refused' | 'reject'
export type GatewayStatus = 'Y' | 'N' | '3D' | 'P'

export interface FakePayment {
  readonly id: string
  readonly mtid: string
  readonly amount: string
  readonly currency: string
  status: GatewayStatus
  readonly notificationPath: string
  /** A first payment that saved its card (createRegistration). */
  readonly registrationId?: string
}

export interface Delivered {
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
export interface FakeInvoice {
  readonly merchantInvoiceId: string
  readonly notificationPath: string
  expired: boolean
}

/** The scripted gateway and the merchant's webhook receiver, in memory. */
export class FakeGateway {
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

// ---- the invariants -------------------------------------------------------------------------

export function checkEvents(events: Delivered[], finalTypes: readonly string[], label: string): void {
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

// ---- what a run asks the Worker, and its commands ------------------------------------------

export const sessionStub = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id)) as unknown as DurableObjectStub
export const sessionStatus = async (id: string): Promise<string> =>
  (await merchant<{ status: string }>('GET', `/v1/sessions/${id}`)).body.status
export const IN_FLIGHT = ['processing', 'action_required', 'pending', 'unknown']

/** Whether the Worker has the record of a payment (it follows the success through the outbox). */
export async function hasPaymentRecord(paymentId: string, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  do {
    if ((await merchant('GET', `/v1/payments/${paymentId}`)).status === 200) return true
    await new Promise((r) => setTimeout(r, 25))
  } while (Date.now() < deadline)
  return false
}

export const behaviour = fc.constantFrom<Behaviour>(
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

export type SessionCommand =
  | { t: 'pay'; b: Behaviour; double: 'no' | 'same-key' | 'other-key' }
  | { t: 'bank'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'right' | 'replay' | 'wrong-amount' | 'wrong-currency' | 'other-session' }
  | { t: 'return' }
  | { t: 'alarm' }
  | { t: 'expire' }

export const sessionCommand: fc.Arbitrary<SessionCommand> = fc.oneof(
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

export type RepeatCommand =
  | { t: 'repeat'; b: Behaviour; concurrent: boolean }
  | { t: 'settle'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'right' | 'replay' | 'wrong-amount' | 'other-payment' }
  | { t: 'alarm' }
  | { t: 'delete' }

export const repeatCommand: fc.Arbitrary<RepeatCommand> = fc.oneof(
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

export type InvoiceCommand =
  | { t: 'regenerate'; b: Behaviour; concurrent: boolean }
  | { t: 'shopper'; ok: boolean; notify: boolean }
  | { t: 'notify'; kind: 'replay' | 'wrong-amount' | 'other-payment' }
  | { t: 'return' }
  /** Time passes; a regeneration asked again meanwhile meets `next` (then approval). */
  | { t: 'alarm'; next: Behaviour }

export const invoiceCommand: fc.Arbitrary<InvoiceCommand> = fc.oneof(
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
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('alarm' as const),
      next: fc.constantFrom<Behaviour>('approve', 'reject', 'token_refused', 'lost', 'http500'),
    }),
  },
)
