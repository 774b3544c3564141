/**
 * @module
 * Merchant webhooks, signed the Stripe way:
 * `Pay-Signature: t=<unix>,v1=<hex HMAC-SHA256(WEBHOOK_SECRET, t + "." + body)>` (SECURITY.md R27),
 * with a second `v1=` (the next secret's) while a secret rolls.
 * `verifyWebhook` is the helper merchants use on their side; it runs in Node 18+, Bun, Deno, Workers
 * and browsers (WebCrypto only: the global one, or on Node 18, where it is not global without a
 * flag, `node:crypto`'s `webcrypto`).
 */
import { hmacSha256Hex } from '../hex.ts'

/**
 * Any signed event, as `verifyWebhook` answers it: its `type` may be one this code does not know yet
 * (a newer one). `isKnownEvent` (`pay-checkout/server`) narrows it to `PayWebhookEvent`, whose
 * `data` is typed by event type from the API document's `webhooks`.
 */
export interface WebhookEvent {
  /** Stable per event: a receiver that sees an id twice processes it once. */
  readonly id: string
  readonly type: string
  /** Unix seconds. */
  readonly created: number
  readonly data: Record<string, unknown>
}

/** Receivers reject signatures older than this (stripe-node's DEFAULT_TOLERANCE). */
export const DEFAULT_TOLERANCE_S = 300

/**
 * HMAC-SHA256 as hex with the global WebCrypto (Node 19+, Bun, Deno, Workers, browsers); on Node 18,
 * where the global `crypto` is missing, with `node:crypto`'s `webcrypto`. That import is reached
 * only there, and its specifier is a variable so bundlers for browsers and Workers leave it alone.
 */
async function hmac(secret: string, message: string): Promise<string> {
  // `typeof`: an undeclared global (Node 18) reads as 'undefined' instead of throwing.
  if (typeof crypto === 'object' && crypto?.subtle) return hmacSha256Hex(secret, message)
  const nodeCrypto = 'node:crypto'
  const { subtle } = ((await import(/* @vite-ignore */ nodeCrypto)) as { webcrypto: Crypto }).webcrypto
  return hmacSha256Hex(secret, message, subtle)
}

/**
 * The `Pay-Signature` header value for a raw body: one `v1=` per secret (several while a secret
 * rolls, as Stripe sends them), so a receiver holding any one of them verifies it.
 */
export async function signatureHeader(
  secrets: string | readonly string[],
  body: string,
  t = Math.floor(Date.now() / 1000),
): Promise<string> {
  const all = typeof secrets === 'string' ? [secrets] : secrets
  const signatures = await Promise.all(all.map((secret) => hmac(secret, `${t}.${body}`)))
  return [`t=${t}`, ...signatures.map((v) => `v1=${v}`)].join(',')
}

/** Equal-length hex compared without an early exit. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

export type VerifyResult =
  | { ok: true; event: WebhookEvent }
  | { ok: false; reason: 'malformed_header' | 'too_old' | 'bad_signature' | 'malformed_body' | 'replayed' }

export interface VerifyOptions {
  /**
   * Largest accepted age (and clock skew) of the signature's timestamp, in seconds; default 300.
   * Must be a finite number greater than 0: anything else (`0`, a negative number, `NaN`,
   * `Infinity`, e.g. from an unset environment variable read with `Number()`) throws a
   * `TypeError`, since it would otherwise accept signatures of any age (SECURITY.md R27).
   */
  toleranceS?: number
  /** The current time in milliseconds (tests). */
  now?: number
  /**
   * Replay protection. A valid signature proves who sent an event, not that it is the first time
   * you see it: within the tolerance window the same request can be sent again, and pay-checkout
   * itself re-sends an event until your endpoint answers 2xx. Pass `seen` to de-duplicate by the
   * event's stable `id`: it is called only after the signature and age checks pass, and when it
   * answers `true` the result is `{ ok: false, reason: 'replayed' }`. Record the id atomically
   * (e.g. `INSERT ... ON CONFLICT DO NOTHING` and answer whether the row existed) and keep ids for
   * at least the tolerance window; answer a replay with 2xx so it is not sent again. `seen` runs
   * before your handler: if the process can stop between the two, an event marked seen is never
   * handled. Then pass no `seen`, and record the id in the same transaction as what the event
   * changes (skipping an id already there).
   */
  seen?: (eventId: string) => boolean | Promise<boolean>
}

/**
 * Verifies a webhook from pay-checkout. Pass the raw body exactly as received, the header (as
 * `Request.headers.get` or Node's `req.headers` give it), and one secret or several (during a
 * secret roll, any of them may have signed it). An empty or unset secret in the list is skipped,
 * so `[process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_NEXT]` works before and during a roll.
 *
 * @throws TypeError when `toleranceS` is not a finite number greater than 0, or when no secret is
 * left (every one empty or unset: a receiver with no secret must not answer as if it checked).
 * @example
 * const result = await verifyWebhook(await req.text(), req.headers.get('Pay-Signature'), process.env.WEBHOOK_SECRET, {
 *   seen: async (id) => !(await db.insertEventIdIfAbsent(id)),
 * })
 * if (!result.ok) return new Response(result.reason, { status: result.reason === 'replayed' ? 200 : 400 })
 */
export async function verifyWebhook(
  rawBody: string,
  header: string | readonly string[] | null | undefined,
  secrets: string | undefined | readonly (string | undefined)[],
  { toleranceS = DEFAULT_TOLERANCE_S, now = Date.now(), seen }: VerifyOptions = {},
): Promise<VerifyResult> {
  // A tolerance that is not a positive finite number would disable the age limit: refuse it
  // before looking at the request (SECURITY.md R27).
  if (typeof toleranceS !== 'number' || !Number.isFinite(toleranceS) || toleranceS <= 0) {
    throw new TypeError('verifyWebhook: toleranceS must be a finite number of seconds greater than 0')
  }
  // WebCrypto refuses an empty HMAC key: an unset second secret would fail every delivery.
  const keys = (typeof secrets === 'string' || secrets === undefined ? [secrets] : secrets).filter(
    (s): s is string => typeof s === 'string' && s !== '',
  )
  if (keys.length === 0) throw new TypeError('verifyWebhook: no webhook secret (every one given is empty or unset)')
  const joined = typeof header === 'string' || !header ? header : header.join(',')
  if (!joined) return { ok: false, reason: 'malformed_header' }
  let t: number | undefined
  const signatures: string[] = []
  for (const part of joined.split(',')) {
    const [k, v] = part.split('=', 2).map((s) => s.trim())
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v)
    else if (k === 'v1' && v) signatures.push(v)
  }
  if (t === undefined || signatures.length === 0) return { ok: false, reason: 'malformed_header' }
  if (!Number.isFinite(now) || !(Math.abs(now / 1000 - t) <= toleranceS)) return { ok: false, reason: 'too_old' }
  const candidates = await Promise.all(keys.map((s) => hmac(s, `${t}.${rawBody}`)))
  if (!candidates.some((expected) => signatures.some((given) => constantTimeEqual(expected, given))))
    return { ok: false, reason: 'bad_signature' }
  let event: WebhookEvent
  try {
    event = JSON.parse(rawBody) as WebhookEvent
  } catch {
    return { ok: false, reason: 'malformed_body' }
  }
  // Signed is not well formed: an event is an id, a type, a time and its data (WebhookEvent).
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.id !== 'string' ||
    event.id === '' ||
    typeof event.type !== 'string' ||
    typeof event.created !== 'number' ||
    typeof event.data !== 'object' ||
    event.data === null
  )
    return { ok: false, reason: 'malformed_body' }
  if (seen && (await seen(event.id))) return { ok: false, reason: 'replayed' }
  return { ok: true, event }
}
