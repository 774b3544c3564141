/**
 * @module
 * Request rates per client, counted by Cloudflare's Rate Limiting binding so that the count holds
 * across isolates and machines (an in-memory counter would reset with every new isolate)
 * (SECURITY.md R23). Browser routes are counted per connecting address (`CF-Connecting-IP`, set by
 * Cloudflare, never by the client; an IPv6 one by its /64: ../network.ts), merchant routes per
 * merchant key (a hash of it, so the key itself is never a rate-limit key), the console's calls
 * per signed-in user and, for any other bearer and every console sign-in, per address. Over the limit: 429 `rate_limited` with
 * `Retry-After`. Limits and periods (10 or 60 s) are binding configuration (`[[ratelimits]]` in
 * wrangler.toml), not code; without a binding the scope is not limited.
 */
import type { MiddlewareHandler } from 'hono'
import { parse } from 'hono/utils/cookie'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { sha256Hex } from '../ids.ts'
import { log } from '../log.ts'
import { clientOf } from '../network.ts'
import { callerOf } from '../merchants/caller.ts'
import { consoleSigner, CONSOLE_COOKIE, readSession } from '../console/session.ts'

export type RateLimitScope = 'browser' | 'merchant'

/** The binding has no "time left": the longest period a binding can have. */
const RETRY_AFTER_S = 60

async function keyOf(scope: RateLimitScope, request: Request, env: Env): Promise<string> {
  // An IPv6 client is counted by its /64, one subscriber's network: rotating through its
  // addresses is no new client. An IPv4 address is one (a /24 may be a carrier's NAT of many).
  const ip = clientOf(request.headers.get('CF-Connecting-IP') ?? 'unknown')
  if (scope === 'browser') return `ip:${ip}`
  const bearer = /^Bearer (\S+)$/.exec(request.headers.get('Authorization') ?? '')?.[1]
  // A merchant's key has its own count; every other bearer (a guess, a typo, none) is counted
  // per address, so a guesser trying a new key on each request still runs into the limit.
  if (bearer !== undefined)
    return (await callerOf(request, env)) !== undefined
      ? `key:${(await sha256Hex(bearer)).slice(0, 32)}`
      : `guess:${ip}`
  // So does a console user, by a session this Worker signed (its cookie, not yet checked against
  // what it stands on: the route does that): a guesser's bad keys from the same network (an office
  // behind one address) do not use up a signed-in user's requests. One count per user (the key or
  // the Access user the session stands on), however many times they sign in. A forged or expired
  // cookie is a guess, and so is every sign-in, whose key comes in its body, whatever cookie it carries.
  const cookie = consoleCookie(request)
  const signer = cookie === undefined || isSignIn(request) ? undefined : consoleSigner(env)
  const session = signer && (await readSession(signer, cookie))
  return session ? `console:${(await sha256Hex(`${session.merchant}|${session.proof}`)).slice(0, 32)}` : `guess:${ip}`
}

/** The console's sign-in (`POST /console/api/session`): a key tried there is a guess until it holds. */
const isSignIn = (request: Request): boolean =>
  request.method === 'POST' && new URL(request.url).pathname.replace(/\/+$/, '') === '/console/api/session'

/** The console session's cookie on a request, if it carries one. */
function consoleCookie(request: Request): string | undefined {
  const header = request.headers.get('Cookie')
  return header ? parse(header, CONSOLE_COOKIE)[CONSOLE_COOKIE] : undefined
}

export function rateLimit(scope: RateLimitScope): MiddlewareHandler<{ Bindings: Env }> {
  return async function rateLimit(c, next) {
    const limiter = scope === 'browser' ? c.env.RATE_LIMIT_BROWSER : c.env.RATE_LIMIT_MERCHANT
    if (!limiter) return next()
    let allowed = true
    try {
      allowed = (await limiter.limit({ key: await keyOf(scope, c.req.raw, c.env) })).success
    } catch (e) {
      // A limiter that cannot answer must not take payments down: count it and let the request by.
      log.warn('rate_limit_unavailable', { scope, error: e })
    }
    if (!allowed) {
      // Counted before the session is read, so the allowed origins are not known yet: the widget
      // must still be able to read why it was refused, and this answer holds nothing else.
      const origin = scope === 'browser' ? c.req.header('Origin') : undefined
      const cors: Record<string, string> = origin
        ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'Retry-After', Vary: 'Origin' }
        : {}
      throw new ApiError('rate_limited', 'Too many requests. Please wait a moment and try again.', undefined, {
        'Retry-After': String(RETRY_AFTER_S),
        ...cors,
      })
    }
    await next()
  }
}
