/**
 * @module
 * Where the `AuthToken` header comes from: a configured token, or one generated through the
 * authToken endpoint (facts sheet), cached per isolate and refreshed before its one-hour expiry.
 * With a keeper (the `TokenKeeper` Durable Object, one per merchant, service and secure key: ./token-keeper.ts),
 * an isolate that has no fresh token asks the keeper, not the gateway, so the gateway sees one
 * token request per merchant and service per token lifetime, however many isolates run.
 * The token never leaves the Worker: it is not logged, stored or returned to a browser.
 */
import { AUTH_TOKEN_RESPONSE, INVOICE_AUTH_TOKEN_PATH, OPERATION_PATHS } from '../../shared/fields.ts'
import { readFields } from '../../shared/read.ts'
import { encodeForm } from '../../shared/gateway/form.ts'

/** Which token service: invoice calls have their own authToken endpoint. */
export type TokenService = 'transaction' | 'invoice'

export interface TokenSource {
  readonly baseUrl: string
  /** A fixed token handed to the merchant; when set, nothing is generated. */
  readonly authToken?: string
  readonly partnerId?: string
  readonly merchantUsername?: string
  readonly secureKey: string
  readonly timeoutMs: number
  readonly fetch: typeof fetch
  /** Where isolates get a generated token (one keeper per merchant, service and secure key); without one, from the gateway. */
  readonly keeper?: TokenKeeping
}

/** A generated token with its expiry, or why there is none. */
export type KeptToken =
  | { readonly ok: true; readonly token: string; readonly expiresAt: number }
  | { readonly ok: false; readonly reason: 'refused' | 'unreachable' }

/** What the keeper asks the gateway with: the caller's credentials (the keeper holds none of its own). */
export type KeeperCredentials = Pick<
  TokenSource,
  'baseUrl' | 'partnerId' | 'merchantUsername' | 'secureKey' | 'timeoutMs'
>

/** The keeper as isolates use it: the token of a service, a new one when `refused` is the one it holds. */
export interface TokenKeeping {
  token(service: TokenService, credentials: KeeperCredentials, refused?: string): Promise<KeptToken>
}

/** A generated token lives one hour; we refresh this long before it ends. */
export const REFRESH_MARGIN_MS = 5 * 60_000
const DEFAULT_LIFETIME_MS = 60 * 60_000

interface Cached {
  readonly token: string
  readonly expiresAt: number
}

/** Per-isolate cache; the key holds no secret (the partner and user names identify the token). */
const cache = new Map<string, Cached>()
const inflight = new Map<string, Promise<TokenResult>>()
/** A token the gateway refused, per key: the keeper is told, so it does not hand the same one back. */
const refusedTokens = new Map<string, string>()

/** The `exp` claim of a JWT in milliseconds, if it has one; the token is not trusted for anything else. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1]
  if (!payload) return undefined
  try {
    const json: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')))
    const exp = typeof json === 'object' && json !== null ? (json as { exp?: unknown }).exp : undefined
    return typeof exp === 'number' ? exp * 1000 : undefined
  } catch {
    return undefined
  }
}

export function cacheKey(
  source: Pick<TokenSource, 'baseUrl' | 'partnerId' | 'merchantUsername'>,
  service: TokenService,
): string {
  return `${service}|${source.baseUrl}|${source.partnerId ?? ''}|${source.merchantUsername ?? ''}`
}

/**
 * The isolate's cache of tokens is keyed by the secure key too (in memory only): a token asked for
 * with one merchant's key is never handed to a caller holding another, as with the keepers.
 */
const isolateKey = (source: TokenSource, service: TokenService): string =>
  `${cacheKey(source, service)}|${source.secureKey}`

/** A token, or why there is none: the gateway refused the credentials, or could not be reached. */
export type TokenResult =
  { readonly ok: true; readonly token: string } | { readonly ok: false; readonly reason: 'refused' | 'unreachable' }

/** One token request to the gateway (the keeper's, or an isolate's without a keeper). */
export async function generate(source: TokenSource, service: TokenService): Promise<KeptToken> {
  // No credentials to ask with is a configuration the gateway would refuse.
  if (!source.partnerId || !source.merchantUsername) return { ok: false, reason: 'refused' }
  const path = service === 'invoice' ? INVOICE_AUTH_TOKEN_PATH : OPERATION_PATHS.authToken
  let body: unknown
  try {
    const res = await source.fetch(new URL(path, source.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: encodeForm({
        'authentication.partnerId': source.partnerId,
        'merchant.username': source.merchantUsername,
        'authentication.sKey': source.secureKey,
      }),
      signal: AbortSignal.timeout(source.timeoutMs),
      // Never followed: a redirect would send the secure key to another address.
      redirect: 'manual',
    })
    // 401/403 is the token service's refusal; any other failure status is an outage.
    if (res.status === 401 || res.status === 403) return { ok: false, reason: 'refused' }
    if (!res.ok) return { ok: false, reason: 'unreachable' }
    body = await res.json()
  } catch {
    // Network, DNS, TLS, timeout or a body that is not JSON (a proxy's error page).
    return { ok: false, reason: 'unreachable' }
  }
  const read = readFields(AUTH_TOKEN_RESPONSE, body)
  if (!read.ok) return { ok: false, reason: 'unreachable' }
  if (read.value.resultCode !== '200' || !read.value.authToken) return { ok: false, reason: 'refused' }
  const token = read.value.authToken
  return { ok: true, token, expiresAt: jwtExpiry(token) ?? Date.now() + DEFAULT_LIFETIME_MS }
}

function credentialsOf(source: TokenSource): KeeperCredentials {
  return {
    baseUrl: source.baseUrl,
    secureKey: source.secureKey,
    timeoutMs: source.timeoutMs,
    ...(source.partnerId ? { partnerId: source.partnerId } : {}),
    ...(source.merchantUsername ? { merchantUsername: source.merchantUsername } : {}),
  }
}

/**
 * The keeper's token; if the keeper cannot be reached (a deploy resets the objects, or it is
 * overloaded), this isolate asks the gateway itself: a pay never fails for want of the keeper.
 */
async function fromKeeper(source: TokenSource, service: TokenService, refused: string | undefined): Promise<KeptToken> {
  try {
    return await (source.keeper as TokenKeeping).token(service, credentialsOf(source), refused)
  } catch {
    return generate(source, service)
  }
}

/** From the keeper when there is one (told which token was refused, if any), else from the gateway; cached here. */
async function fetchToken(source: TokenSource, service: TokenService, key: string): Promise<TokenResult> {
  const refused = refusedTokens.get(key)
  const got = source.keeper ? await fromKeeper(source, service, refused) : await generate(source, service)
  if (!got.ok) return got
  refusedTokens.delete(key)
  cache.set(key, { token: got.token, expiresAt: got.expiresAt })
  return { ok: true, token: got.token }
}

/**
 * The token to send, or why there is none (the credentials were refused, or the gateway could
 * not be reached). Concurrent callers share one generation request.
 */
export async function getAuthToken(source: TokenSource, service: TokenService, now = Date.now()): Promise<TokenResult> {
  if (source.authToken) return { ok: true, token: source.authToken }
  const key = isolateKey(source, service)
  const cached = cache.get(key)
  if (cached && cached.expiresAt - REFRESH_MARGIN_MS > now) return { ok: true, token: cached.token }
  const running = inflight.get(key)
  if (running) return running
  const p = fetchToken(source, service, key).finally(() => inflight.delete(key))
  inflight.set(key, p)
  return p
}

/** Drops a cached token the gateway refused, so the next call generates a fresh one. */
export function invalidateAuthToken(source: TokenSource, service: TokenService): boolean {
  if (source.authToken) return false
  const key = isolateKey(source, service)
  const cached = cache.get(key)
  if (cached) refusedTokens.set(key, cached.token)
  return cache.delete(key)
}
