/**
 * @module
 * Sign-in through Cloudflare Access: Access sits in front of `/console/` and sends the signed-in
 * user's identity as a JWT (`Cf-Access-Jwt-Assertion`). It is believed only once verified with
 * jose: its signature against the team's published keys (`{ACCESS_TEAM_DOMAIN}/cdn-cgi/access/certs`,
 * fetched and cached by jose's remote key set), its issuer (the team), its audience (the Access
 * application's tag, `ACCESS_AUD`) and its expiry. The user's email then names the merchant they
 * act for (`ACCESS_MERCHANTS`), never anything the browser says.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose'
import type { Env } from '../env.ts'

export interface AccessConfig {
  readonly team: string
  readonly audience: string
}

/**
 * Access's settings, when both are set: the console then signs in through Access only. One without
 * the other, or a team address that is not https (http only on this machine, for tests), is a
 * mistake that must not fall back to signing in with a key: `misconfigured`.
 */
export function accessConfig(env: Env): AccessConfig | 'misconfigured' | undefined {
  const team = env.ACCESS_TEAM_DOMAIN?.trim().replace(/\/+$/, '')
  const audience = env.ACCESS_AUD?.trim()
  if (!team && !audience) return undefined
  if (!team || !audience) return 'misconfigured'
  try {
    const url = new URL(team)
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost'
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback) ? { team, audience } : 'misconfigured'
  } catch {
    return 'misconfigured'
  }
}

/** Plain ASCII, exactly one `@`: no look-alike letters or a second domain to match a `*@domain` rule. */
const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$/

const keySets = new Map<string, JWTVerifyGetKey>()

function teamKeys(team: string): JWTVerifyGetKey {
  let keys = keySets.get(team)
  if (!keys) {
    keys = createRemoteJWKSet(new URL(`${team}/cdn-cgi/access/certs`))
    keySets.set(team, keys)
  }
  return keys
}

/** The verified user's email, or undefined (no token, a forged or expired one, another application's). */
export async function accessUser(config: AccessConfig, token: string | undefined): Promise<string | undefined> {
  if (!token) return undefined
  try {
    const { payload } = await jwtVerify(token, teamKeys(config.team), {
      issuer: config.team,
      audience: config.audience,
      algorithms: ['RS256'],
      // A token without an expiry would be good for ever.
      requiredClaims: ['exp', 'iat'],
      maxTokenAge: '24h',
    })
    return typeof payload.email === 'string' && EMAIL.test(payload.email) ? payload.email.toLowerCase() : undefined
  } catch {
    return undefined
  }
}

/**
 * The merchant an Access user acts for: `ACCESS_MERCHANTS` maps emails, `*@domain` or `*` (everyone
 * Access lets in) to merchant ids. Unset, or a user it does not name: no one. Who may act for a
 * merchant is said here, not left to however wide the Access policy is.
 */
export function merchantOfUser(env: Env, email: string): string | undefined {
  let map: Record<string, unknown>
  try {
    map = JSON.parse(env.ACCESS_MERCHANTS?.trim() || '{}') as Record<string, unknown>
  } catch {
    return undefined
  }
  const rules = new Map(Object.entries(map).map(([k, v]) => [k.toLowerCase(), v]))
  const found = rules.get(email) ?? rules.get(`*@${email.split('@')[1] ?? ''}`) ?? rules.get('*')
  return typeof found === 'string' ? found : undefined
}
