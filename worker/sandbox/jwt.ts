/**
 * @module
 * The sandbox's AuthTokens: HS256 JWTs that expire, like the real gateway's one-hour tokens
 * (signed and verified by Hono's JWT helper).
 */
import { sign, verify } from 'hono/jwt'

/** The signing secret: derived from the sandbox's secure key, so the key itself never signs a token. */
const secretOf = (secureKey: string): string => `sandbox-jwt:${secureKey}`

export async function signToken(
  secureKey: string,
  claims: Record<string, string | number>,
  ttlSeconds: number,
  now = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000)
  return sign({ ...claims, iat, exp: iat + ttlSeconds }, secretOf(secureKey), 'HS256')
}

/** The claims of a token this sandbox signed and that has not expired, else undefined. */
export async function verifyToken(secureKey: string, token: string): Promise<Record<string, unknown> | undefined> {
  try {
    const claims = await verify(token, secretOf(secureKey), 'HS256')
    // A token without an expiry was not issued here.
    return typeof claims.exp === 'number' ? claims : undefined
  } catch {
    return undefined
  }
}
