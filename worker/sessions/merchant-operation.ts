/**
 * @module
 * A merchant server call that must happen once: a repeat by payment id, or an invoice
 * regeneration. One object per `kind:Idempotency-Key` (SECURITY.md R13): a reused key replays the
 * stored answer, a reused key with other parameters is refused, and a call whose answer never came
 * is settled from the alarm (a repeat by status inquiry, a regeneration by re-asking for the same
 * merchantInvoiceId, which creates no charge).
 */
import type { InvoiceResponse, PaymentResponse } from '../../shared/types.ts'
import { gatewayClient } from '../config.ts'
import type { Outcome } from '../gateway/outcome.ts'
import { log } from '../log.ts'
import { fail, type Reply } from './reply.ts'
import { TaskedObject } from './tasked-object.ts'

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

type OpStatus = 'processing' | 'succeeded' | 'declined' | 'pending' | 'unknown' | 'failed'

interface OperationRecord {
  readonly fingerprint: string
  readonly params: OperationParams
  readonly createdAt: number
  status: OpStatus
  reply?: Reply
  result?: Record<string, unknown>
  tries: number
  resent: boolean
}

const RETENTION_MS = 7 * 24 * 60 * 60_000
const MAX_TRIES = 12

export class MerchantOperation extends TaskedObject {
  async run(params: OperationParams, fingerprint: string): Promise<Reply> {
    const existing = await this.ctx.storage.get<OperationRecord>('op')
    if (existing) {
      if (existing.fingerprint !== fingerprint) return fail('idempotency_mismatch', 'This Idempotency-Key was used with different parameters.')
      if (!existing.reply) return fail('idempotency_in_progress', 'A request with this Idempotency-Key is in progress.')
      return { ...existing.reply, replayed: true }
    }
    const op: OperationRecord = { fingerprint, params, createdAt: Date.now(), status: 'processing', tries: 0, resent: false }
    // Written before the gateway call: a concurrent request with this key now sees "in progress".
    await this.ctx.storage.put('op', op)
    await this.schedule('purge', op.createdAt + RETENTION_MS)
    await this.schedule('settle', Date.now() + (Number(this.env.GATEWAY_TIMEOUT_MS ?? '') || 15_000) + 15_000)
    await this.call(op)
    op.reply =
      op.status === 'failed'
        ? op.result?.resultCode === '10026'
          ? fail('not_found', 'The gateway has no such payment or invoice.')
          : fail('gateway_error', 'The gateway refused the request.')
        : { status: 200, body: this.body(op) }
    await this.ctx.storage.put('op', op)
    if (op.status !== 'unknown' && op.status !== 'pending') await this.cancel('settle')
    return op.reply
  }

  private body(op: OperationRecord): Record<string, unknown> {
    return { status: op.status, ...(op.params.kind === 'repeat' ? { merchantTransactionId: op.params.merchantTransactionId } : {}), ...op.result }
  }

  private async call(op: OperationRecord): Promise<void> {
    const client = gatewayClient(this.env)
    const base = this.env.PUBLIC_BASE_URL.replace(/\/$/, '')
    const p = op.params
    if (p.kind === 'repeat') {
      const outcome = await client.repeat(p.paymentId, {
        amount: p.amount,
        currency: p.currency,
        paymentType: p.paymentType,
        merchantTransactionId: p.merchantTransactionId,
        notificationUrl: `${base}/v1/notifications/op_${this.ctx.id.toString()}`,
      })
      await this.absorbPayment(op, outcome, false)
    } else {
      const outcome = await client.regenerateInvoice({
        invoiceId: p.invoiceId,
        merchantInvoiceId: p.merchantInvoiceId,
        invoiceExpirationPeriod: p.invoiceExpirationPeriod,
        merchantRedirectUrl: p.merchantRedirectUrl,
      })
      await this.absorbInvoice(op, outcome)
    }
  }

  private async absorbPayment(op: OperationRecord, outcome: Outcome<PaymentResponse>, fromInquiry: boolean): Promise<void> {
    const before = op.status
    switch (outcome.kind) {
      case 'succeeded':
      case 'declined':
      case 'pending':
        op.status = outcome.kind
        op.result = { paymentId: outcome.response.paymentId ?? null, resultCode: outcome.code, resultDescription: outcome.description }
        break
      case 'unknown':
        op.status = 'unknown'
        break
      case 'not_found':
        // From an inquiry: the repeat never reached the gateway (still unknown until re-sent).
        // From the repeat itself: the payment to repeat does not exist.
        op.status = fromInquiry ? 'unknown' : 'failed'
        if (!fromInquiry) op.result = { resultCode: outcome.code, resultDescription: outcome.description }
        break
      default:
        op.status = before === 'processing' ? 'failed' : before
        op.result = 'code' in outcome ? { resultCode: outcome.code, resultDescription: outcome.description } : { fields: 'fields' in outcome ? outcome.fields : [] }
    }
    await this.afterChange(op, before)
  }

  private async absorbInvoice(op: OperationRecord, outcome: Outcome<InvoiceResponse>): Promise<void> {
    const before = op.status
    if (outcome.kind === 'succeeded') {
      op.status = 'succeeded'
      op.result = { invoice: outcome.response, resultCode: outcome.code }
    } else if (outcome.kind === 'unknown') {
      op.status = 'unknown'
    } else {
      op.status = before === 'processing' || before === 'unknown' ? 'failed' : before
      op.result = 'code' in outcome ? { resultCode: outcome.code, resultDescription: outcome.description } : {}
    }
    await this.afterChange(op, before)
  }

  private async afterChange(op: OperationRecord, before: OpStatus): Promise<void> {
    await this.ctx.storage.put('op', op)
    if (op.status === 'unknown' || op.status === 'pending') {
      const base = Number(this.env.INQUIRY_BASE_MS ?? '') || 2_000
      if (op.tries < MAX_TRIES) await this.schedule('settle', Date.now() + Math.min(3_600_000, base * 2 ** op.tries))
    } else {
      await this.cancel('settle')
    }
    if (before !== op.status && (op.status === 'succeeded' || op.status === 'declined' || op.status === 'failed')) {
      const type = op.params.kind === 'repeat' ? `payment.repeat.${op.status}` : `invoice.regenerate.${op.status}`
      await this.enqueueWebhook(type, { idempotencyKeyHash: this.ctx.id.toString(), ...this.body(op) })
    }
  }

  protected async runTask(name: string): Promise<void> {
    if (name === 'purge') {
      await this.ctx.storage.deleteAll()
      return
    }
    const op = await this.ctx.storage.get<OperationRecord>('op')
    if (name !== 'settle' || !op) return
    if (op.status === 'processing') {
      // The Worker went away during the call: unknown until asked.
      op.status = 'unknown'
    }
    if (op.status !== 'unknown' && op.status !== 'pending') return
    op.tries += 1
    const p = op.params
    if (p.kind === 'repeat') {
      const outcome = await gatewayClient(this.env).inquiry(p.merchantTransactionId, 'MID')
      log.info('operation_inquiry', { outcome: outcome.kind, tries: op.tries })
      if (outcome.kind === 'not_found' && !op.resent) {
        // The gateway has no such transaction: the one retry, with the same merchantTransactionId.
        op.resent = true
        await this.ctx.storage.put('op', op)
        await this.call(op)
        return
      }
      await this.absorbPayment(op, outcome, true)
    } else {
      // Regeneration creates no charge; asking again for the same merchantInvoiceId is safe.
      await this.call(op)
    }
  }

  /** A verified gateway notification about this operation's payment. */
  async settleFromNotification(paymentId: string, transactionStatus: string): Promise<boolean> {
    const op = await this.ctx.storage.get<OperationRecord>('op')
    if (!op || op.params.kind !== 'repeat' || (op.status !== 'unknown' && op.status !== 'pending' && op.status !== 'processing')) return false
    const before = op.status
    op.status = transactionStatus === 'Y' ? 'succeeded' : transactionStatus === 'N' ? 'declined' : op.status
    op.result = { ...op.result, paymentId }
    await this.afterChange(op, before)
    return before !== op.status
  }
}
