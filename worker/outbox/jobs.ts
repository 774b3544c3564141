/**
 * @module
 * Jobs of the outbox (worker/sessions/tasked-object.ts): work that must follow a committed change
 * in another store or object. Each is idempotent, so running it again after a crash or a retry is
 * harmless; one kind, one handler, no branching on the kind elsewhere.
 * - `index`: upsert the change's row in the search index (D1), newest change wins.
 * - `payment`: open the Payment object of a payment that just succeeded (a session's or a repeat's).
 */
import type { Env } from '../env.ts'
import type { PaymentSnapshot } from '../payments/types.ts'
import { upsertIndexRow, type IndexRow } from '../search/rows.ts'

export type Job = { readonly kind: 'index'; readonly row: IndexRow } | { readonly kind: 'payment'; readonly snapshot: PaymentSnapshot }

export const JOB_HANDLERS: { readonly [K in Job['kind']]: (env: Env, job: Extract<Job, { kind: K }>) => Promise<void> } = {
  index: (env, job) => upsertIndexRow(env.DB, job.row),
  payment: async (env, job) => {
    await env.PAYMENTS.get(env.PAYMENTS.idFromName(job.snapshot.paymentId)).open(job.snapshot)
  },
}
