/**
 * @module
 * The platform API (`/v1/platform/*`): `Authorization: Bearer <PLATFORM_API_KEY>`, the partner's
 * key, compared in constant time. A deployment without the key (or with a short placeholder) has
 * no platform API: every such route is 404, as a route that does not exist. Server to server only,
 * like the merchant routes: a browser `Origin` is refused.
 */
import type { MiddlewareHandler } from 'hono'
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'

/** Our own keys are long random strings: a shorter one is a placeholder. */
const MIN_PLATFORM_KEY = 24

export function platformAuth(): MiddlewareHandler<{ Bindings: Env }> {
  return async function platformAuth(c, next) {
    const key = c.env.PLATFORM_API_KEY?.trim()
    if (!key || key.length < MIN_PLATFORM_KEY) throw new ApiError('not_found', 'No such route.')
    if (c.req.header('Origin') !== undefined)
      throw new ApiError('forbidden', 'The platform API is for your server, not for browsers.')
    const bearer = /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')?.[1]
    if (bearer === undefined || !(await timingSafeEqual(bearer, key)))
      throw new ApiError('unauthorized', 'A valid platform API key is required.', undefined, {
        'WWW-Authenticate': 'Bearer',
      })
    await next()
  }
}
