/**
 * @module
 * Turnstile verification (SECURITY.md R10), enforced when TURNSTILE_SECRET is set. Fails closed:
 * a missing, reused or expired token, an outage or a non-JSON answer all refuse the payment.
 */
import type { Env } from './env.ts'

const SITEVERIFY = 'https://challenges.cloudflare.com/turnstile/v0/siteverify'

export async function turnstilePasses(env: Env, token: unknown, ip: string): Promise<boolean> {
  if (!env.TURNSTILE_SECRET) return true
  if (typeof token !== 'string' || token.length === 0 || token.length > 2048) return false
  try {
    const res = await fetch(env.TURNSTILE_VERIFY_URL ?? SITEVERIFY, {
      method: 'POST',
      body: new URLSearchParams({ secret: env.TURNSTILE_SECRET, response: token, remoteip: ip }),
      signal: AbortSignal.timeout(5_000),
      // Never followed: a redirect would send the secret to another address (a 3xx fails the check).
      redirect: 'manual',
    })
    if (!res.ok) return false
    const body: unknown = await res.json()
    return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === true
  } catch {
    return false
  }
}
