/**
 * @module
 * The merchant console's sign-in (`/console/api/session`), off unless `CONSOLE_ENABLED` is `true`
 * (then 404, as a route that does not exist). Two ways in:
 * - behind Cloudflare Access (`ACCESS_TEAM_DOMAIN` and `ACCESS_AUD` set): `GET` verifies the Access
 *   JWT and opens a session for the user's merchant; signing in with a key is refused;
 * - without Access (local, small shops): `POST` with a merchant API key once, from the Worker's own
 *   origin; the key is checked as on the merchant routes and never kept.
 * Either way the answer is a signed, short-lived, HttpOnly session cookie (console/session.ts) and
 * the session's CSRF token; `DELETE` (with that token) signs out.
 */
import { Hono, type Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { timingSafeEqual } from 'hono/utils/buffer'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { accessConfig, accessUser, merchantOfUser, type AccessConfig } from '../console/access.ts'
import {
  consoleSigner,
  CONSOLE_COOKIE,
  cookieHeader,
  newSession,
  readSession,
  type ConsoleSession,
  type Signer,
} from '../console/session.ts'
import { merchantOfBearer } from '../merchants/caller.ts'
import { DEFAULT_MERCHANT, keyHash, loadProfile, merchantOfKeyHash } from '../merchants/profiles.ts'
import { merchantKeys } from '../secrets.ts'
import { errors } from '../schemas/doc.ts'

export const consoleRoutes = new Hono<{ Bindings: Env }>()

consoleRoutes.use('*', async (c, next) => {
  if (c.env.CONSOLE_ENABLED?.trim() !== 'true') throw new ApiError('not_found', 'No such route.')
  await next()
})

function signerOf(env: Env): Signer {
  const signer = consoleSigner(env)
  if (!signer) throw new ApiError('internal_error', 'The console is not configured.')
  return signer
}

/** Access's settings (undefined: sign in with a key); a half-set or non-https Access refuses both ways. */
function accessOf(env: Env): AccessConfig | undefined {
  const access = accessConfig(env)
  if (access === 'misconfigured') throw new ApiError('internal_error', 'The console is not configured.')
  return access
}

/**
 * Whether a key session still stands: its key is one the merchant routes accept now (a revoke or a
 * rotation of `MERCHANT_API_KEY` ends the sessions it opened).
 */
async function keyStands(env: Env, session: ConsoleSession): Promise<boolean> {
  if (session.merchant !== DEFAULT_MERCHANT) return (await merchantOfKeyHash(env, session.proof)) === session.merchant
  const current = await Promise.all(merchantKeys(env).map((key) => keyHash(key)))
  return current.includes(session.proof)
}

/** A change comes from the console's own pages: the Worker's origin, never another site. */
function sameOrigin(c: Context<{ Bindings: Env }>): void {
  const own = new URL(c.env.PUBLIC_BASE_URL).origin
  if (c.req.header('Origin') !== own || (c.req.header('Sec-Fetch-Site') ?? 'same-origin') !== 'same-origin')
    throw new ApiError('forbidden', 'Console changes come from the console itself.')
}

/** An active merchant: the default one, or a profile that exists and is not disabled. */
async function active(env: Env, merchant: string): Promise<boolean> {
  if (merchant === DEFAULT_MERCHANT) return true
  return (await loadProfile(env, merchant))?.status === 'active'
}

async function opened(
  c: Context<{ Bindings: Env }>,
  fields: Pick<ConsoleSession, 'merchant' | 'via' | 'proof'>,
): Promise<Response> {
  const { merchant, via } = fields
  const { session, cookie } = await newSession(signerOf(c.env), fields)
  c.header('Set-Cookie', cookieHeader(cookie))
  c.header('Cache-Control', 'no-store')
  return c.json({ merchant, csrfToken: session.csrf, expiresAt: new Date(session.exp).toISOString(), via })
}

const unauthorized = () => new ApiError('unauthorized', 'Sign in to the console.')

consoleRoutes.get(
  '/api/session',
  describeRoute({
    summary: 'The console session: behind Access, opened from the verified Access JWT; otherwise the signed-in one',
    operationId: 'getConsoleSession',
    responses: { '200': { description: 'The session (merchant, CSRF token)' }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    // Behind Access every request carries the user's JWT: it is verified each time, so a user
    // Access lets in no more is out at once.
    const access = accessOf(c.env)
    if (access) {
      const email = await accessUser(access, c.req.header('Cf-Access-Jwt-Assertion'))
      const merchant = email === undefined ? undefined : merchantOfUser(c.env, email)
      if (email === undefined || merchant === undefined || !(await active(c.env, merchant))) throw unauthorized()
      return opened(c, { merchant, via: 'access', proof: email })
    }
    const session = await readSession(signerOf(c.env), getCookie(c, CONSOLE_COOKIE))
    if (
      !session ||
      session.via !== 'key' ||
      !(await active(c.env, session.merchant)) ||
      !(await keyStands(c.env, session))
    )
      throw unauthorized()
    c.header('Cache-Control', 'no-store')
    return c.json({
      merchant: session.merchant,
      csrfToken: session.csrf,
      expiresAt: new Date(session.exp).toISOString(),
      via: session.via,
    })
  },
)

consoleRoutes.post(
  '/api/session',
  describeRoute({
    summary: 'Sign in to the console with a merchant API key (only without Access); the key is not kept',
    operationId: 'signInToConsole',
    responses: { '200': { description: 'The session (merchant, CSRF token)' }, ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    if (accessOf(c.env)) throw new ApiError('forbidden', 'This console signs in through Cloudflare Access.')
    sameOrigin(c)
    let apiKey: unknown
    try {
      apiKey = ((await c.req.json()) as { apiKey?: unknown }).apiKey
    } catch {
      throw new ApiError('invalid_request', 'The body is not JSON.')
    }
    if (typeof apiKey !== 'string' || apiKey === '' || apiKey.length > 256)
      throw new ApiError('invalid_request', 'An API key is required.', [
        { field: 'apiKey', code: 'required', expected: 'a merchant API key' },
      ])
    const merchant = await merchantOfBearer(apiKey, c.env)
    if (merchant === undefined) throw new ApiError('unauthorized', 'A valid merchant API key is required.')
    return opened(c, { merchant, via: 'key', proof: await keyHash(apiKey) })
  },
)

consoleRoutes.delete(
  '/api/session',
  describeRoute({
    summary: 'Sign out of the console (X-CSRF-Token required)',
    operationId: 'signOutOfConsole',
    responses: { '204': { description: 'Signed out' }, ...errors(401, 403, 404, 429) },
  }),
  async (c) => {
    sameOrigin(c)
    const session = await readSession(signerOf(c.env), getCookie(c, CONSOLE_COOKIE))
    if (!session) throw unauthorized()
    if (!(await timingSafeEqual(c.req.header('X-CSRF-Token') ?? '', session.csrf)))
      throw new ApiError('forbidden', 'The CSRF token is missing or wrong.')
    c.header('Set-Cookie', cookieHeader(undefined))
    return c.body(null, 204)
  },
)
