/**
 * @module
 * Who may use a session from a browser (SECURITY.md R2, R21): the page's origin first, then the
 * client secret. The middleware of the browser routes and the session object's pay (which makes
 * the check in the same call as the payment) both decide with these.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from './env.ts'
import { sha256Hex } from './ids.ts'
import { log } from './log.ts'
import { isOrigin } from './schemas/sessions.ts'

/**
 * A comma-separated list of origins (a variable), as exact origins: one written with a trailing
 * `/` is taken without it, and anything else that is no exact origin (a path, a wildcard, a `;`)
 * is left out. It would match no page's `Origin`, and written into the card frame's
 * `frame-ancestors` it would allow more than an origin (or add a directive).
 */
function originsOf(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/$/, ''))
    .filter(Boolean)
  const exact = entries.filter(isOrigin)
  // Said once per isolate and value: a deployment's typo, for its operator.
  if (exact.length < entries.length && value && !warned.has(value)) {
    warned.add(value)
    log.warn('origins_ignored', { ignored: entries.filter((o) => !isOrigin(o)) })
  }
  return exact
}
const warned = new Set<string>()

/** The origins a session's pages may be on: its own list, else the deployment's ALLOWED_ORIGINS. */
export function effectiveOrigins(sessionOrigins: readonly string[], env: Env): readonly string[] {
  return sessionOrigins.length > 0 ? sessionOrigins : originsOf(env.ALLOWED_ORIGINS)
}

/**
 * The Worker's own origins: PUBLIC_BASE_URL's, and the others it is served at (`OWN_ORIGINS`). A
 * configured list, never the request's own address: its host is what the client's `Host` says, and
 * a Worker routed on some paths of a shared hostname would trust every page of that hostname.
 */
const ownOrigins = (env: Env): string[] => [new URL(env.PUBLIC_BASE_URL).origin, ...originsOf(env.OWN_ORIGINS)]

/** One of the Worker's own origins (its pages: the card frame, the result page, the demo shop). */
export const isOwnOrigin = (origin: string, env: Env): boolean => ownOrigins(env).includes(origin)

/** An allowed origin, or the Worker's own (the card frame and the demo pages). */
export function originAllowed(origin: string, sessionOrigins: readonly string[], env: Env): boolean {
  return isOwnOrigin(origin, env) || effectiveOrigins(sessionOrigins, env).includes(origin)
}

/**
 * Refused: an `Origin` that is not allowed, or a request the browser marks `Sec-Fetch-Site:
 * cross-site` with no `Origin` at all (a navigation or no-cors request from another site).
 */
export function originRefused(
  origin: string | undefined,
  secFetchSite: string | undefined,
  sessionOrigins: readonly string[],
  env: Env,
): boolean {
  return origin !== undefined ? !originAllowed(origin, sessionOrigins, env) : secFetchSite === 'cross-site'
}

/** The client secret against the stored hash, in constant time. */
export async function secretMatches(secret: string | undefined, storedHash: string): Promise<boolean> {
  return secret !== undefined && (await timingSafeEqual(await sha256Hex(secret), storedHash))
}
