/**
 * @module
 * A browser's card pay as the session object receives it: the request as the Worker read it
 * (nothing decided yet), turned here into the attempt to make or the refusal to send. The session
 * object does all of it in the one call that also makes the payment, so the hot path is a single
 * round trip into the session (and the velocity object it calls itself). The admission (breaker,
 * Turnstile) is the route's, decided before: see routes/checkout.ts.
 */
import { containsBrandCardNumber, detectBrand } from '../../shared/card.ts'
import type { FieldError } from '../../shared/errors.ts'
import { err, ok, type Result } from '../../shared/result.ts'
import { flatten } from '../../shared/validate.ts'
import type { Env } from '../env.ts'
import { derivedKey, hmacHex, sha256Hex } from '../ids.ts'
import type { PayInput } from '../checkout/methods/card.ts'
import { RETURN_PAGE_EXPECTED } from '../schemas/checkout.ts'
import { isOwnOrigin, originAllowed } from '../access.ts'
import { idempotencyKeyMessage } from '../schemas/idempotency-key.ts'
import { parsePayBody } from '../schemas/parse.ts'
import { fail, type Reply } from '../reply.ts'
import type { CheckoutView, SessionRecord } from './types.ts'

export interface PayRequest {
  /** The page's `Origin` header and `Sec-Fetch-Site`, for the origin check (R21). */
  readonly origin?: string | undefined
  readonly secFetchSite?: string | undefined
  /** The bearer: the session's client secret (R2). */
  readonly secret?: string | undefined
  /** The Idempotency-Key header, or what is wrong with it (told only after the access check). */
  readonly idempotencyKey: string | FieldError
  /** The JSON body, or the refusal for it (told only after the access check). */
  readonly body: Result<Record<string, unknown>, Reply>
  /** The connecting address, as Cloudflare reports it. */
  readonly ip: string
  /** Attempts allowed per card in ten minutes, across sessions (the deployment's setting). */
  readonly velocityLimit: number
}

/** What the route sends: a refused origin (403), no such checkout for this secret (404), or the reply. */
export type PayAnswer =
  | { readonly access: 'origin_refused' }
  | { readonly access: 'not_found' }
  | {
      readonly access: 'granted'
      readonly reply: Reply
      /** Seconds, for `Retry-After`. */ readonly retryAfter?: string
    }

/**
 * The request's own checks against the session's view: the attempt, or the refusal. `customer` is
 * the session's own record of the customer, not the view's, which drops it once the session is
 * final (R2): a pay sent again after its answer was lost must read as it did the first time, so
 * that its key replays the payment (R16) rather than asking for the details the form never had.
 */
export async function payInputOf(
  view: CheckoutView,
  customer: SessionRecord['customer'],
  sessionOrigins: readonly string[],
  req: PayRequest,
  env: Env,
): Promise<Result<PayInput, Reply>> {
  const card = view.methods.includes('card')
  const saved = view.methods.includes('saved-card')
  if (!card && !saved) return err(fail('forbidden', 'This checkout does not offer card payments.'))
  if (typeof req.idempotencyKey !== 'string')
    return err(fail('invalid_request', idempotencyKeyMessage(req.idempotencyKey), [req.idempotencyKey]))
  if (!req.body.ok) return err(req.body.error)
  const body = req.body.value
  // A session offering both card methods: a card number means a new card, the CVV alone the saved one.
  const method = card && (!saved || flatten(body)['card.number'] !== undefined) ? 'card' : 'saved-card'
  const parsed = parsePayBody(body, method, customer ?? undefined, view.savedCard?.brand)
  if (!parsed.ok) {
    const message =
      parsed.error.code === 'param_mismatch'
        ? 'The amount, currency and order are fixed by the checkout session.'
        : 'Some fields are missing or invalid.'
    return err(fail(parsed.error.code, message, parsed.error.fields))
  }
  const { shopper, returnPage } = parsed.value
  // Only a page on an origin this checkout allows: the result page links there (no open redirect).
  const page = returnPage === undefined ? undefined : pageOn(returnPage, sessionOrigins, env)
  if (page === null)
    return err(
      fail('invalid_request', 'Some fields are missing or invalid.', [
        { field: 'returnPage', code: 'invalid_value', expected: RETURN_PAGE_EXPECTED },
      ]),
    )
  // A keyed hash of the card number: the velocity key and the idempotency fingerprint (R11, R15).
  // The key is derived once per isolate, not per request.
  const pepper = await derivedKey(env.SECURE_KEY, 'pay-checkout card fingerprint v1')
  const cardHash = shopper.cardNumber ? await hmacHex(pepper, shopper.cardNumber) : ''
  const canonical = Object.entries(shopper)
    .filter(([k]) => k !== 'cardNumber' && k !== 'cvv')
    .sort(([a], [b]) => a.localeCompare(b))
  const fingerprint = await sha256Hex(
    JSON.stringify({ canonical, cardHash, brand: detectBrand(shopper.cardNumber ?? '') ?? null }),
  )
  return ok({
    method,
    idempotencyKey: req.idempotencyKey,
    fingerprint,
    shopper,
    ip: req.ip,
    velocityLimit: req.velocityLimit,
    ...(cardHash ? { cardHash } : {}),
    ...(page ? { returnPage: page } : {}),
  })
}

/**
 * Whether a new attempt may start now, as the route decided it (deployment-wide policy, not the
 * session's): a burst of declines across the deployment (card testing) trips the breaker, and new
 * attempts then need Turnstile, or wait where Turnstile is not configured (R10, R12).
 */
export type Admission =
  | { readonly ok: true }
  | { readonly ok: false; readonly reply: Reply; /** Seconds, for `Retry-After`. */ readonly retryAfter?: string }

export const ADMITTED: Admission = { ok: true }

/** The breaker is tripped and there is no Turnstile to let attempts through: wait until it resets. */
export function paused(until: number, now = Date.now()): Admission {
  return {
    ok: false,
    reply: fail('payments_paused', 'Card payments are paused for a few minutes. Please try again later.'),
    retryAfter: String(Math.max(1, Math.ceil((until - now) / 1000))),
  }
}

export const BOT_CHECK_FAILED: Admission = {
  ok: false,
  reply: fail('forbidden', 'The bot check failed. Please try again.', [
    {
      field: 'turnstileToken',
      code: 'invalid_value',
      expected: 'a fresh token from the Turnstile widget on this page',
    },
  ]),
}

/**
 * The page as a link: its origin and path only (a query, fragment or `;` parameters may hold what
 * the page was handed, such as the client secret or a session id: never stored), and only on an
 * allowed origin (else null). On the Worker's own origins, only its pages (the demo shop), never
 * an API route or a frame: a link to another session's return would be someone else's page. A
 * path that holds a card number (of a known brand: a long order number in a path is common, a card
 * is not) is not kept (undefined): the pay goes on, and the result page links to the page kept
 * before, else to the shop's root.
 */
export function pageOn(url: string, sessionOrigins: readonly string[], env: Env): string | null | undefined {
  try {
    const u = new URL(url)
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !originAllowed(u.origin, sessionOrigins, env))
      return null
    if (isOwnOrigin(u.origin, env) && WORKER_PATH.test(routedPath(u))) return null
    const page = u.origin + (u.pathname.split(';')[0] ?? '')
    return containsBrandCardNumber(unescaped(page)) ? undefined : page
  } catch {
    return null
  }
}

/** The Worker's own routes: API, frames, widget files. */
const WORKER_PATH = /^\/(v1|frame|widget)(\/|$)/i

/**
 * The path as a router could see it: percent-decoding undone (as often as it was applied, so `%76`,
 * `%2F`, `%2e%2e` and `%2576` all show what they stand for), then dot segments and backslashes
 * resolved by the URL parser again. A path that does not decode cleanly throws (refused).
 */
function routedPath(u: URL): string {
  let path = u.pathname
  for (let i = 0; i < 4 && /%[0-9a-f]{2}/i.test(path); i++)
    path = new URL(decodeURIComponent(path).replaceAll('\\', '/'), u.origin).pathname
  return path
}

/**
 * The text with its percent-escapes undone as often as they were applied (`%34`, `%2534`, a
 * full-width digit's three bytes), each run of escapes alone, so that a malformed one (left as it
 * is) hides none of the others.
 */
function unescaped(text: string): string {
  const run = (escapes: string) => {
    try {
      return decodeURIComponent(escapes)
    } catch {
      return escapes
    }
  }
  let out = text
  for (let i = 0; i < 4 && /%[0-9a-f]{2}/i.test(out); i++) out = out.replace(/(?:%[0-9a-f]{2})+/gi, run)
  return out
}
