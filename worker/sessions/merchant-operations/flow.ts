/**
 * @module
 * What a kind of merchant operation is (a repeat, an invoice regeneration): its record, its
 * transition table, its gateway call, how it is settled while its answer is open, and which
 * notifications are its own. The Durable Object (`../merchant-operation.ts`) runs any kind the same
 * way; a new kind is one new module in this folder and one line in `index.ts`'s table.
 */
import type { Notification } from '../../../shared/types.ts'
import type { GatewayClient } from '../../gateway/client.ts'
import type { Settlement } from '../../gateway/outcome.ts'
import type { Job } from '../../outbox/jobs.ts'
import type { EventType } from '../../../shared/webhooks/events.ts'
import type { RegistrationRefusal } from '../../registrations/guard.ts'
import type { Reply } from '../../reply.ts'

/**
 * `succeeded` is the repeat charged or the invoice regenerated; a regenerated invoice then ends
 * `paid` by its notification (`declined` is a try on the invoice's page that the shopper may follow
 * with another).
 */
export const OP_STATUSES = [
  'processing',
  'pending',
  'unknown',
  'succeeded',
  'declined',
  'failed',
  'paid',
  'expired',
] as const
export type OpStatus = (typeof OP_STATUSES)[number]

export type Transitions = Readonly<Record<OpStatus, readonly OpStatus[]>>

export interface OperationRecord<P = unknown> {
  readonly fingerprint: string
  readonly params: P
  readonly createdAt: number
  status: OpStatus
  seq: number
  reply?: Reply
  result?: Record<string, unknown>
  /** What the gateway's answers named: the repeat's payment id, the regenerated invoice. */
  paymentId?: string
  invoice?: {
    merchantInvoiceId: string
    amount: string
    currency: string
    /** When its answer came (ms): the gateway made it by then, and dates its expiry from it. */
    at?: number
  }
  tries: number
  resent: boolean
  /**
   * A repeat's one re-send was refused before it left (its card deleted meanwhile), by this code:
   * the first request, which the gateway did not find, may still reach it, so it is asked about
   * once more before the repeat ends `failed` (with this error).
   */
  lastAsk?: string
  /**
   * Still open after `MAX_TRIES`: the merchant was told once; asked about hourly until it settles
   * (a regeneration: while its reference is its own, regenerate.ts).
   */
  needsAttention?: true
}

/** What a flow may do to its operation: the Durable Object's own moves. */
export interface OperationContext {
  readonly client: GatewayClient
  /** Where the gateway notifies this operation. */
  readonly notificationUrl: string
  /** Moves the operation, with the event of the change in the same write; false if it cannot. */
  change(op: OperationRecord, to: OpStatus): Promise<boolean>
  save(op: OperationRecord): Promise<void>
  /** While the outcome is open, asks again later, backing off. */
  keepAsking(op: OperationRecord): Promise<void>
  /** Runs the flow's `expire` again at `at` (the gateway could not tell yet). */
  expireLater(at: number): Promise<void>
  /** Runs the flow's `settle` at `at`, no sooner (the operation is saved first). */
  askAt(op: OperationRecord, at: number): Promise<void>
  /** The registration guard (worker/registrations/guard.ts), asked before a saved card is charged. */
  registrationRefusal(registrationId: string | null | undefined): Promise<RegistrationRefusal | undefined>
}

export interface OperationFlow<P> {
  readonly transitions: Transitions
  /** Where a notification's verdict moves the operation (undefined: it says nothing). */
  readonly notified: Readonly<Record<Settlement, OpStatus | undefined>>
  /** The merchant event for entering a status. */
  eventType(to: OpStatus): EventType
  /** The merchant event when the tries run out with the outcome still open. */
  readonly attentionEvent: EventType
  /**
   * When the operation, as it stands, ends by time (`expired`), or undefined: an invoice offered
   * to shoppers until its expiry. Until then its record is kept, whatever its age.
   */
  expiresAt(op: OperationRecord<P>): number | undefined
  /** At that moment: end it (`expired`), unless what it offered was taken meanwhile. */
  expire(ctx: OperationContext, op: OperationRecord<P>): Promise<void>
  /** What the answer and the events say beside the status and the gateway's result. */
  describe(params: P): Record<string, unknown>
  /** The gateway call, its answer applied to the operation. */
  send(ctx: OperationContext, op: OperationRecord<P>): Promise<void>
  /** From the alarm, while the answer is open: find out what happened (never a second charge). */
  settle(ctx: OperationContext, op: OperationRecord<P>): Promise<void>
  /** Why a verified notification is not this operation's, or undefined when it is. */
  foreign(op: OperationRecord<P>, n: Notification): string | undefined
  /** Takes what an accepted notification says into the operation's result. */
  absorbNotification(op: OperationRecord<P>, n: Notification): void
  /** Outbox jobs written with entering a status (a charged repeat opens its payment's record). */
  jobs(op: OperationRecord<P>, to: OpStatus): Job[]
}
