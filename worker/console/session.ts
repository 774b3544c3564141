/**
 * @module
 * The merchant console's sign-in session: a short-lived cookie the Worker signs (HMAC-SHA-256
 * under a key derived from `CONSOLE_SECRET`) naming the merchant and the session's CSRF token.
 * `__Host-` prefixed, `HttpOnly`, `Secure`, `SameSite=Strict`, `Path=/`: no script reads it, no
 * other site sends it, and the API key that opened it is never stored in the browser. Every call
 * that changes something carries the CSRF token in `X-CSRF-Token` as well (the page gets it from
 * the sign-in's answer), and must come from the Worker's own origin.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from '../env.ts'
import { randomToken } from '../ids.ts'

export const CONSOLE_COOKIE = '__Host-pay-console'
/** A console session lasts an hour; signing in again starts a new one. */
export const SESSION_MS = 60 * 60_000
const MIN_SECRET = 32

export interface ConsoleSession {
  /** The merchant the signed-in user acts for (`default`, or a profile's id). */
  readonly merchant: string
  readonly csrf: string
  /** When it ends (ms since the epoch). */
  readonly exp: number
  /** How the user signed in. */
  readonly via: 'key' | 'access'
  /**
   * What the session stands on, checked on every read: the API key's hash (a revoked or rotated
   * key ends the sessions it opened), or the Access user's email.
   */
  readonly proof: string
}

const enc = new TextEncoder()
const keys = new Map<string, Promise<CryptoKey>>()

/** The signing key of one deployment: its origin is mixed in, so a staging cookie never opens production. */
function hmacKey(secret: string, origin: string): Promise<CryptoKey> {
  const name = `${origin}|${secret}`
  let key = keys.get(name)
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', enc.encode(`pay-checkout console session v1|${name}`))
      .then((raw) => crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']))
    keys.set(name, key)
  }
  return key
}

const b64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
const fromB64url = (text: string): string => atob(text.replace(/-/g, '+').replace(/_/g, '/'))

export interface Signer {
  readonly secret: string
  readonly origin: string
}

/** How this deployment signs sessions, or undefined when it cannot keep them (no secret, or a short one). */
export function consoleSigner(env: Env): Signer | undefined {
  const secret = env.CONSOLE_SECRET?.trim()
  return secret && secret.length >= MIN_SECRET ? { secret, origin: new URL(env.PUBLIC_BASE_URL).origin } : undefined
}

async function sign(signer: Signer, payload: string): Promise<string> {
  const key = await hmacKey(signer.secret, signer.origin)
  return b64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(payload))))
}

/** A new session for `merchant`, and its cookie's value. */
export async function newSession(
  signer: Signer,
  fields: Pick<ConsoleSession, 'merchant' | 'via' | 'proof'>,
  now = Date.now(),
): Promise<{ session: ConsoleSession; cookie: string }> {
  const session: ConsoleSession = { ...fields, csrf: randomToken(32), exp: now + SESSION_MS }
  const payload = b64url(enc.encode(JSON.stringify(session)))
  return { session, cookie: `${payload}.${await sign(signer, payload)}` }
}

/** The session a cookie value holds, if it is ours, untouched and not expired. */
export async function readSession(
  signer: Signer,
  cookie: string | undefined,
  now = Date.now(),
): Promise<ConsoleSession | undefined> {
  const [payload, mac] = (cookie ?? '').split('.')
  if (!payload || !mac || !(await timingSafeEqual(mac, await sign(signer, payload)))) return undefined
  try {
    const session = JSON.parse(fromB64url(payload)) as ConsoleSession
    return typeof session.merchant === 'string' &&
      typeof session.csrf === 'string' &&
      typeof session.proof === 'string' &&
      typeof session.exp === 'number' &&
      session.exp > now
      ? session
      : undefined
  } catch {
    return undefined
  }
}

/** The `Set-Cookie` value of a session (`undefined`: one that ends it). */
export function cookieHeader(value: string | undefined): string {
  const attributes = 'Path=/; HttpOnly; Secure; SameSite=Strict'
  return value === undefined
    ? `${CONSOLE_COOKIE}=; ${attributes}; Max-Age=0`
    : `${CONSOLE_COOKIE}=${value}; ${attributes}; Max-Age=${SESSION_MS / 1000}`
}
