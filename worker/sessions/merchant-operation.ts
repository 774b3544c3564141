/**
 * @module
 * A merchant server call that must happen once: a repeat by payment id, or an invoice
 * regeneration. One object per `kind:Idempotency-Key` (SECURITY.md R13): a reused key replays the
 * stored answer, a reused key with other parameters is refused, and a call whose answer never came
 * is settled from the alarm (a repeat by status inquiry, a regeneration by re-asking for the same
 * merchantInvoiceId, which creates no charge).
 *
 * Like a checkout session, the operation has one record in memory and on disk, and every change
 * of its status goes through `change`, which writes the record and the merchant event of that
 * change in one batch: the answer, a notification and an inquiry racing each other produce one
 * event per change, never two.
 */
import type { InvoiceResponse, Notification, PaymentResponse } from '../../shared/types.ts'
import { gatewayClient } from '../config.ts'
import { settlementOf, type Outcome, type Settlement } from '../gateway/outcome.ts'
import { log } from '../log.ts'
import type { NotificationResult } from './checkout-session.ts'
import { done, fail, type Reply } from './reply.ts'
import { paymentOfRepeat } from '../payments/opening.ts'
import { TaskedObject } from './tasked-object.ts'
import type { EventType } from '../webhooks/events.ts'
import { callbackUrl, numberVar } from '../env-vars.ts'

export interface RepeatParams {
  readonly kind: 'repeat'
  readonly paymentId: string
  readonly amount: string
  readonly currency: string
  readonly paymentType: 'DB' | 'PA'
  /** Generated from the key, so a timed-out repeat can be found by inquiry (idType=MID). */
  readonly merchantTransactionId: string
}

export interface RegenerateParams {
  readonly kind: 'regenerate'
  readonly invoiceId: string
  readonly merchantInvoiceId: string
  readonly invoiceExpirationPeriod: string
  readonly merchantRedirectUrl: string
}

export type OperationParams = RepeatParams | RegenerateParams

/**
 * `succeeded` is the repeat charged or the invoice regenerated; a regenerated invoice then ends
 * `paid` by its notification (`declined` is a try on the invoice's page that the shopper may follow
 * with another).
 */
export type OpStatus = 'processing' | 'pending' | 'unknown' | 'succeeded' | 'declined' | 'failed' | 'paid'

type Transitions = Readonly<Record<OpStatus, readonly OpStatus[]>>

/**
 * One table per kind. A repeat is one charge: once charged or declined it never changes again (a
 * signed decline naming a charged repeat is a duplicate, not a second final event). A regenerated
 * invoice can be tried again on its page after a decline, so `declined` still leads to `paid`:
 * money taken always reaches the merchant.
 */
const OP_TRANSITIONS: Readonly<Record<OperationParams['kind'], Transitions>> = {
  repeat: {
    processing: ['pending', 'unknown', 'succeeded', 'declined', 'failed'],
    unknown: ['pending', 'succeeded', 'declined', 'failed'],
    pending: ['succeeded', 'declined'],
    succeeded: [],
    declined: [],
    failed: [],
    paid: [],
  },
  regenerate: {
    processing: ['unknown', 'succeeded', 'failed'],
    unknown: ['succeeded', 'failed'],
    pending: [],
    succeeded: ['paid', 'declined'],
    declined: ['paid'],
    failed: [],
    paid: [],
  },
}

/** Where a notification's verdict moves each kind (a regenerated invoice has no pending step). */
const NOTIFIED_STATUS: Readonly<Record<OperationParams['kind'], Readonly<Record<Settlement, OpStatus | undefined>>>> = {
  repeat: { charged: 'succeeded', not_charged: 'declined', pending: 'pending' },
  regenerate: { charged: 'paid', not_charged: 'declined', pending: undefined },
}

const canMove = (op: OperationRecord, to: OpStatus): boolean => op.status !== to && OP_TRANSITIONS[op.params.kind][op.status].includes(to)

/** The merchant event for entering a status; the ones marked final end the operation. */
function eventType(kind: OperationParams['kind'], to: OpStatus): EventType {
  const type = kind === 'repeat' ? `payment.repeat.${to}` : to === 'paid' || to === 'declined' ? `invoice.${to}` : `invoice.regenerate.${to}`
  // Only reachable changes make events; every one of them is in the catalogue (events.ts).
  return type as EventType
}

interface OperationRecord {
  readonly fingerprint: string
  readonly params: OperationParams
  readonly createdAt: number
  status: OpStatus
  seq: number
  reply?: Reply
  result?: Record<string, unknown>
  /** What the gateway's answers named: the repeat's payment id, the regenerated invoice. */
  paymentId?: string
  invoice?: { merchantInvoiceId: string; amount: string; currency: string }
  tries: number
  resent: boolean
}

const RETENTION_MS = 7 * 24 * 60 * 60_000
const MAX_TRIES = 12

export class MerchantOperation extends TaskedObject {
  private op?: OperationRecord

  private async load(): Promise<OperationRecord | undefined> {
    this.op ??= await this.ctx.storage.get<OperationRecord>('op')
    return this.op
  }

  private async save(op: OperationRecord): Promise<void> {
    this.op = op
    await this.ctx.storage.put('op', op)
  }

  /** Moves the operation and writes the event of the change with it; anything else just saves. */
  private async change(op: OperationRecord, to: OpStatus): Promise<boolean> {
    const from = op.status
    if (!canMove(op, to)) {
      await this.save(op)
      return false
    }
    op.status = to
    op.seq += 1
    this.op = op
    const data = { idempotencyKeyHash: this.ctx.id.toString(), ...this.body(op), previousStatus: from, sequence: op.seq }
    // A repeat that took money opens its payment's record (refunds of it), like a paid session.
    const p = op.params
    const paymentId = typeof op.result?.paymentId === 'string' ? op.result.paymentId : op.paymentId
    const jobs = p.kind === 'repeat' && to === 'succeeded' && paymentId ? paymentOfRepeat({ paymentId, merchantTransactionId: p.merchantTransactionId, amount: p.amount, currency: p.currency, paymentType: p.paymentType }) : []
    await this.commit(this.ctx.id.toString(), op.seq, { op }, [{ type: eventType(op.params.kind, to), data }], jobs)
    if (to !== 'unknown' && to !== 'pending') await this.cancel('settle')
    return true
  }

  async run(params: OperationParams, fingerprint: string): Promise<Reply> {
    const existing = await this.load()
    if (existing) {
      if (existing.fingerprint !== fingerprint) return fail('idempotency_mismatch', 'This Idempotency-Key was used with different parameters.')
      if (!existing.reply) return fail('idempotency_in_progress', 'A request with this Idempotency-Key is in progress.')
      return { ...existing.reply, replayed: true }
    }
    const op: OperationRecord = { fingerprint, params, createdAt: Date.now(), status: 'processing', seq: 0, tries: 0, resent: false }
    // Written before the gateway call: a concurrent request with this key now sees "in progress".
    await this.save(op)
    await this.schedule('purge', op.createdAt + RETENTION_MS)
    await this.schedule('settle', Date.now() + numberVar(this.env.GATEWAY_TIMEOUT_MS, 15_000) + 15_000)
    await this.call(op)
    op.reply = op.status === 'failed' ? this.failure(op) : done(this.body(op))
    await this.save(op)
    return op.reply
  }

  private failure(op: OperationRecord): Reply {
    const code = typeof op.result?.resultCode === 'string' ? op.result.resultCode : undefined
    if (code === '10026') return fail('not_found', 'The gateway has no such payment or invoice.')
    if (op.result?.unsent === 'unreachable') return fail('gateway_unavailable', 'The payment service cannot be reached. Nothing was sent.')
    if (op.result?.unsent === 'token_refused') return fail('gateway_auth_failed', 'The payment service refused our credentials (AuthToken). Nothing was sent.')
    return fail('gateway_rejected', `The gateway refused the request${code ? ` (${code}: ${String(op.result?.resultDescription ?? '')})` : ''}.`)
  }

  private body(op: OperationRecord): Record<string, unknown> {
    return { status: op.status, ...(op.params.kind === 'repeat' ? { merchantTransactionId: op.params.merchantTransactionId } : {}), ...op.result }
  }

  private notificationUrl(): string {
    return callbackUrl(this.env, 'notifications', `op_${this.ctx.id.toString()}`)
  }

  private async call(op: OperationRecord): Promise<void> {
    const client = gatewayClient(this.env)
    const p = op.params
    if (p.kind === 'repeat') {
      const outcome = await client.repeat(p.paymentId, {
        amount: p.amount,
        currency: p.currency,
        paymentType: p.paymentType,
        merchantTransactionId: p.merchantTransactionId,
        notificationUrl: this.notificationUrl(),
      })
      await this.absorbPayment(op, outcome, false)
    } else {
      const outcome = await client.regenerateInvoice({
        invoiceId: p.invoiceId,
        merchantInvoiceId: p.merchantInvoiceId,
        invoiceExpirationPeriod: p.invoiceExpirationPeriod,
        merchantRedirectUrl: p.merchantRedirectUrl,
        notificationUrl: this.notificationUrl(),
      })
      await this.absorbInvoice(op, outcome)
    }
  }

  private async absorbPayment(op: OperationRecord, outcome: Outcome<PaymentResponse>, fromInquiry: boolean): Promise<void> {
    if (op.params.kind !== 'repeat') return
    const p = op.params
    if ('response' in outcome && outcome.response) {
      const r = outcome.response
      // An answer about another order or sum is not this repeat's (R27).
      if ((r.merchantTransactionId && r.merchantTransactionId !== p.merchantTransactionId) || (r.amount && r.amount !== p.amount) || (r.currency && r.currency !== p.currency)) {
        log.error('operation_answer_mismatch', { paymentId: r.paymentId })
        return this.keepAsking(op)
      }
      if (r.paymentId && (outcome.kind === 'succeeded' || outcome.kind === 'declined' || outcome.kind === 'pending')) op.paymentId ??= r.paymentId
    }
    switch (outcome.kind) {
      case 'succeeded':
      case 'declined':
      case 'pending':
        op.result = { paymentId: outcome.response.paymentId ?? op.paymentId ?? null, resultCode: outcome.code, resultDescription: outcome.description }
        await this.change(op, outcome.kind)
        break
      case 'unknown':
        await this.change(op, 'unknown')
        break
      case 'not_found':
        // From an inquiry: the repeat never reached the gateway (still unknown until re-sent).
        // From the repeat itself: the payment to repeat does not exist.
        if (!fromInquiry) op.result = { resultCode: outcome.code, resultDescription: outcome.description }
        await this.change(op, fromInquiry ? 'unknown' : 'failed')
        break
      case 'unsent':
        op.result = { unsent: outcome.reason }
        await this.change(op, op.status === 'processing' ? 'failed' : op.status)
        break
      default:
        op.result = 'code' in outcome ? { resultCode: outcome.code, resultDescription: outcome.description } : { fields: 'fields' in outcome ? outcome.fields : [] }
        await this.change(op, op.status === 'processing' ? 'failed' : op.status)
    }
    await this.keepAsking(op)
  }

  private async absorbInvoice(op: OperationRecord, outcome: Outcome<InvoiceResponse>): Promise<void> {
    if (outcome.kind === 'succeeded') {
      const r = outcome.response
      op.invoice = { merchantInvoiceId: r.merchantInvoiceId ?? (op.params as RegenerateParams).merchantInvoiceId, amount: r.amount ?? '', currency: r.currency ?? '' }
      op.result = { invoice: r, resultCode: outcome.code }
      await this.change(op, 'succeeded')
    } else if (outcome.kind === 'unknown') {
      await this.change(op, 'unknown')
    } else {
      op.result = 'code' in outcome ? { resultCode: outcome.code, resultDescription: outcome.description } : outcome.kind === 'unsent' ? { unsent: outcome.reason } : {}
      await this.change(op, 'failed')
    }
    await this.keepAsking(op)
  }

  /** While the outcome is open, ask again later, backing off. */
  private async keepAsking(op: OperationRecord): Promise<void> {
    if (op.status !== 'unknown' && op.status !== 'pending') return
    const base = numberVar(this.env.INQUIRY_BASE_MS, 2_000)
    if (op.tries < MAX_TRIES) await this.schedule('settle', Date.now() + Math.min(3_600_000, base * 2 ** op.tries))
  }

  protected async runTask(name: string): Promise<void> {
    const op = await this.load()
    if (name === 'purge') {
      // An answer still awaited keeps the record (its charge may still be settled by inquiry).
      if (op && (op.status === 'processing' || op.status === 'unknown' || op.status === 'pending')) return this.schedule('purge', Date.now() + 24 * 60 * 60_000)
      await this.ctx.storage.deleteAll()
      this.op = undefined
      return
    }
    if (name !== 'settle' || !op) return
    // The Worker went away during the call: unknown until asked.
    if (op.status === 'processing') await this.change(op, 'unknown')
    if (op.status !== 'unknown' && op.status !== 'pending') return
    op.tries += 1
    const p = op.params
    if (p.kind === 'repeat') {
      const outcome = op.paymentId ? await gatewayClient(this.env).inquiry(op.paymentId, 'PID') : await gatewayClient(this.env).inquiry(p.merchantTransactionId, 'MID')
      log.info('operation_inquiry', { outcome: outcome.kind, tries: op.tries })
      if (outcome.kind === 'not_found' && !op.resent && op.status === 'unknown') {
        // The gateway says it has no such transaction: the one re-send, with the same reference
        // (a late copy of the first would be refused by the gateway as a duplicate order).
        op.resent = true
        await this.save(op)
        await this.call(op)
        return
      }
      await this.absorbPayment(op, outcome, true)
    } else {
      // Regeneration creates no charge; asking again for the same merchantInvoiceId is safe.
      await this.call(op)
    }
  }

  /**
   * A verified gateway notification. It settles this operation only if it names the payment the
   * gateway gave the repeat (or, before any answer, its reference, amount and currency), or the
   * regenerated invoice's reference, amount and currency; anything else is refused.
   */
  async settleFromNotification(n: Notification): Promise<NotificationResult> {
    const op = await this.load()
    if (!op) return { kind: 'refused', reason: 'no_operation' }
    const p = op.params
    let reason: string | undefined
    if (p.kind === 'repeat') {
      if (n.merchantTransactionId !== p.merchantTransactionId || n.amount !== p.amount || n.currency !== p.currency) reason = 'order'
      else if (op.paymentId ? n.paymentId !== op.paymentId : op.status !== 'processing' && op.status !== 'unknown') reason = 'payment'
    } else if (!op.invoice || n.merchantTransactionId !== op.invoice.merchantInvoiceId || n.amount !== op.invoice.amount || n.currency !== op.invoice.currency) {
      reason = 'invoice'
    }
    if (reason) {
      log.warn('notification_refused', { operation: this.ctx.id.toString(), paymentId: n.paymentId, reason })
      return { kind: 'refused', reason }
    }
    const settled = settlementOf(n.transactionStatus)
    const to: OpStatus | undefined = settled === undefined ? undefined : NOTIFIED_STATUS[p.kind][settled]
    if (!to || !canMove(op, to)) return { kind: 'duplicate', status: op.status }
    if (p.kind === 'repeat') {
      op.paymentId ??= n.paymentId
      op.result = { ...op.result, paymentId: n.paymentId, ...(n.resultCode ? { resultCode: n.resultCode, resultDescription: n.resultDescription ?? '' } : {}) }
    } else {
      op.result = { ...op.result, paymentId: n.paymentId }
    }
    await this.change(op, to)
    await this.keepAsking(op)
    return { kind: 'applied', status: op.status }
  }

  /** The shopper's return from an invoice regenerated through the merchant route. */
  async status(): Promise<OpStatus | undefined> {
    return (await this.load())?.status
  }
}
