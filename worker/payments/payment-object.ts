/**
 * @module
 * One payment per Durable Object (named by the gateway's paymentId): the source of truth for what
 * was authorised, captured and refunded, and for every capture, void and refund of it. The search
 * index (D1) is fed from here through the outbox (the first row by the payment's opener, with its
 * own: opening.ts) and may lag; this object never does.
 *
 * Money-safety, the same way as paying:
 * - **Bounds before the gateway.** A request is admitted against the payment as it stands,
 *   counting operations in flight (a refund never exceeds captured - refunded - refunds in
 *   flight), and the operation is written `processing` before the call. Between the check and the
 *   write there are only storage calls, which keep the input gate shut: no other request of this
 *   payment runs in between, so two parallel full refunds send one refund.
 * - **Never re-sent blindly.** A lost answer makes the operation `unknown`; the alarm asks the
 *   gateway by the operation's own merchantTransactionId. Only an inquiry saying the gateway has
 *   no such transaction allows the one re-send, with the same reference.
 * - **One event per change.** Each change of an operation is committed with its event and the
 *   index row in one batch (TaskedObject.commit); event ids derive from the change number.
 * - **Idempotent.** One record per `kind:Idempotency-Key`: the same request again answers the
 *   operation as it stands (`replayed`), another body with the key is refused, a key whose first
 *   request is still at the gateway is "in progress".
 *
 * Each kind's rules live in its module (operations/); this object runs them all the same way.
 */
import type { ErrorCode } from '../../shared/errors.ts'
import { formatAmount } from '../../shared/money.ts'
import { gatewayClient } from '../config.ts'
import type { PaymentOutcome } from '../gateway/outcome.ts'
import { sha256Hex } from '../ids.ts'
import { log } from '../log.ts'
import { paymentIndexJob } from '../search/rows.ts'
import { checkKey } from '../idempotency.ts'
import { done, fail, type Reply } from '../reply.ts'
import { TaskedObject } from '../sessions/tasked-object.ts'
import { HANDLERS, type RequestOf } from './operations/index.ts'
import type { Refusal } from './operations/handler.ts'
import { NO_SUCH_PAYMENT, openingRecord, operationView, paymentView } from './status.ts'
import {
  OPERATION_TRANSITIONS,
  type MoneyOperation,
  type OperationKind,
  type OperationStatus,
  type OperationView,
  type PaymentRecord,
  type PaymentSnapshot,
  type PaymentView,
  type RepeatSource,
} from './types.ts'
import { askAgainInMs, callWindowMs } from '../env-vars.ts'

/** What an operation request produced, before it is answered as a `Reply` (`replyOf`). */
type OperationResult =
  | {
      readonly kind: 'done'
      readonly operation: OperationView
      readonly payment: PaymentView
      readonly replayed: boolean
    }
  | Refusal

/**
 * An operation's answer: `{ operation, payment }` once the gateway said (or has not: the route
 * answers 202 for an operation still under way), the failure's code for one the gateway refused.
 */
function replyOf(result: OperationResult): Reply {
  if (result.kind === 'refused') return fail(result.code, result.message, result.fields)
  const { operation, payment, replayed } = result
  const failure =
    operation.status === 'failed'
      ? (operation.failure ?? {
          code: 'gateway_rejected' as const,
          message: `The gateway refused the ${operation.object}.`,
        })
      : undefined
  const reply = failure ? fail(failure.code, failure.message) : done({ operation, payment })
  return replayed ? { ...reply, replayed } : reply
}

interface IdemRecord {
  readonly fingerprint: string
  readonly operationId: string
}

/** The mark of a setup session's authorisation (`markSetup`). */
const SETUP = 'setup'
interface SetupMark {
  readonly sessionId: string
}

const MAX_INQUIRIES = 16

const refused = (code: ErrorCode, message: string): Refusal => ({ kind: 'refused', code, message })

export class PaymentObject extends TaskedObject {
  protected readonly binding = 'PAYMENTS' as const
  /**
   * The record, one object from its opening on, changed only in place: an operation waiting on the
   * gateway holds it, so a change made meanwhile (an erasure, the card learned late, another
   * operation) is in what that operation commits when its answer comes, never written over.
   */
  private record?: PaymentRecord

  private async load(): Promise<PaymentRecord | undefined> {
    this.record ??= await this.ctx.storage.get<PaymentRecord>('payment')
    return this.record
  }

  private owner(p: PaymentRecord): string {
    return `payment:${p.paymentId}`
  }

  /**
   * Opens the record of a payment the gateway took (from the session's success or a repeat's,
   * through their outbox). Idempotent: a second delivery of the same payment changes nothing.
   * `indexed`: the opener queued its first index row (opening.ts), so an opening sets no alarm
   * here; an opener of the version before did not, and the record queues its row itself. An
   * object of another merchant is never opened: the opener's job fails, and is retried, and the
   * row it waits for is not written.
   */
  async open(snapshot: PaymentSnapshot, merchant: string, indexed = false): Promise<void> {
    if (!(await this.belongTo(merchant))) {
      log.error('payment_owner_mismatch', { payment: snapshot.paymentId, merchant })
      throw new Error('payment object belongs to another merchant')
    }
    const opened = await this.load()
    if (opened) {
      // Opened again by its session, which learned the card its first payment saved after the
      // success (the gateway's late answer names it, its notification does not), or learned that
      // the gateway saved none: that alone is filled in, so the deletion guard of a repeat has the
      // card to check, and the payment, which waited for it, may be repeated. Nothing else changes.
      // (An older opening delivered after a newer one finds the record settled and changes nothing.)
      const learned = !opened.registrationId && snapshot.registrationId
      const none = opened.registrationPending && !snapshot.registrationPending && !snapshot.registrationId
      if (!learned && !none) return
      // Changed in place, as every change is: a capture or refund waiting on the gateway holds this
      // same record, and commits it with this change when its answer comes.
      opened.registrationId = snapshot.registrationId
      delete opened.registrationPending
      opened.seq += 1
      opened.updatedAt = Date.now()
      await this.commit(this.owner(opened), opened.seq, { payment: opened }, [], [paymentIndexJob(opened)])
      return
    }
    const p = openingRecord(snapshot)
    this.record = p
    await this.commit(this.owner(p), p.seq, { payment: p }, [], indexed ? [] : [paymentIndexJob(p)])
  }

  /**
   * Marks a setup session's authorisation (outbox job `setup`), which has no record: nothing
   * captures or refunds it, and `repeatSource` says what it is, so that a repeat of it is refused.
   * Idempotent; an object of another merchant is never marked.
   */
  async markSetup(sessionId: string, merchant: string): Promise<void> {
    if (!(await this.belongTo(merchant))) {
      log.error('payment_owner_mismatch', { payment: 'setup', merchant })
      throw new Error('payment object belongs to another merchant')
    }
    if ((await this.load()) || (await this.ctx.storage.get<SetupMark>(SETUP))) return
    await this.ctx.storage.put(SETUP, { sessionId } satisfies SetupMark)
  }

  /**
   * Erases the shopper's personal data once the payment is older than `cutoff` (the retention
   * policy, worker/retention/sweep.ts): its email and metadata. What accounts for the money stays.
   * The index row is written again with the change; events still waiting lose them too, and events
   * from now on carry none.
   */
  async erasePersonalData(cutoff: number): Promise<boolean> {
    const p = await this.load()
    if (!p || p.createdAt >= cutoff || (p.email === null && Object.keys(p.metadata).length === 0)) return false
    // The events still waiting for the merchant first: a run stopped in between erases again.
    await this.eraseWaitingEvents((data) => ({
      ...data,
      ...('email' in data ? { email: null } : {}),
      ...('metadata' in data ? { metadata: {} } : {}),
    }))
    // In place (see `open`): an operation at the gateway meanwhile commits the erased record.
    p.email = null
    p.metadata = {}
    p.seq += 1
    p.updatedAt = Date.now()
    await this.commit(this.owner(p), p.seq, { payment: p }, [], [paymentIndexJob(p)])
    return true
  }

  /**
   * Whether the object is `merchant`'s. Its name is the merchant's (`scoped`), so another merchant's
   * is never reached by a name a route makes; this holds whatever names an object in future.
   */
  private async ours(merchant: string): Promise<boolean> {
    return (await this.merchant()) === merchant
  }

  /** The merchant's view of the payment; undefined: no such payment of `merchant`'s. */
  async view(merchant: string): Promise<PaymentView | undefined> {
    const p = await this.load()
    return p && (await this.ours(merchant)) ? paymentView(p) : undefined
  }

  /**
   * What a repeat of this payment inherits (its saved card, guarded before each send, the
   * customer and metadata), and whether the card it saved is still to be learned (then no repeat).
   */
  async repeatSource(merchant: string): Promise<RepeatSource | undefined> {
    if (!(await this.ours(merchant))) return undefined
    const p = await this.load()
    if (!p) {
      const setup = await this.ctx.storage.get<SetupMark>(SETUP)
      return setup
        ? { setupOf: setup.sessionId, registrationId: null, card: null, email: null, metadata: {} }
        : undefined
    }
    const source = {
      registrationId: p.registrationId,
      ...(p.recurring === undefined ? {} : { recurring: p.recurring }),
      card: p.card,
      email: p.email,
      metadata: p.metadata,
    }
    return p.registrationPending ? { ...source, registrationPending: true } : source
  }

  /** Runs one operation of `kind` for an Idempotency-Key; `fingerprint` is the request's. */
  async run<K extends OperationKind>(
    kind: K,
    key: string,
    fingerprint: string,
    request: RequestOf[K],
    merchant: string,
  ): Promise<Reply> {
    if (!(await this.ours(merchant))) return replyOf(refused('not_found', NO_SUCH_PAYMENT))
    await this.fresh()
    return replyOf(await this.attempt(kind, key, fingerprint, request))
  }

  private async attempt<K extends OperationKind>(
    kind: K,
    key: string,
    fingerprint: string,
    request: RequestOf[K],
  ): Promise<OperationResult> {
    const handler = HANDLERS[kind]
    // Computed before the checks: from here to the write below only storage calls run, so no
    // other request of this payment can come in between (the input gate stays shut).
    const hash = (await sha256Hex(`${this.ctx.id.toString()}|${kind}|${key}`)).slice(0, 24)
    const p = await this.load()
    if (!p) return refused('not_found', NO_SUCH_PAYMENT)
    const idemKey = `idem:${kind}:${key}`
    const idem = await this.ctx.storage.get<IdemRecord>(idemKey)
    // The key's operation once it has left `processing`: its record is the answer to a replay.
    const earlier = idem && p.operations.find((o) => o.id === idem.operationId && o.status !== 'processing')
    const check = checkKey(idem, fingerprint, () => earlier !== undefined)
    if (check.kind === 'refused') return refused(check.code, check.message)
    if (check.kind === 'replay' && earlier)
      return { kind: 'done', operation: operationView(earlier), payment: paymentView(p), replayed: true }
    const admitted = handler.admit(p, request)
    if ('kind' in admitted) return admitted
    const now = Date.now()
    const op: MoneyOperation = {
      id: `${handler.prefix}_${hash}`,
      kind,
      amountMinor: admitted.amountMinor,
      amount: formatAmount(admitted.amountMinor),
      ...(admitted.reason ? { reason: admitted.reason } : {}),
      merchantTransactionId: `${handler.prefix}-${hash}`,
      status: 'processing',
      createdAt: now,
      updatedAt: now,
      inquiries: 0,
      resent: false,
    }
    p.operations.push(op)
    p.updatedAt = now
    // In flight, on disk, before the gateway hears of it.
    await this.ctx.storage.put({ payment: p, [idemKey]: { fingerprint, operationId: op.id } satisfies IdemRecord })
    await this.settleBy(now + callWindowMs(this.env))
    await this.send(p, op)
    return { kind: 'done', operation: operationView(op), payment: paymentView(p), replayed: false }
  }

  private async send(p: PaymentRecord, op: MoneyOperation): Promise<void> {
    const outcome = await HANDLERS[op.kind].call(gatewayClient(this.env), p, op)
    log.info('payment_operation', { payment: p.paymentId, operation: op.id, outcome: outcome.kind })
    await this.absorb(p, op, outcome, false)
  }

  /** Moves an operation and commits the change with its event and the index row. */
  private async change(p: PaymentRecord, op: MoneyOperation, to: OperationStatus): Promise<void> {
    const from = op.status
    if (from === to || !OPERATION_TRANSITIONS[from].includes(to)) {
      await this.ctx.storage.put('payment', p)
      return
    }
    if (to === 'succeeded') HANDLERS[op.kind].apply(p, op)
    // Settled: no longer listed as needing attention (its event says how it ended).
    if (to !== 'unknown') delete op.needsAttention
    op.status = to
    op.updatedAt = Date.now()
    p.updatedAt = op.updatedAt
    p.seq += 1
    const type = HANDLERS[op.kind].events[to as 'succeeded' | 'failed' | 'unknown']
    const data = { ...paymentView(p), operation: operationView(op), previousStatus: from, sequence: p.seq }
    await this.commit(this.owner(p), p.seq, { payment: p }, [{ type, data }], [paymentIndexJob(p)])
  }

  /** The gateway's answer (to the call, or to an inquiry about it) applied to the operation. */
  private async absorb(
    p: PaymentRecord,
    op: MoneyOperation,
    outcome: PaymentOutcome,
    fromInquiry: boolean,
  ): Promise<void> {
    if ('response' in outcome && outcome.response) {
      const r = outcome.response
      // An answer naming another reference or sum is not about this operation (R27).
      if (
        (r.merchantTransactionId && r.merchantTransactionId !== op.merchantTransactionId) ||
        (r.amount && op.kind !== 'void' && r.amount !== op.amount)
      ) {
        log.error('operation_answer_mismatch', { payment: p.paymentId, operation: op.id })
        await this.toUnknown(p, op)
        return
      }
      if (r.paymentId && outcome.kind === 'succeeded') op.gatewayId = r.paymentId
    }
    if ('code' in outcome) {
      op.resultCode = outcome.code
      op.resultDescription = outcome.description
    }
    // Only a definite answer settles an operation that may already have reached the gateway: the
    // answer to an inquiry, or to the one re-send (which the gateway may refuse as a duplicate of a
    // first call that landed late). A refusal there says nothing about the money: keep asking.
    const mayHaveLanded = fromInquiry || op.resent
    switch (outcome.kind) {
      case 'succeeded':
        delete op.failure
        return this.change(p, op, 'succeeded')
      case 'declined':
        op.failure = {
          code: 'gateway_rejected',
          message: `The gateway declined the ${op.kind} (${outcome.code}: ${outcome.description}).`,
        }
        return this.change(p, op, 'failed')
      case 'rejected':
        if (mayHaveLanded) return this.toUnknown(p, op)
        op.failure =
          outcome.reason === 'auth'
            ? {
                code: 'gateway_auth_failed',
                message: 'The gateway refused our credentials (AuthToken). Nothing was sent.',
              }
            : {
                code: 'gateway_rejected',
                message: `The gateway refused the ${op.kind} (${outcome.code}: ${outcome.description}).`,
              }
        return this.change(p, op, 'failed')
      case 'not_found':
        if (!mayHaveLanded) {
          op.failure = { code: 'not_found', message: 'The gateway has no such payment.' }
          return this.change(p, op, 'failed')
        }
        // The gateway never saw it: the one re-send, with the same reference (a late copy of the
        // first would be refused by the gateway as a duplicate).
        if (fromInquiry && !op.resent && op.status === 'unknown') {
          op.resent = true
          await this.ctx.storage.put('payment', p)
          return this.send(p, op)
        }
        return this.toUnknown(p, op)
      case 'unsent':
        if (mayHaveLanded) return this.toUnknown(p, op)
        op.failure =
          outcome.reason === 'token_refused'
            ? {
                code: 'gateway_auth_failed',
                message: 'The gateway refused our credentials (AuthToken). Nothing was sent.',
              }
            : { code: 'gateway_unavailable', message: 'The gateway cannot be reached. Nothing was sent.' }
        return this.change(p, op, 'failed')
      case 'invalid':
        if (mayHaveLanded) return this.toUnknown(p, op)
        op.failure = {
          code: 'gateway_rejected',
          message: `The ${op.kind} could not be built (${outcome.fields.map((f) => `${f.field}: ${f.code}`).join(', ')}). Nothing was sent.`,
        }
        return this.change(p, op, 'failed')
      default:
        // unknown, pending, action_required: the gateway has not said; ask again later.
        return this.toUnknown(p, op)
    }
  }

  /**
   * Unknown until the gateway says: asked again, backing off to hourly, for as long as it takes (the
   * gateway sends no notification of a capture, void or refund, so nothing else settles it), as a
   * session's own inquiry is.
   */
  private async toUnknown(p: PaymentRecord, op: MoneyOperation): Promise<void> {
    if (op.status === 'processing') await this.change(p, op, 'unknown')
    else await this.ctx.storage.put('payment', p)
    if (op.inquiries >= MAX_INQUIRIES && !op.needsAttention) await this.needsAttention(p, op)
    await this.settleBy(Date.now() + askAgainInMs(this.env, op.inquiries))
  }

  /**
   * Asked this often and still unknown (about six hours): the merchant is told once (with the
   * change number, like any change) and the payment shows in the `needs_attention` listing. The
   * asking goes on.
   */
  private async needsAttention(p: PaymentRecord, op: MoneyOperation): Promise<void> {
    op.needsAttention = true
    p.updatedAt = Date.now()
    p.seq += 1
    const data = { ...paymentView(p), operation: operationView(op), previousStatus: op.status, sequence: p.seq }
    await this.commit(
      this.owner(p),
      p.seq,
      { payment: p },
      [{ type: HANDLERS[op.kind].events.needs_attention, data }],
      [paymentIndexJob(p)],
    )
    log.error('payment_operation_needs_attention', { payment: p.paymentId, operation: op.id })
  }

  /** One `settle` task serves every operation: it runs at the earliest time any of them needs. */
  private async settleBy(at: number): Promise<void> {
    const due = (await this.ctx.storage.get<Record<string, number>>('tasks'))?.settle
    await this.schedule('settle', due !== undefined && due > Date.now() ? Math.min(due, at) : at)
  }

  protected async runTask(name: string): Promise<void> {
    const p = await this.load()
    if (name !== 'settle' || !p) return
    const timeout = callWindowMs(this.env)
    for (const op of p.operations) {
      // The Worker went away during the call: unknown until asked.
      if (op.status === 'processing' && Date.now() - op.updatedAt >= timeout) await this.change(p, op, 'unknown')
      if (op.status !== 'unknown') continue
      op.inquiries += 1
      const outcome = op.gatewayId
        ? await gatewayClient(this.env).inquiry(op.gatewayId, 'PID')
        : await gatewayClient(this.env).inquiry(op.merchantTransactionId, 'MID')
      log.info('payment_operation_inquiry', {
        payment: p.paymentId,
        operation: op.id,
        outcome: outcome.kind,
        inquiries: op.inquiries,
      })
      await this.absorb(p, op, outcome, true)
    }
    // A call still on its way keeps its watchdog.
    for (const op of p.operations) if (op.status === 'processing') await this.settleBy(op.updatedAt + timeout)
  }
}
