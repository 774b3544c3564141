/**
 * @module
 * The console's session as a caller: what the console's sign-in route and the merchant API (the
 * console uses the same routes as a merchant's server: no second API) both ask of a request that
 * carries the session cookie instead of an API key. A session stands while it is signed, unexpired
 * and of the way the deployment signs in now, its merchant is active, and what it stands on still
 * holds: the API key that opened it (a revoke or rotation ends it), or, behind Access, the Access
 * JWT of the same user on this very request; and it was not signed out (a copy of its cookie taken
 * before is refused).
 */
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { timingSafeEqual } from 'hono/utils/buffer'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { DEFAULT_MERCHANT, keyHash, loadProfile } from '../merchants/profiles.ts'
import { sha256Hex } from '../ids.ts'
import { merchantKeys } from '../secrets.ts'
import { accessConfig, accessUser, merchantOfUser, type AccessConfig } from './access.ts'
import { consoleSigner, CONSOLE_COOKIE, readSession, type ConsoleSession, type Signer } from './session.ts'

type Ctx = Context<{ Bindings: Env }>

export const consoleEnabled = (env: Env): boolean => env.CONSOLE_ENABLED?.trim() === 'true'

export function signerOf(env: Env): Signer {
  const signer = consoleSigner(env)
  if (!signer) throw new ApiError('internal_error', 'The console is not configured.')
  return signer
}

/** Access's settings (undefined: sign in with a key); a half-set or non-https Access refuses both ways. */
export function accessOf(env: Env): AccessConfig | undefined {
  const access = accessConfig(env)
  if (access === 'misconfigured') throw new ApiError('internal_error', 'The console is not configured.')
  return access
}

/** An active merchant: the default one, or a profile that exists and is not disabled. */
export async function active(env: Env, merchant: string): Promise<boolean> {
  if (merchant === DEFAULT_MERCHANT) return true
  return (await loadProfile(env, merchant))?.status === 'active'
}

/**
 * What a key session stands on: its key's hash keyed by the signing secret, so the cookie (whose
 * payload anyone holding it can read) tells nothing that could be tried against the key offline.
 */
export const keyProof = async (signer: Signer, apiKey: string): Promise<string> =>
  proofOfHash(signer, await keyHash(apiKey))
const proofOfHash = (signer: Signer, hash: string): Promise<string> =>
  sha256Hex(`pay-checkout console key proof v1|${signer.secret}|${hash}`)

/** Whether the key that opened a session is one the merchant routes accept now (its merchant's active keys). */
async function keyStands(env: Env, session: ConsoleSession): Promise<boolean> {
  const signer = signerOf(env)
  const hashes =
    session.merchant === DEFAULT_MERCHANT
      ? await Promise.all(merchantKeys(env).map((key) => keyHash(key)))
      : (
          await env.DB.prepare('SELECT hash FROM merchant_keys WHERE merchant_id = ? AND revoked_at IS NULL')
            .bind(session.merchant)
            .all<{ hash: string }>()
        ).results.map((r) => r.hash)
  const proofs = await Promise.all(hashes.map((hash) => proofOfHash(signer, hash)))
  return proofs.includes(session.proof)
}

/**
 * Access's token on a request: the header Access adds to requests through its application (the
 * console's pages, `/console/*`), else its `CF_Authorization` cookie, which the browser sends with
 * the console's calls to the merchant routes (`/v1/*`, not behind Access: servers call them with keys).
 */
export const ACCESS_COOKIE = 'CF_Authorization'
const accessToken = (c: Ctx): string | undefined =>
  c.req.header('Cf-Access-Jwt-Assertion') ?? getCookie(c, ACCESS_COOKIE)

/** The Access user of this request and the merchant they act for, if Access vouches for them and that merchant is active. */
export async function accessUserFor(
  c: Ctx,
  access: AccessConfig,
): Promise<{ email: string; merchant: string } | undefined> {
  const email = await accessUser(access, accessToken(c))
  const merchant = email === undefined ? undefined : merchantOfUser(c.env, email)
  return email !== undefined && merchant !== undefined && (await active(c.env, merchant))
    ? { email, merchant }
    : undefined
}

/**
 * A session's name in `console_sign_outs`: a hash of its CSRF token (random, one per session), so
 * the table holds nothing a request could carry.
 */
const signOutId = (session: ConsoleSession): Promise<string> =>
  sha256Hex(`pay-checkout console sign-out v1|${session.csrf}`)

/**
 * Ends a session on the server: the cookie is signed, not stored, so clearing the browser's copy
 * would leave any other copy standing until its hour ends. Kept until then (the sweep deletes it).
 */
export async function signOut(env: Env, session: ConsoleSession): Promise<void> {
  await env.DB.prepare('INSERT OR IGNORE INTO console_sign_outs (session, expires_at) VALUES (?, ?)')
    .bind(await signOutId(session), session.exp)
    .run()
}

const signedOut = async (env: Env, session: ConsoleSession): Promise<boolean> =>
  (await env.DB.prepare('SELECT 1 FROM console_sign_outs WHERE session = ?')
    .bind(await signOutId(session))
    .first()) !== null

/** The session the request's cookie holds, if it stands (see the module's comment). */
export async function standingSession(c: Ctx): Promise<ConsoleSession | undefined> {
  const session = await readSession(signerOf(c.env), getCookie(c, CONSOLE_COOKIE))
  if (!session || (await signedOut(c.env, session))) return undefined
  const access = accessOf(c.env)
  if (access) {
    const user = session.via === 'access' ? await accessUserFor(c, access) : undefined
    return user?.email === session.proof && user.merchant === session.merchant ? session : undefined
  }
  return session.via === 'key' && (await active(c.env, session.merchant)) && (await keyStands(c.env, session))
    ? session
    : undefined
}

/** The Worker's own origin: the console's pages are served from it. */
export const ownOrigin = (env: Env): string => new URL(env.PUBLIC_BASE_URL).origin

/**
 * A request from the console's own pages: never from another site (`Sec-Fetch-Site`, `Origin`),
 * and a change (anything but GET and HEAD) names the Worker's origin and carries the session's
 * CSRF token in `X-CSRF-Token`. Throws 403 otherwise.
 */
export async function fromTheConsole(c: Ctx, csrf?: string): Promise<void> {
  const origin = c.req.header('Origin')
  const site = c.req.header('Sec-Fetch-Site')
  const change = c.req.method !== 'GET' && c.req.method !== 'HEAD'
  if ((site !== undefined && site !== 'same-origin') || (origin !== undefined && origin !== ownOrigin(c.env)))
    throw new ApiError('forbidden', 'Console requests come from the console itself.')
  if (!change) return
  if (origin === undefined) throw new ApiError('forbidden', 'Console requests come from the console itself.')
  if (csrf !== undefined && !(await timingSafeEqual(c.req.header('X-CSRF-Token') ?? '', csrf)))
    throw new ApiError('forbidden', 'The CSRF token is missing or wrong.')
}

/** The changes the console's pages make: a capture, a void, a refund, a webhook sent again. */
const CONSOLE_CHANGES = [
  /^\/v1\/payments\/[^/]+\/(?:capture|void|refunds)$/,
  /^\/v1\/webhooks\/deliveries\/[^/]+\/send-again$/,
]

/**
 * What a console session may do on the merchant routes: read, and the changes its pages make. A
 * repeat (a saved card charged), a new session, an invoice regeneration, an inquiry or a saved
 * card's deletion needs the API key, from the merchant's server: behind Access a support agent
 * signs in without ever holding the key, and `ACCESS_MERCHANTS` may let many in (`*@domain`).
 */
export const consoleMay = (method: string, path: string): boolean =>
  method === 'GET' || method === 'HEAD' || (method === 'POST' && CONSOLE_CHANGES.some((re) => re.test(path)))

/**
 * The merchant a console request acts for, on a merchant API route: its standing session (401
 * without one), from the console's pages (403 otherwise, the CSRF token included for changes).
 */
export function consoleCaller(c: Ctx): Promise<string> {
  // Asked once per request: /v1/payments mounts three route groups, each behind merchantAuth.
  let asked = callers.get(c.req.raw)
  if (!asked) {
    asked = (async () => {
      await fromTheConsole(c)
      const session = await standingSession(c)
      if (!session) throw new ApiError('unauthorized', 'Sign in to the console.')
      await fromTheConsole(c, session.csrf)
      return session.merchant
    })()
    callers.set(c.req.raw, asked)
  }
  return asked
}
const callers = new WeakMap<Request, Promise<string>>()
