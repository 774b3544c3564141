/**
 * @module
 * The secrets that rotate without downtime, as the Worker uses them during a rotation's overlap
 * (SECURITY.md, "Secrets and their rotation"): two merchant API keys accepted at once, deliveries
 * signed with both webhook secrets, notifications checked against the secure key before the switch.
 *
 * An overlap secret that is blank or short is ignored and logged: `echo | wrangler secret put` to
 * "clear" one, or a placeholder left in, must not become a key anyone can guess (a guessable
 * previous secure key would let anyone sign a "paid" notification).
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from './env.ts'
import { log } from './log.ts'
import { sealKeyOf } from './merchants/merchant-env.ts'

/** Shorter values are placeholders, not keys: our own keys and secrets are long random strings. */
export const MIN_OWN_SECRET = 24
/** The gateway issues the secure key; shorter than this is a placeholder, not a key. */
const MIN_SECURE_KEY = 16

const warned = new Set<string>()

/** An overlap secret if it is set and long enough; a set but unusable one is logged (its name, never its value). */
function overlap(env: Env, name: 'MERCHANT_API_KEY_NEXT' | 'WEBHOOK_SECRET_NEXT' | 'SECURE_KEY_PREVIOUS'): string[] {
  const value = env[name]?.trim()
  if (!value) return []
  if (value.length >= (name === 'SECURE_KEY_PREVIOUS' ? MIN_SECURE_KEY : MIN_OWN_SECRET)) return [value]
  if (!warned.has(name)) {
    warned.add(name)
    // `variable`, not `secret`: the logger hides fields named like secrets, and the name is the point.
    log.error('rotation_secret_ignored', { variable: name, reason: 'too_short' })
  }
  return []
}

const present = (value: string | undefined): string[] => (value ? [value] : [])

/** The merchant API keys the Worker accepts now: the key, and the next one while it is set. */
export function merchantKeys(env: Env): string[] {
  return [...present(env.MERCHANT_API_KEY), ...overlap(env, 'MERCHANT_API_KEY_NEXT')]
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
  return [...present(env.WEBHOOK_SECRET), ...overlap(env, 'WEBHOOK_SECRET_NEXT')]
}

/** The secure keys a gateway notification may be signed with: the key, and the one before the switch. */
export function notificationKeys(env: Env): string[] {
  return [...present(env.SECURE_KEY), ...overlap(env, 'SECURE_KEY_PREVIOUS')]
}

/**
 * The secret a session creation's replayable answer (with its client secret) is sealed with: a
 * profile's own seal key, or the default merchant's API key that made the call.
 */
export async function sealingKeyOf(bearer: string | undefined, env: Env): Promise<string> {
  return sealKeyOf(env) ?? (await merchantKeyOf(bearer, env)) ?? env.MERCHANT_API_KEY
}

/** The secrets an earlier creation's answer may be sealed with (either key of a rotation's overlap). */
export function sealingKeys(env: Env): string[] {
  const own = sealKeyOf(env)
  return own ? [own] : merchantKeys(env)
}
