/**
 * @module
 * The secrets that rotate without downtime, as the Worker uses them during a rotation's overlap
 * (SECURITY.md, "Secrets and their rotation"): two merchant API keys accepted at once, deliveries
 * signed with both webhook secrets, notifications checked against the secure key before the switch.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from './env.ts'

/** The merchant API keys the Worker accepts now: the key, and the next one while it is set. */
export function merchantKeys(env: Env): string[] {
  return [env.MERCHANT_API_KEY, env.MERCHANT_API_KEY_NEXT].filter((k): k is string => typeof k === 'string' && k !== '')
}

/**
 * The merchant API key a bearer is, if it is one: each key compared in constant time, all of them
 * every time, so the time taken does not tell which one matched.
 */
export async function merchantKeyOf(bearer: string | undefined, env: Env): Promise<string | undefined> {
  if (bearer === undefined) return undefined
  let found: string | undefined
  for (const key of merchantKeys(env)) if ((await timingSafeEqual(bearer, key)) && found === undefined) found = key
  return found
}

/** The secrets every webhook delivery is signed with: the secret, and the next one while it is set. */
export function webhookSecrets(env: Env): string[] {
  return [env.WEBHOOK_SECRET, env.WEBHOOK_SECRET_NEXT].filter((k): k is string => typeof k === 'string' && k !== '')
}

/** The secure keys a gateway notification may be signed with: the key, and the one before the switch. */
export function notificationKeys(env: Env): string[] {
  return [env.SECURE_KEY, env.SECURE_KEY_PREVIOUS].filter((k): k is string => typeof k === 'string' && k !== '')
}
