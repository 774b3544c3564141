/**
 * @module
 * Reading settings from the bindings: numbers (timeouts, delays, limits) and the Worker's own
 * callback URLs, one helper each instead of a copy per Durable Object.
 */

// The sandbox reads its numbers the same way: the helper is shared.
import { numberVar } from '../shared/settings.ts'
export { numberVar }

/**
 * Longer than the longest gateway call that may still answer: an AuthToken (asked of the keeper,
 * then of the gateway itself: two timeouts) and the call (a third), and a margin. A call younger
 * than this may still hear its own answer, so no watchdog takes it for lost before then.
 */
export const callWindowMs = (env: { readonly GATEWAY_TIMEOUT_MS?: string | undefined }): number =>
  3 * numberVar(env.GATEWAY_TIMEOUT_MS, 15_000) + 15_000

/**
 * How long shoppers' personal data is kept (PERSONAL_DATA_RETENTION_DAYS, default 7): the one
 * retention policy (worker/retention/sweep.ts) of sessions, merchant operations and payments' data.
 */
export const retentionMs = (env: { readonly PERSONAL_DATA_RETENTION_DAYS?: string | undefined }): number =>
  numberVar(env.PERSONAL_DATA_RETENTION_DAYS, 7) * 24 * 60 * 60_000

/**
 * When to ask the gateway again after `tries` asks (an inquiry, a void's, a saved card's): from
 * `INQUIRY_BASE_MS` (2 s), doubling, an hour at most.
 */
export function askAgainInMs(env: { readonly INQUIRY_BASE_MS?: string | undefined }, tries: number): number {
  return Math.min(60 * 60_000, numberVar(env.INQUIRY_BASE_MS, 2_000) * 2 ** Math.min(tries, 16))
}

/**
 * The Worker's own URL the gateway calls back (`notifications`: the asynchronous result) or sends
 * the shopper to (`return`: after 3-D Secure or an invoice page), for a session or operation id.
 */
export function callbackUrl(
  env: { readonly PUBLIC_BASE_URL: string },
  kind: 'notifications' | 'return',
  id: string,
): string {
  return `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}/v1/${kind}/${id}`
}
