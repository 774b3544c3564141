/**
 * @module
 * A merchant server call that must happen once: a repeat by payment id, or an invoice
 * regeneration (each kind a module of `merchant-operations/`). One object per `kind:Idempotency-Key`
 * (SECURITY.md R13): a reused key replays the stored answer, a reused key with other parameters is
 * refused, and a call whose answer never came is settled from the alarm by the kind's own rule (a
 * repeat by status inquiry, a regeneration by re-asking for the same merchantInvoiceId, which
 * creates no charge).
 *
 * Like a checkout session, the operation has one record in memory and on disk, and every change
 * of its status goes through `change`, which writes the record and the merchant event of that
 * change in one batch: the answer, a notification and an inquiry racing each other produce one
 * event per change, never two.
 */
import type { ErrorCode } from '../../shared/errors.ts'
import type { Notification } from '../../shared/types.ts'
import { gatewayClient } from '../config.ts'
import { askAgainInMs, callbackUrl, callWindowMs, retentionMs } from '../env-vars.ts'
import { settlementOf } from '../gateway/outcome.ts'
import { log } from '../log.ts'
import type { NotificationResult } from '../checkout/notifications.ts'
import {
  flowOf,
  type OperationContext,
  type OperationParams,
  type OperationRecord,
  type OpStatus,
} from './merchant-operations/index.ts'
import { registrationRefusal } from '../registrations/guard.ts'
import { operationIndexJob } from '../search/rows.ts'
import { checkKey, keyRefusal } from '../idempotency.ts'
import { done, fail, type Reply } from '../reply.ts'
import { TaskedObject } from './tasked-object.ts'

export type { OperationParams, OpStatus, RegenerateParams, RepeatParams } from './merchant-operations/index.ts'

type Operation = OperationRecord<OperationParams>

const DAY_MS = 24 * 60 * 60_000
const MAX_TRIES = 12

const canMove = (op: Operation, to: OpStatus): boolean =>
  op.status !== to && flowOf(op.params).transitions[op.status].includes(to)
const isOpen = (op: Operation): boolean =>
  op.status === 'processing' || op.status === 'unknown' || op.status === 'pending'

export class MerchantOperation extends TaskedObject {
  protected readonly binding = 'OPERATIONS' as const
  private op?: Operation

  private async load(): Promise<Operation | undefined> {
    this.op ??= await this.ctx.storage.get<Operation>('op')
    return this.op
  }

  private async save(op: Operation): Promise<void> {
    this.op = op
    await this.ctx.storage.put('op', op)
  }

  /** What a kind's flow may do to the operation (see merchant-operations/flow.ts). */
  private context(): OperationContext {
    return {
      client: gatewayClient(this.env),
      notificationUrl: callbackUrl(this.env, 'notifications', `op_${this.ctx.id.toString()}`),
      change: (op, to) => this.change(op as Operation, to),
      save: (op) => this.save(op as Operation),
      keepAsking: (op) => this.keepAsking(op as Operation),
      registrationRefusal: (id) => registrationRefusal(this.env, id),
      expireLater: (at) => this.schedule('expire', at),
      askAt: async (op, at) => {
        await this.save(op as Operation)
        await this.schedule('settle', at)
      },
    }
  }

  /** Moves the operation and writes the event of the change with it; anything else just saves. */
  private async change(op: Operation, to: OpStatus): Promise<boolean> {
    const from = op.status
    if (!canMove(op, to)) {
      await this.save(op)
      return false
    }
    const flow = flowOf(op.params)
    // Settled: no longer listed as needing attention (its event says how it ended).
    if (to !== 'unknown' && to !== 'pending') delete op.needsAttention
    op.status = to
    op.seq += 1
    this.op = op
    const data = {
      idempotencyKeyHash: this.ctx.id.toString(),
      ...this.body(op),
      previousStatus: from,
      sequence: op.seq,
    }
    await this.commit(
      this.ctx.id.toString(),
      op.seq,
      { op },
      [{ type: flow.eventType(to), data }],
      [operationIndexJob(this.body(op), op), ...flow.jobs(op, to)],
    )
    if (to !== 'unknown' && to !== 'pending') await this.cancel('settle')
    const expires = flow.expiresAt(op)
    if (expires !== undefined) await this.schedule('expire', expires)
    return true
  }

  /**
   * Runs the operation of this Idempotency-Key, or replays it. `refuseNew`: the route's refusal of
   * the request as it stands now (a repeat of a payment whose card is not known yet), answered to
   * a key that made no operation, and nothing kept of it; a key that did is replayed, so a retry
   * after a lost answer learns what it did.
   */
  async run(
    params: OperationParams,
    fingerprint: string,
    merchant: string,
    refuseNew?: { readonly code: ErrorCode; readonly message: string },
  ): Promise<Reply> {
    if (!(await this.belongTo(merchant))) return fail('not_found', 'No such operation.')
    await this.fresh()
    // Finished once answered, or once moved on without an answer (the Worker went away during the
    // call, and the alarm took it from there): a retry then learns the operation as it is now.
    const check = checkKey(await this.load(), fingerprint, (op) => op.reply !== undefined || op.status !== 'processing')
    if (check.kind === 'refused') return keyRefusal(check)
    if (check.kind === 'replay') return { ...this.replay(check.entry, check.entry.reply), replayed: true }
    if (refuseNew) return fail(refuseNew.code, refuseNew.message)
    const op: Operation = {
      fingerprint,
      params,
      createdAt: Date.now(),
      status: 'processing',
      seq: 0,
      tries: 0,
      resent: false,
    }
    // Written before the gateway call: a concurrent request with this key now sees "in progress".
    await this.save(op)
    // Kept as a session is (the record holds the repeated payment's email and metadata): the
    // deployment's retention, longer only while its outcome is open or its invoice payable.
    await this.schedule('purge', op.createdAt + retentionMs(this.env))
    await this.schedule('settle', Date.now() + callWindowMs(this.env))
    await flowOf(params).send(this.context(), op)
    op.reply = op.status === 'failed' ? this.failure(op) : done(this.body(op))
    await this.save(op)
    return op.reply
  }

  /**
   * A final first answer replays as it was; a provisional one (the gateway had not said: `unknown`,
   * `pending`), or none, replays as the operation is now, so a retry after a lost answer learns the
   * outcome.
   */
  private replay(op: Operation, first: Reply | undefined): Reply {
    const said = first?.ok ? (first.body as { status?: unknown }).status : undefined
    if (first && said !== 'unknown' && said !== 'pending' && said !== 'processing') return first
    return op.status === 'failed' ? this.failure(op) : done(this.body(op))
  }

  /** The operation as it is now (`GET /v1/operations/{id}`), for its merchant; undefined: no such operation. */
  async view(merchant: string): Promise<Record<string, unknown> | undefined> {
    const op = await this.load()
    return op && (await this.merchant()) === merchant
      ? { ...this.body(op), ...(op.status === 'failed' && op.reply && !op.reply.ok ? { error: op.reply.error } : {}) }
      : undefined
  }

  private failure(op: Operation): Reply {
    const code = typeof op.result?.resultCode === 'string' ? op.result.resultCode : undefined
    if (op.result?.error === 'registration_deleted')
      return fail('registration_deleted', 'The saved card of this payment was deleted and can no longer be charged.')
    if (code === '10026') return fail('not_found', 'The gateway has no such payment or invoice.')
    if (op.result?.unsent === 'unreachable')
      return fail('gateway_unavailable', 'The payment service cannot be reached. Nothing was sent.')
    if (op.result?.unsent === 'token_refused')
      return fail('gateway_auth_failed', 'The payment service refused our credentials (AuthToken). Nothing was sent.')
    return fail(
      'gateway_rejected',
      `The gateway refused the request${code ? ` (${code}: ${String(op.result?.resultDescription ?? '')})` : ''}.`,
    )
  }

  private body(op: Operation): Record<string, unknown> & { readonly id: string; readonly status: OpStatus } {
    const id = `op_${this.ctx.id.toString()}`
    return {
      id,
      object: 'operation',
      kind: op.params.kind,
      status: op.status,
      needsAttention: op.needsAttention === true,
      ...flowOf(op.params).describe(op.params),
      ...op.result,
    }
  }

  /**
   * While the outcome is open, ask again later, backing off to hourly, for as long as it takes (its
   * notification may never come), as a session's own inquiry does. After `MAX_TRIES` (about two
   * hours) the merchant is told once (`*.needs_attention`, with the change number like any change)
   * and the operation shows in the `needs_attention` listing.
   */
  private async keepAsking(op: Operation): Promise<void> {
    if (op.status !== 'unknown' && op.status !== 'pending') return
    await this.schedule('settle', Date.now() + askAgainInMs(this.env, op.tries))
    if (op.tries < MAX_TRIES || op.needsAttention) return
    op.needsAttention = true
    op.seq += 1
    this.op = op
    const data = {
      idempotencyKeyHash: this.ctx.id.toString(),
      ...this.body(op),
      previousStatus: op.status,
      sequence: op.seq,
    }
    await this.commit(
      this.ctx.id.toString(),
      op.seq,
      { op },
      [{ type: flowOf(op.params).attentionEvent, data }],
      [operationIndexJob(this.body(op), op)],
    )
    log.error('operation_needs_attention', { operation: this.ctx.id.toString(), status: op.status })
  }

  protected async runTask(name: string): Promise<void> {
    const op = await this.load()
    if (name === 'purge') {
      // An answer still awaited keeps the record (its charge may still be settled by inquiry), and
      // so does an invoice still payable: money taken on it must find its operation. So do the
      // merchant's events it has not taken yet.
      if (op && (isOpen(op) || flowOf(op.params).expiresAt(op) !== undefined || (await this.deliveriesHold())))
        return this.schedule('purge', Date.now() + DAY_MS)
      await this.ctx.storage.deleteAll()
      this.op = undefined
      return
    }
    // The task is set for the moment the operation ends by time (every change sets it anew), and
    // runs only if it can still end so (an invoice paid meanwhile cannot).
    if (name === 'expire' && op) {
      if (flowOf(op.params).expiresAt(op) !== undefined) await flowOf(op.params).expire(this.context(), op)
      return
    }
    if (name !== 'settle' || !op) return
    // The Worker went away during the call: unknown until asked.
    if (op.status === 'processing') await this.change(op, 'unknown')
    if (op.status !== 'unknown' && op.status !== 'pending') return
    op.tries += 1
    await flowOf(op.params).settle(this.context(), op)
  }

  /**
   * A verified gateway notification. It settles this operation only if its kind says it is its
   * own (the payment the gateway gave the repeat, or before any answer its reference, amount and
   * currency; the regenerated invoice's reference, amount and currency); anything else is refused.
   */
  async settleFromNotification(n: Notification): Promise<NotificationResult> {
    await this.fresh()
    const op = await this.load()
    if (!op) return { kind: 'refused', reason: 'no_operation' }
    const flow = flowOf(op.params)
    const reason = flow.foreign(op, n)
    if (reason) {
      log.warn('notification_refused', { operation: this.ctx.id.toString(), paymentId: n.paymentId, reason })
      return { kind: 'refused', reason }
    }
    const settled = settlementOf(n.transactionStatus)
    const to = settled === undefined ? undefined : flow.notified[settled]
    if (!to || !canMove(op, to)) return { kind: 'duplicate', status: op.status }
    flow.absorbNotification(op, n)
    await this.change(op, to)
    await this.keepAsking(op)
    return { kind: 'applied', status: op.status }
  }

  /** The shopper's return from an invoice regenerated through the merchant route. */
  async status(): Promise<OpStatus | undefined> {
    return (await this.load())?.status
  }
}
