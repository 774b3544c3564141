/**
 * @module
 * Merchant server routes: `Authorization: Bearer <MERCHANT_API_KEY>` (or `MERCHANT_API_KEY_NEXT`
 * while a rotation is under way), compared in constant time.
 * These routes are server-to-server only, so a request carrying a browser `Origin` is refused
 * and no CORS header is ever sent (SECURITY.md R5, T8).
 */
import type { MiddlewareHandler } from 'hono'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { merchantKeyOf } from '../secrets.ts'

export function merchantAuth(): MiddlewareHandler<{ Bindings: Env }> {
  return async function merchantAuth(c, next) {
    if (c.req.header('Origin') !== undefined) {
      throw new ApiError('forbidden', 'Merchant routes are for your server, not for browsers.')
    }
    const match = /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')
    if ((await merchantKeyOf(match?.[1], c.env)) === undefined) {
      throw new ApiError('unauthorized', 'A valid merchant API key is required.', undefined, {
        'WWW-Authenticate': 'Bearer',
      })
    }
    await next()
  }
}
