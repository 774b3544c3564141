/**
 * @module
 * Turning a gateway answer into a typed outcome. Business, validation and auth failures come
 * back as HTTP 200 with the verdict only in `result.code` (facts sheet), so the status code alone
 * says nothing; only transport trouble uses 4xx/5xx.
 */
import { PAYMENT_RESPONSE, REDIRECT_FIELDS } from '../../shared/fields.ts'
import { at, readFields } from '../../shared/read.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import type { FieldError } from '../../shared/errors.ts'
import type { PaymentResponse, Redirect } from '../../shared/types.ts'

/** Why a request was refused without being processed. */
export type RejectReason = 'auth' | 'checksum' | 'validation' | 'merchant'
/** Why we do not know whether a request was processed. */
export type UnknownReason =
  'timeout' | 'transport' | 'http_status' | 'unparseable' | 'unsafe_redirect' | 'token_refused'
/** Why a request never left the Worker: no AuthToken could be had. */
export type UnsentReason = 'token_refused' | 'unreachable'

interface Coded {
  /** The gateway's result code and description, kept for the merchant and the logs. */
  readonly code: string
  readonly description: string
}

export type Outcome<R> =
  | ({ readonly kind: 'succeeded'; readonly response: R } & Coded)
  | ({ readonly kind: 'pending'; readonly response: R; readonly redirect?: Redirect } & Coded)
  | ({ readonly kind: 'action_required'; readonly response: R; readonly redirect: Redirect } & Coded)
  | ({ readonly kind: 'declined'; readonly response: R } & Coded)
  | ({ readonly kind: 'not_found'; readonly response: R } & Coded)
  /** `response` is missing when no token could be had or the refusal came as an HTTP status. */
  | ({ readonly kind: 'rejected'; readonly reason: RejectReason; readonly response?: R } & Coded)
  | { readonly kind: 'unknown'; readonly reason: UnknownReason; readonly status?: number }
  /** Nothing was sent: the token endpoint refused or could not be reached. */
  | { readonly kind: 'unsent'; readonly reason: UnsentReason }
  /** Refused by our own validation: nothing was sent. */
  | { readonly kind: 'invalid'; readonly fields: readonly FieldError[] }

export type PaymentOutcome = Outcome<PaymentResponse>

/** Codes the gateway uses for a token failure (authToken endpoint: 401/403; APIs: 20001). */
export const TOKEN_FAILURE_CODES: ReadonlySet<string> = new Set(['401', '403', '20001'])
/** "Record not found": what an inquiry answers for a payment the gateway never saw. */
export const NOT_FOUND_CODE = '10026'
export const CHECKSUM_FAILURE_CODE = '20002'
/**
 * "Not permitted" (a REPEATED payment before its INITIAL, an operation the merchant's account may
 * not make): a 1xxxx code that says nothing about the card, so it is the merchant's to fix, never
 * "your card was declined".
 */
export const NOT_PERMITTED_CODE = '10002'

/** Classifies a result code alone (facts sheet: by first digit when the code is not known). */
export function classifyCode(code: string): 'succeeded' | 'declined' | 'not_found' | RejectReason | 'unknown' {
  if (TOKEN_FAILURE_CODES.has(code)) return 'auth'
  if (code === CHECKSUM_FAILURE_CODE) return 'checksum'
  if (code === NOT_FOUND_CODE) return 'not_found'
  if (code === NOT_PERMITTED_CODE) return 'merchant'
  switch (code[0]) {
    case '0':
      return 'succeeded'
    case '1':
      return 'declined'
    case '2':
      return 'merchant'
    case '3':
      return 'validation'
    default:
      return 'unknown'
  }
}

/** What a response says about 3-D Secure: nothing, a redirect we may pass on, or one we must not. */
export type RedirectRead =
  { readonly kind: 'none' } | { readonly kind: 'safe'; readonly redirect: Redirect } | { readonly kind: 'unsafe' }

/**
 * Reads the 3-D Secure `redirect` object through the shared rule (`shared/redirect.ts`): an https
 * target (http only on 127.0.0.1/localhost, the sandbox), GET or POST, string parameters only.
 * Anything else is `unsafe` and is never passed to a browser: a `javascript:` target would run on
 * the merchant's page (SECURITY.md R28).
 */
export function readRedirect(body: unknown): RedirectRead {
  const raw = at(body, 'redirect')
  if (raw === undefined || raw === null) return { kind: 'none' }
  const fields = readFields(REDIRECT_FIELDS, body)
  const safe = fields.ok ? safeRedirect(raw) : undefined
  return fields.ok && safe ? { kind: 'safe', redirect: { ...fields.value, ...safe } } : { kind: 'unsafe' }
}

/** What a payment's `transactionStatus` says of its money, for answers and notifications alike. */
export type Settlement = 'charged' | 'not_charged' | 'pending'

/**
 * The one mapping from the gateway's `transactionStatus` to what happened to the money: `Y` taken,
 * `N` declined and `C` cancelled (nothing taken), `P` settled later; anything else says nothing.
 */
export function settlementOf(transactionStatus: string | undefined): Settlement | undefined {
  switch (transactionStatus) {
    case 'Y':
      return 'charged'
    case 'N':
    case 'C':
      return 'not_charged'
    case 'P':
      return 'pending'
    default:
      return undefined
  }
}

/**
 * Classifies a parsed payment-shaped body (payments, tokens, repeats, inquiry).
 * An explicit refusal (2xxxx/3xxxx) wins over transactionStatus; then `3D`/redirect; then the
 * status; then the code's first digit.
 */
export function classifyPayment(body: unknown): PaymentOutcome {
  const read = readFields(PAYMENT_RESPONSE, body)
  if (!read.ok) return { kind: 'unknown', reason: 'unparseable' }
  const response = read.value
  const coded = { code: response.resultCode, description: response.resultDescription ?? '', response }
  const byCode = classifyCode(response.resultCode)
  if (byCode === 'auth' || byCode === 'checksum' || byCode === 'validation' || byCode === 'merchant') {
    return { kind: 'rejected', reason: byCode, ...coded }
  }
  if (byCode === 'not_found') return { kind: 'not_found', ...coded }
  const step = readRedirect(body)
  const redirect = step.kind === 'safe' ? step.redirect : undefined
  if (response.transactionStatus === '3D') {
    if (redirect) return { kind: 'action_required', redirect, ...coded }
    // No redirect at all (an inquiry's answer): still waiting on the shopper at the bank, pending.
    // An unusable one: we cannot tell what the gateway did; the session settles by inquiry.
    return step.kind === 'none' ? { kind: 'pending', ...coded } : { kind: 'unknown', reason: 'unsafe_redirect' }
  }
  if (response.transactionStatus === 'E') return { kind: 'rejected', reason: 'merchant', ...coded }
  switch (settlementOf(response.transactionStatus)) {
    case 'pending':
      if (step.kind === 'unsafe') return { kind: 'unknown', reason: 'unsafe_redirect' }
      return redirect ? { kind: 'pending', redirect, ...coded } : { kind: 'pending', ...coded }
    case 'charged':
      return { kind: 'succeeded', ...coded }
    case 'not_charged':
      return { kind: 'declined', ...coded }
  }
  if (byCode === 'succeeded') return { kind: 'succeeded', ...coded }
  if (byCode === 'declined') return { kind: 'declined', ...coded }
  return { kind: 'unknown', reason: 'unparseable' }
}

/**
 * Classifies a body whose verdict is a result code (QR, invoices). A QR completion's answer may
 * also say what happened to the money (`transactionStatus`): a success code with `P` is the
 * gateway's "pending" (00002), settled by its notification, and never taken for money taken.
 */
export function classifyByCode<R>(
  response: R,
  code: string,
  description: string | undefined,
  transactionStatus?: string,
): Outcome<R> {
  const coded = { code, description: description ?? '', response }
  const byCode = classifyCode(code)
  if (byCode === 'succeeded' || byCode === 'declined') {
    const settlement = settlementOf(transactionStatus)
    if (settlement === 'pending') return { kind: 'pending', ...coded }
    if (settlement === 'not_charged') return { kind: 'declined', ...coded }
  }
  switch (byCode) {
    case 'succeeded':
    case 'declined':
    case 'not_found':
      return { kind: byCode, ...coded }
    case 'unknown':
      return { kind: 'unknown', reason: 'unparseable' }
    default:
      return { kind: 'rejected', reason: byCode, ...coded }
  }
}
