/**
 * @module
 * Who may use a session from a browser (SECURITY.md R2, R21): the page's origin first, then the
 * client secret. The middleware of the browser routes and the session object's pay (which makes
 * the check in the same call as the payment) both decide with these.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from './env.ts'
import { sha256Hex } from './ids.ts'

/** The origins a session's pages may be on: its own list, else the deployment's ALLOWED_ORIGINS. */
export function effectiveOrigins(sessionOrigins: readonly string[], env: Env): readonly string[] {
  return sessionOrigins.length > 0
    ? sessionOrigins
    : (env.ALLOWED_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
}

/** An allowed origin, or the Worker's own (the card frame and the demo pages). */
export function originAllowed(origin: string, sessionOrigins: readonly string[], env: Env): boolean {
  return origin === new URL(env.PUBLIC_BASE_URL).origin || effectiveOrigins(sessionOrigins, env).includes(origin)
}

/**
 * The `Origin` a browser route decides on. A page of this Worker's own (the card frame) reached at
 * another address than `PUBLIC_BASE_URL` (a custom domain beside workers.dev, `wrangler dev`'s own
 * port behind `npm start`'s public one) calls the Worker at that address: the origin the request
 * was sent to is this Worker's own too. Only a page on that origin can send it.
 */
export const asOwnOrigin = (origin: string | undefined, requestUrl: string, env: Env): string | undefined =>
  origin !== undefined && origin === new URL(requestUrl).origin ? new URL(env.PUBLIC_BASE_URL).origin : origin

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
