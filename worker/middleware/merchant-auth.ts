/**
 * @module
 * Merchant server routes: `Authorization: Bearer <key>`, the default merchant's `MERCHANT_API_KEY`
 * (or `MERCHANT_API_KEY_NEXT` while a rotation is under way, compared in constant time) or an
 * active API key of a merchant profile (worker/merchants/). From here on the request acts for that
 * merchant: `c.env` is the merchant's configuration (its gateway credentials, webhook URL, limits)
 * and the routes reach only its objects.
 * These routes are for the merchant's server, so a request with a key and a browser `Origin` is
 * refused and no CORS header is ever sent (SECURITY.md R5, T8). The one browser that may call them
 * is the merchant console's own pages, with its signed session cookie instead of a key, from the
 * Worker's origin, and with the session's CSRF token for any change (console/caller.ts): reads,
 * and only the changes its pages make (`consoleMay`).
 */
import type { MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { consoleCaller, consoleEnabled, consoleMay } from '../console/caller.ts'
import { CONSOLE_COOKIE } from '../console/session.ts'
import { callerOf } from '../merchants/caller.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'

export function merchantAuth(): MiddlewareHandler<{ Bindings: Env }> {
  return async function merchantAuth(c, next) {
    if (
      consoleEnabled(c.env) &&
      c.req.header('Authorization') === undefined &&
      getCookie(c, CONSOLE_COOKIE) !== undefined
    ) {
      const merchant = await consoleCaller(c)
      if (!consoleMay(c.req.method, c.req.path))
        throw new ApiError(
          'forbidden',
          'The console reads, captures, voids, refunds and sends webhooks again: anything else needs your API key, from your server.',
        )
      c.env = await merchantEnv(c.env, merchant)
      await next()
      // What the console reads (listings with shoppers' emails) stays out of every cache.
      c.header('Cache-Control', 'no-store')
      return
    }
    if (c.req.header('Origin') !== undefined) {
      throw new ApiError('forbidden', 'Merchant routes are for your server, not for browsers.')
    }
    const merchant = await callerOf(c.req.raw, c.env)
    if (merchant === undefined) {
      throw new ApiError('unauthorized', 'A valid merchant API key is required.', undefined, {
        'WWW-Authenticate': 'Bearer',
      })
    }
    c.env = await merchantEnv(c.env, merchant)
    await next()
  }
}
