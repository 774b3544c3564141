/**
 * @module
 * Jobs of the outbox (worker/sessions/tasked-object.ts): work that must follow a committed change
 * in another store or object. Each is idempotent, so running it again after a crash or a retry is
 * harmless; one kind, one handler, no branching on the kind elsewhere.
 * - `index`: upsert the change's row in the search index (D1), newest change wins.
 * - `payment`: open the Payment object of a payment that just succeeded (a session's or a repeat's).
 * - `setup`: mark a setup session's authorisation in its Payment object, which opens no record for
 *   it: a repeat of it is refused (routes/payments.ts).
 * - `delivery`: upsert a webhook delivery's row (D1, worker/webhooks/deliveries.ts), newest state wins.
 */
import type { Env } from '../env.ts'
import type { PaymentSnapshot } from '../payments/types.ts'
import { upsertIndexRow, type IndexRow } from '../search/rows.ts'
import { placement } from '../placement.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'
import { upsertDelivery, type DeliveryRow } from '../webhooks/deliveries.ts'

export type Job =
  | { readonly kind: 'index'; readonly row: IndexRow }
  | {
      readonly kind: 'payment'
      readonly snapshot: PaymentSnapshot
      /** Its opener queued the payment's first index row beside it (not so from a version before). */
      readonly indexed?: true
    }
  | { readonly kind: 'setup'; readonly paymentId: string; readonly sessionId: string }
  | { readonly kind: 'delivery'; readonly row: DeliveryRow }

export const JOB_HANDLERS: {
  readonly [K in Job['kind']]: (env: Env, job: Extract<Job, { kind: K }>) => Promise<void>
} = {
  index: (env, job) => upsertIndexRow(env.DB, job.row, merchantIdOf(env)),
  payment: async (env, job) => {
    const name = scoped(env, job.snapshot.paymentId)
    const stub = env.PAYMENTS.get(env.PAYMENTS.idFromName(name), placement(env))
    await stub.open(job.snapshot, merchantIdOf(env), job.indexed === true)
  },
  setup: async (env, job) => {
    const stub = env.PAYMENTS.get(env.PAYMENTS.idFromName(scoped(env, job.paymentId)), placement(env))
    await stub.markSetup(job.sessionId, merchantIdOf(env))
  },
  delivery: (env, job) => upsertDelivery(env.DB, job.row, merchantIdOf(env)),
}

/**
 * Where a job waits in the outbox, how long, and after which job of the same outbox (`after`, a
 * slot: while that job waits, this one waits too). A payment's first index row, queued by its
 * opener, waits for the job that opens the payment's record: the listing never shows a payment
 * that `GET /v1/payments/{id}` does not know. An index row is the object's latest state
 * ("newest change wins"), so a later change's row takes the place of one still waiting, and rows
 * wait a moment before they are written: a payment's `processing` and its result, a second apart or
 * less, make one write to the index instead of two, and that write stays off the payment's own
 * path. A Payment object opens at once: the merchant may capture or refund as soon as it hears.
 */
export function jobPlace(job: Job): { readonly slot?: string; readonly delayMs: number; readonly after?: string } {
  if (job.kind === 'index')
    return {
      slot: `index:${job.row.table}:${job.row.id}`,
      delayMs: INDEX_DELAY_MS,
      ...(job.row.table === 'payments' ? { after: `payment:${job.row.id}` } : {}),
    }
  // A delivery's latest state replaces one still waiting, and waits as an index row does: an
  // event queued and delivered a moment later is one write (delivered), not two.
  if (job.kind === 'delivery') return { slot: `delivery:${job.row.eventId}`, delayMs: INDEX_DELAY_MS }
  return { slot: `payment:${job.kind === 'setup' ? job.paymentId : job.snapshot.paymentId}`, delayMs: 0 }
}

/** How long an index row waits for a newer change of its object before it is written. */
export const INDEX_DELAY_MS = 1_000
