/**
 * @module
 * Browser routes (`/v1/checkout/{id}/...`): the session's client secret as bearer, and CORS only
 * for the session's allowed origins. Hono's `cors()` only sets headers and never rejects, so a
 * foreign origin is refused here, before any handler runs (SECURITY.md R21); the pay makes the
 * same check (`worker/access.ts`) first thing in its one call into the session object. Whether a
 * session exists is not told to anyone without its secret: see `browserAccess`.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { originRefused } from '../access.ts'
import { SESSION_ID } from '../ids.ts'
import type { CheckoutSession } from '../checkout/checkout-session.ts'
import type { CheckoutView } from '../sessions/types.ts'
import { placement } from '../placement.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'

export interface BrowserAccessVariables {
  session: DurableObjectStub<CheckoutSession>
  /** The session as the widget sees it, read in the same round trip as the secret check. */
  view: CheckoutView
  /** The registration of the saved card the session offers, if it offers one. */
  savedCardRegistration: string | undefined
  /** The session's own allowed origins (the deployment's come from its env). */
  origins: readonly string[]
}

export function sessionStub(env: Env, id: string): DurableObjectStub<CheckoutSession> {
  return env.SESSIONS.get(env.SESSIONS.idFromName(id), placement(env))
}

/** The one answer for "no such checkout", a wrong secret and a missing secret alike (R21). */
export const noSuchCheckout = (): ApiError => new ApiError('not_found', 'No such checkout.')

export const refuseOrigin = (): ApiError => new ApiError('forbidden', 'This origin may not use this checkout.')

/** The bearer a browser route carries: the session's client secret. */
export const bearerOf = (c: Context): string | undefined =>
  /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')?.[1]

/**
 * Without the client secret, nothing a browser route answers depends on whether the session
 * exists beyond what its allowed origins already decide: an unknown id is treated as a session that
 * names no origins of its own (the deployment's ALLOWED_ORIGINS), an unknown session, a wrong
 * secret and a missing one all get the same 404 body, and a preflight (which never carries the
 * secret) is answered from the origins alone (SECURITY.md R21).
 *
 * A request is refused with 403 when its `Origin` is not allowed, or when the browser says it is
 * `Sec-Fetch-Site: cross-site` without an allowed `Origin` (a navigation or no-cors request from
 * another site, which carries no Origin header).
 */
export function browserAccess(): MiddlewareHandler<{ Bindings: Env; Variables: BrowserAccessVariables }> {
  return async function browserAccess(c, next) {
    const id = c.req.param('id') ?? ''
    const known = SESSION_ID.test(id)
    const stub = known ? sessionStub(c.env, id) : undefined
    const secret = bearerOf(c)
    const access = stub ? await stub.access(secret) : undefined
    // The session's merchant decides its origins, and the routes act for it from here on.
    if (access) c.env = await merchantEnv(c.env, access.merchant)
    const origins = access?.origins ?? []
    const origin = c.req.header('Origin')
    c.header('Vary', 'Origin')
    if (originRefused(origin, c.req.header('Sec-Fetch-Site'), origins, c.env)) throw refuseOrigin()
    if (origin !== undefined) c.header('Access-Control-Allow-Origin', origin)
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', 'GET, POST')
      c.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key')
      c.header('Access-Control-Max-Age', '600')
      return c.body(null, 204)
    }
    if (!stub || !access?.view) throw noSuchCheckout()
    c.set('session', stub)
    c.set('view', access.view)
    c.set('savedCardRegistration', access.savedCardRegistration)
    c.set('origins', origins)
    await next()
  }
}
