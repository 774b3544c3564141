/**
 * @module
 * Browser routes (`/v1/checkout/{id}/...`): the session's client secret as bearer, and CORS only
 * for the session's allowed origins. Hono's `cors()` only sets headers and never rejects, so a
 * foreign origin is refused here, before any handler runs (SECURITY.md R21).
 */
import type { MiddlewareHandler } from 'hono'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import type { CheckoutSession } from '../sessions/checkout-session.ts'
import type { CheckoutView } from '../sessions/types.ts'

export interface BrowserAccessVariables {
  session: DurableObjectStub<CheckoutSession>
  /** The session as the widget sees it, read in the same round trip as the secret check. */
  view: CheckoutView
}

export const SESSION_ID = /^cs_[A-Za-z0-9]{24}$/

export function sessionStub(env: Env, id: string): DurableObjectStub<CheckoutSession> {
  return env.SESSIONS.get(env.SESSIONS.idFromName(id))
}

/** The origins a session's pages may be on: its own list, else the deployment's ALLOWED_ORIGINS. */
export function effectiveOrigins(sessionOrigins: readonly string[], env: Env): readonly string[] {
  return sessionOrigins.length > 0 ? sessionOrigins : (env.ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean)
}

/** An allowed origin, or the Worker's own (the card frame and the demo pages). */
export function originAllowed(origin: string, sessionOrigins: readonly string[], env: Env): boolean {
  return origin === new URL(env.PUBLIC_BASE_URL).origin || effectiveOrigins(sessionOrigins, env).includes(origin)
}

export function browserAccess(): MiddlewareHandler<{ Bindings: Env; Variables: BrowserAccessVariables }> {
  return async function browserAccess(c, next) {
    const id = c.req.param('id') ?? ''
    if (!SESSION_ID.test(id)) return errorResponse(c, 'not_found', 'No such checkout.')
    const stub = sessionStub(c.env, id)
    const secret = /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')?.[1]
    const access = await stub.access(secret)
    if (!access) return errorResponse(c, 'not_found', 'No such checkout.')
    const origins = access.origins
    const origin = c.req.header('Origin')
    // No Origin: not a cross-origin browser request (a server, or a same-origin GET). The client
    // secret still has to match.
    if (origin !== undefined) {
      if (!originAllowed(origin, origins, c.env)) return errorResponse(c, 'forbidden', 'This origin may not use this checkout.')
      c.header('Access-Control-Allow-Origin', origin)
      c.header('Vary', 'Origin')
    }
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', 'GET, POST')
      c.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key')
      c.header('Access-Control-Max-Age', '600')
      return c.body(null, 204)
    }
    if (!access.view) return errorResponse(c, 'unauthorized', 'A valid client secret for this checkout is required.')
    c.set('session', stub)
    c.set('view', access.view)
    await next()
  }
}
