/**
 * @module
 * One retention policy for shoppers' personal data (SECURITY.md, "Scope and assets"): a customer's
 * email and the merchant's metadata (which may name a customer) are kept `PERSONAL_DATA_RETENTION_DAYS`
 * (default 7) after the payment or session was made, then erased everywhere they are kept.
 * - Sessions delete their whole record at that age already (their own alarm; later while a payment
 *   of theirs is in flight or an invoice still payable, or while events their merchant has not
 *   taken wait for it, a month at most).
 * - A payment's record keeps what the merchant needs to account for the money and to give it back
 *   (amounts, currency, status, ids, card brand and last 4, its captures, voids and refunds); its
 *   email and metadata are erased by the Payment object itself, which writes its index row again.
 * - The search index (D1): the sessions' and operations' rows lose their email and metadata here,
 *   and every metadata pair of an erased object goes.
 * - Webhook deliveries' rows (D1: ids and delivery states) go whole; one not delivered yet when
 *   its record's hold for it ends (`DELIVERY_HOLD_MS`).
 * - Console sign-outs past their session's hour go too (nothing personal: a hash and a time).
 * The daily Cron Trigger (`[triggers]` in wrangler.toml) runs `sweep`; each run erases every
 * payment due, page by page, for as long as `RUN_BUDGET_MS` (a backlog beyond it is the next
 * run's), and a payment whose object fails is logged and left to the next run, never stopping the
 * others or the index's erasure.
 */
import type { Env } from '../env.ts'
import { scopedFor } from '../merchants/merchant-env.ts'
import { retentionMs } from '../env-vars.ts'
import { log } from '../log.ts'
import { DELIVERY_HOLD_MS } from '../sessions/tasked-object.ts'

const DAY_MS = 24 * 60 * 60_000
/** Payments read from the index per page: each is one Durable Object call. */
const BATCH = 200
/** How long one run goes on erasing payments (a Cron Trigger's invocation may run 15 minutes). */
const RUN_BUDGET_MS = 5 * 60_000

/** Personal data older than this (ms since the epoch) is erased. */
export function retentionCutoff(env: Env, now = Date.now()): number {
  return now - retentionMs(env)
}

/** `batch`: payments per page (tests make it small to see a run go through several). */
export async function sweep(env: Env, now = Date.now(), batch = BATCH): Promise<{ payments: number }> {
  const cutoff = retentionCutoff(env, now)
  const started = Date.now()
  let erased = 0
  // Payments: the object is the truth; it erases and writes its index row again (outbox), a
  // moment later, so the pages go by (created_at, merchant, id), not by what the rows still hold.
  // Chosen by what their row holds, not by their metadata pairs, which this run deletes for every
  // payment past the cutoff: a payment this run does not reach is chosen again by the next.
  let after: readonly [number, string, string] = [0, '', '']
  for (;;) {
    const page = await env.DB.prepare(
      `SELECT id, merchant_id, created_at FROM payments WHERE created_at < ?1 AND (email IS NOT NULL OR json_extract(data, '$.metadata') != '{}') AND (created_at, merchant_id, id) > (?2, ?3, ?4) ORDER BY created_at, merchant_id, id LIMIT ?5`,
    )
      .bind(cutoff, ...after, batch)
      .all<{ id: string; merchant_id: string; created_at: number }>()
    // Retention is the deployment's policy: every merchant's payments (each object named per merchant).
    for (const { id, merchant_id } of page.results)
      try {
        const stub = env.PAYMENTS.get(env.PAYMENTS.idFromName(scopedFor(merchant_id, id)))
        if (await stub.erasePersonalData(cutoff)) erased += 1
      } catch (error) {
        log.error('retention_erase_failed', { payment: id, merchant: merchant_id, error })
      }
    const last = page.results.at(-1)
    if (!last || page.results.length < batch || Date.now() - started > RUN_BUDGET_MS) break
    after = [last.created_at, last.merchant_id, last.id]
  }
  // Sessions and operations have no record of their own to keep: their index rows are erased here.
  await env.DB.batch([
    env.DB.prepare(
      `DELETE FROM payment_metadata WHERE (merchant_id, object_id) IN (SELECT merchant_id, id FROM payments WHERE created_at < ?1)`,
    ).bind(cutoff),
    env.DB.prepare(
      `DELETE FROM session_metadata WHERE (merchant_id, object_id) IN (SELECT merchant_id, id FROM sessions WHERE created_at < ?1)`,
    ).bind(cutoff),
    env.DB.prepare(
      `DELETE FROM operation_metadata WHERE (merchant_id, object_id) IN (SELECT merchant_id, id FROM operations WHERE created_at < ?1)`,
    ).bind(cutoff),
    env.DB.prepare(
      `UPDATE sessions SET email = NULL, data = json_set(data, '$.metadata', json('{}')) WHERE created_at < ?1 AND (email IS NOT NULL OR json_extract(data, '$.metadata') != '{}')`,
    ).bind(cutoff),
    // A delivery not made yet keeps its row while its record holds the event for it (a month at
    // most past the retention): the merchant can still see it and send it again.
    env.DB.prepare(
      `DELETE FROM webhook_deliveries WHERE created_at < ?1 AND (status = 'delivered' OR created_at < ?2)`,
    ).bind(cutoff, cutoff - DELIVERY_HOLD_MS - DAY_MS),
    env.DB.prepare(`DELETE FROM console_sign_outs WHERE expires_at < ?1`).bind(now),
    env.DB.prepare(
      `UPDATE operations SET data = json_set(data, '$.metadata', json('{}')) WHERE created_at < ?1 AND json_extract(data, '$.metadata') IS NOT NULL`,
    ).bind(cutoff),
  ])
  log.info('retention_sweep', { payments: erased })
  return { payments: erased }
}
