/**
 * @module
 * The frame token: what the card frame's route needs of a session (the origins that may frame it),
 * signed by this Worker when the session is created, so `/frame/{id}?t=...` answers without
 * reading the session. In production the session's object lives where it was created, near the
 * merchant's server, and the shopper may be a continent away: a lookup there is a round trip on
 * the path to a usable form. Without a token, or with one that does not verify (another session's,
 * expired, altered, or signed under another key), the route reads the session as before.
 *
 * It also says which of the customer's inputs the merchant already gave (`givenName`, `surname`,
 * `email`: the widget does not ask for them), so the form the route writes is the one the shopper
 * fills in: no input the session does not need is shown, then taken away with what the shopper
 * typed in it, once the session is read.
 *
 * The token is not secret (it is in a URL, and says only which origins may frame an empty form
 * and which inputs it leaves out) but cannot be forged: an HMAC under a key derived from a
 * deployment secret. It holds the origins as they were when the session was created: a later
 * change to the allowed origins (a profile's, or the deployment's ALLOWED_ORIGINS) reaches frames
 * loaded with the token when the session expires (at most 24 hours), and nothing revokes a token
 * sooner but a change of the key it is signed under (`tokenSecret`; SECURITY.md R20).
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import { decodeBase64Url, encodeBase64Url } from 'hono/utils/encode'
import type { Env } from '../env.ts'
import { derivedKey, hmacHex } from '../ids.ts'
import { CUSTOMER } from '../../shared/card-inputs.ts'
import { isOrigin } from '../schemas/sessions.ts'
import { masterKey, previousMasterKey } from '../merchants/sealed.ts'
import { MIN_OWN_SECRET } from '../secrets.ts'

/** The customer's inputs a token may leave out of the form. */
const PREFILLABLE: readonly string[] = CUSTOMER.map((s) => s.id)

/** What a verified token says of its session. */
export interface FrameClaims {
  /** The origins that may frame it. */
  readonly origins: readonly string[]
  /** The customer's inputs the merchant gave (ids of `shared/card-inputs.ts`' CUSTOMER): the form leaves them out. */
  readonly prefilled: readonly string[]
}

/** The longest claim a token carries (ten origins of 100 characters fit): the frame's address stays short. */
const MAX_CLAIM = 1_100
/** 128 bits of the HMAC (hex): enough against forgery, short in a URL. */
const MAC_CHARS = 32

const encode = (text: string): string => encodeBase64Url(new TextEncoder().encode(text).buffer).replace(/=+$/, '')
const decode = (text: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(decodeBase64Url(text))
  } catch {
    return undefined
  }
}

/**
 * The deployment's secret for frame tokens: its profiles' key when it has one (the default
 * merchant's API key is blank in a profile's configuration), else its API key; none when neither
 * is a real key (a blank or placeholder value must not become a key anyone can guess), and then no
 * token is issued or believed. Both sides of a token (the creation, any merchant's; the frame
 * route, no merchant's) read the same.
 */
function tokenSecret(env: Env): string | undefined {
  const own = masterKey(env)
  if (own) return own
  const key = env.MERCHANT_API_KEY?.trim()
  return key && key.length >= MIN_OWN_SECRET ? key : undefined
}

async function mac(secret: string | undefined, id: string, claim: string): Promise<string | undefined> {
  if (!secret) return undefined
  const key = await derivedKey(secret, 'frame-token')
  return (await hmacHex(key, `${id}|${claim}`)).slice(0, MAC_CHARS)
}

/**
 * The token of session `id`, whose pages may be on `origins`, until `expiresAt` (ms), and whose
 * customer's inputs `prefilled` the merchant gave. None when an origin is not an exact origin
 * (none is: the deployment's ALLOWED_ORIGINS are taken as exact origins, worker/access.ts; a
 * guard), nor for a list too long for an address.
 */
export async function frameToken(
  env: Env,
  id: string,
  origins: readonly string[],
  expiresAt: number,
  prefilled: readonly string[] = [],
): Promise<string | undefined> {
  if (!origins.every(isOrigin)) return undefined
  // Exact origins hold no space or `|`, input ids no `,`: the claim splits back into what was
  // signed. A Worker of the release before reads the first two parts and ignores the third.
  const given = PREFILLABLE.filter((input) => prefilled.includes(input))
  const claim = `${Math.ceil(expiresAt / 1000)}|${origins.join(' ')}|${given.join(',')}`
  // Real origins are short; a list of long ones would make an address too long to load.
  if (claim.length > MAX_CLAIM) return undefined
  const signature = await mac(tokenSecret(env), id, claim)
  return signature === undefined ? undefined : `${encode(claim)}.${signature}`
}

/**
 * What `token` says of session `id` (the origins that may frame it, the inputs the form leaves
 * out); undefined when it does not verify or has expired. A token of the release before, with no
 * inputs in its claim, leaves none out.
 */
export async function frameTokenClaims(
  env: Env,
  id: string,
  token: string | undefined,
  now = Date.now(),
): Promise<FrameClaims | undefined> {
  const [body = '', given = '', ...rest] = (token ?? '').split('.')
  const claim = body.length <= 2 * MAX_CLAIM ? decode(body) : undefined
  if (rest.length > 0 || claim === undefined || given.length !== MAC_CHARS) return undefined
  // While the profiles' key rotates, a token signed under the key before it (a session created
  // before the deploy) still verifies.
  let verified = false
  for (const secret of [tokenSecret(env), previousMasterKey(env)]) {
    const expected = await mac(secret, id, claim)
    verified = expected !== undefined && (await timingSafeEqual(given, expected))
    if (verified) break
  }
  if (!verified) return undefined
  const [expires = '', list = '', inputs = ''] = claim.split('|')
  if (!(Number(expires) * 1000 > now)) return undefined
  const origins = list.split(' ').filter(Boolean)
  const prefilled = inputs.split(',').filter((input) => PREFILLABLE.includes(input))
  return origins.every(isOrigin) ? { origins, prefilled } : undefined
}
