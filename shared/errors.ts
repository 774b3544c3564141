/**
 * @module
 * The one error body both the Worker and the widget speak, and the closed sets of codes in it.
 * Errors name the field and the rule that failed, never the value: a card number must not
 * come back in an error message, a log line or an event.
 */

/** Why one field was refused. */
export const FIELD_ERROR_CODES = [
  'required', // missing or empty
  'not_allowed', // present, but this operation (or this caller) may not set it
  'format', // wrong shape: characters, length, pattern
  'luhn', // card number fails the Luhn check
  'unsupported_brand', // card number of a brand we cannot route
  'length', // right characters, wrong length for the brand or field
  'expired', // expiry date in the past
  'out_of_range', // number outside configured bounds
  'invalid_value', // not one of the allowed values
  'mismatch', // differs from what the checkout session fixed
  'minor_units', // finer than the currency's minor unit (JPY amounts are whole: "1000.00")
] as const
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number]

export interface FieldError {
  /** Wire name of the field (e.g. `card.number`) or a body key. */
  readonly field: string
  readonly code: FieldErrorCode
  /**
   * What the field takes: the pattern it must match (`^(0|[1-9]\\d{0,11})\\.\\d{2}$`) or a short
   * phrase ("one of: DB, PA"). Describes the rule, never the value sent. Every error of request
   * validation carries it; refusals decided later (a deleted saved card) may not.
   */
  readonly expected?: string
}

/** Why a whole request was refused or failed. */
export const ERROR_CODES = [
  'invalid_request', // a body that is not JSON/form, or fields that fail validation (400)
  'param_mismatch', // the browser tried to set what the session fixed (400)
  'unauthorized', // missing or wrong bearer / client secret (401)
  'forbidden', // origin not allowed, flow not allowed, Turnstile failed (403)
  'not_found', // no such session, payment or invoice (404)
  'session_completed', // a succeeded session cannot be paid again (409)
  'idempotency_in_progress', // same key still being processed (409)
  'payment_in_progress', // another attempt of this session is in flight (409)
  'method_in_progress', // another of the session's methods has a payment in flight or done; `error.method` names it (409)
  'qr_withdrawn', // the QR code was withdrawn when the shopper paid by card: request a new one (409)
  'session_expired', // past expiresAt (410)
  'idempotency_mismatch', // same key, different parameters (422)
  'too_many_attempts', // attempts or velocity limit reached (429)
  'payload_too_large', // the body is over the route's size limit, by Content-Length or as read (413)
  'rate_limited', // too many requests from this address or merchant key; see Retry-After (429)
  'payments_paused', // the decline breaker paused card payments across the deployment; see Retry-After (429)
  'duplicate_order', // another session already has this merchantTransactionId (409)
  'notification_mismatch', // a signed notification about a payment this session or operation never made (409)
  'invoice_mismatch', // the invoice's amount or currency differs from the session's (409)
  'payment_state', // the payment's state does not allow this operation: void after capture, capture twice, refund before capture, repeat before the card it saved is known, repeat of a setup's authorisation (409)
  'amount_too_large', // more than may be captured or refunded (refunds in flight count) (409)
  'registration_deleted', // a saved card that was deleted cannot pay (409)
  'limit_reached', // a merchant profile holds two active API keys (or webhook secrets) already: revoke one first (409)
  'profile_conflict', // the merchant profile changed while this change was made: read it and try again (409)
  'already_delivered', // the webhook event was delivered: it is sent again only while it waits for a retry (409)
  'gateway_error', // the gateway's answer could not be used (502)
  'gateway_rejected', // the gateway refused the request; its code is in the message and the session (502)
  'gateway_auth_failed', // the gateway refused our AuthToken or credentials; nothing was charged (502)
  'gateway_unavailable', // the gateway could not be reached (network, DNS, TLS, timeout) (503)
  'internal_error', // a bug on our side (500)
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** `{ "error": { "code", "message", "fields"? } }`: every error answer of the Worker has this shape. */
export interface ErrorBody {
  readonly error: {
    readonly code: ErrorCode
    readonly message: string
    readonly fields?: readonly FieldError[]
    /** With `method_in_progress`: the method whose payment is under way or done. */
    readonly method?: string
  }
}

export function errorBody(code: ErrorCode, message: string, fields?: readonly FieldError[]): ErrorBody {
  return { error: fields && fields.length > 0 ? { code, message, fields } : { code, message } }
}

/** Type guard for an error body received over the wire. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false
  const e = (value as { error: unknown }).error
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as { code?: unknown }).code === 'string' &&
    typeof (e as { message?: unknown }).message === 'string'
  )
}
