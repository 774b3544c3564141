/**
 * @module
 * The sandbox's AuthTokens: HS256 JWTs that expire, like the real gateway's one-hour tokens.
 */

const enc = new TextEncoder()

function b64url(bytes: Uint8Array | string): string {
  const raw = typeof bytes === 'string' ? bytes : String.fromCharCode(...bytes)
  return btoa(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

async function key(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', enc.encode(`sandbox-jwt:${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
}

export async function signToken(secret: string, claims: Record<string, string | number>, ttlSeconds: number, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000)
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(JSON.stringify({ ...claims, iat, exp: iat + ttlSeconds }))
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', await key(secret), enc.encode(`${head}.${body}`)))
  return `${head}.${body}.${b64url(sig)}`
}

/** The claims of a token this sandbox signed and that has not expired, else undefined. */
export async function verifyToken(secret: string, token: string, now = Date.now()): Promise<Record<string, unknown> | undefined> {
  const [head, body, sig] = token.split('.')
  if (!head || !body || !sig) return undefined
  let sigBytes: Uint8Array
  let claims: unknown
  try {
    sigBytes = Uint8Array.from(atob(sig.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0))
    claims = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/')))
  } catch {
    return undefined
  }
  const good = await crypto.subtle.verify('HMAC', await key(secret), sigBytes, enc.encode(`${head}.${body}`))
  if (!good || typeof claims !== 'object' || claims === null) return undefined
  const exp = (claims as { exp?: unknown }).exp
  return typeof exp === 'number' && exp * 1000 > now ? (claims as Record<string, unknown>) : undefined
}
