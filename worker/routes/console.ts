/**
 * @module
 * The merchant console's sign-in (`/console/api/session`), off unless `CONSOLE_ENABLED` is `true`
 * (then 404, as a route that does not exist). Two ways in:
 * - behind Cloudflare Access (`ACCESS_TEAM_DOMAIN` and `ACCESS_AUD` set): `GET` verifies the Access
 *   JWT and opens a session for the user's merchant; signing in with a key is refused;
 * - without Access (local, small shops): `POST` with a merchant API key once, from the Worker's own
 *   origin; the key is checked as on the merchant routes and never kept.
 * Either way the answer is a signed, short-lived, HttpOnly session cookie (console/session.ts) and
 * the session's CSRF token; `DELETE` (with that token) signs out. With the cookie, the console's
 * pages call the merchant API itself (middleware/merchant-auth.ts, console/caller.ts).
 */
import { Hono, type Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import {
  accessOf,
  accessUserFor,
  consoleEnabled,
  fromTheConsole,
  keyProof,
  signerOf,
  signOut,
  standingSession,
} from '../console/caller.ts'
import { CONSOLE_COOKIE, cookieHeader, newSession, readSession, type ConsoleSession } from '../console/session.ts'
import { merchantOfBearer } from '../merchants/caller.ts'
import { CONSOLE_HEADERS, consolePage } from '../console/page.ts'
import { errors } from '../schemas/doc.ts'

export const consoleRoutes = new Hono<{ Bindings: Env }>()

consoleRoutes.use('*', async (c, next) => {
  if (!consoleEnabled(c.env)) throw new ApiError('not_found', 'No such route.')
  await next()
})

/** `GET /console/` (mounted by the app at that path: this group's own paths are under /console). */
export const consolePageRoute = new Hono<{ Bindings: Env }>()
consolePageRoute.get(
  '/console/',
  describeRoute({
    summary: 'The merchant console (HTML): payments, their timelines and actions, webhooks, an overview',
    operationId: 'getConsolePage',
    responses: { '200': { description: 'HTML' }, ...errors(404) },
  }),
  (c) => {
    if (!consoleEnabled(c.env)) throw new ApiError('not_found', 'No such route.')
    return c.html(consolePage(accessOf(c.env) ? 'access' : 'key'), 200, { ...CONSOLE_HEADERS })
  },
)

consoleRoutes.get(
  '/',
  describeRoute({
    summary: 'To the console page, /console/ (one address for it)',
    operationId: 'redirectToConsolePage',
    responses: { '308': { description: 'To /console/' }, ...errors(404) },
  }),
  (c) => c.redirect('/console/', 308),
)

const unauthorized = () => new ApiError('unauthorized', 'Sign in to the console.')

const sessionBody = (session: ConsoleSession) => ({
  merchant: session.merchant,
  csrfToken: session.csrf,
  expiresAt: new Date(session.exp).toISOString(),
  via: session.via,
})

async function opened(
  c: Context<{ Bindings: Env }>,
  fields: Pick<ConsoleSession, 'merchant' | 'via' | 'proof'>,
): Promise<Response> {
  const { session, cookie } = await newSession(signerOf(c.env), fields)
  c.header('Set-Cookie', cookieHeader(cookie))
  c.header('Cache-Control', 'no-store')
  return c.json(sessionBody(session))
}

consoleRoutes.get(
  '/api/session',
  describeRoute({
    summary: 'The console session: behind Access, opened from the verified Access JWT; otherwise the signed-in one',
    operationId: 'getConsoleSession',
    responses: { '200': { description: 'The session (merchant, CSRF token)' }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    await fromTheConsole(c)
    // Behind Access every request carries the user's JWT: it is verified each time, so a user
    // ACCESS_MERCHANTS names no more, or whose token has expired, is out at once.
    const access = accessOf(c.env)
    if (access) {
      const user = await accessUserFor(c, access)
      if (!user) throw unauthorized()
      return opened(c, { merchant: user.merchant, via: 'access', proof: user.email })
    }
    const session = await standingSession(c)
    if (!session) throw unauthorized()
    c.header('Cache-Control', 'no-store')
    return c.json(sessionBody(session))
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
    await fromTheConsole(c)
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
    return opened(c, { merchant, via: 'key', proof: await keyProof(signerOf(c.env), apiKey) })
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
    await fromTheConsole(c)
    const session = await readSession(signerOf(c.env), getCookie(c, CONSOLE_COOKIE))
    if (!session) throw unauthorized()
    await fromTheConsole(c, session.csrf)
    await signOut(c.env, session)
    c.header('Set-Cookie', cookieHeader(undefined))
    return c.body(null, 204)
  },
)
