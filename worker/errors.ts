/**
 * @module
 * The HTTP edge's errors: thrown as `ApiError`, turned into the one JSON shape by `onError`.
 */
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { errorBody, type ErrorCode, type FieldError } from '../shared/errors.ts'
import { log } from './log.ts'

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  param_mismatch: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  session_completed: 409,
  idempotency_in_progress: 409,
  payment_in_progress: 409,
  method_in_progress: 409,
  qr_withdrawn: 409,
  session_expired: 410,
  idempotency_mismatch: 422,
  too_many_attempts: 429,
  payments_paused: 429,
  payload_too_large: 413,
  rate_limited: 429,
  duplicate_order: 409,
  notification_mismatch: 409,
  invoice_mismatch: 409,
  payment_state: 409,
  amount_too_large: 409,
  registration_deleted: 409,
  limit_reached: 409,
  profile_conflict: 409,
  already_delivered: 409,
  gateway_error: 502,
  gateway_rejected: 502,
  gateway_auth_failed: 502,
  gateway_unavailable: 503,
  internal_error: 500,
}

export const statusOf = (code: ErrorCode): ContentfulStatusCode => STATUS[code]

/**
 * A refusal at the HTTP edge: routes and middleware throw it, `onError` answers it (as Hono's
 * `HTTPException`), so every refusal has the one JSON shape and the status its code has. Durable
 * Objects never throw it: they answer typed results (`Reply`), which routes send.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: readonly FieldError[],
    /** Headers the refusal needs (`WWW-Authenticate`, `Retry-After` and its CORS exposure). */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** The one error shape, with the status its code has: what `onError` and the not-found handler send. */
export function errorResponse(
  c: Context,
  code: ErrorCode,
  message: string,
  fields?: readonly FieldError[],
  headers?: Record<string, string>,
): Response {
  return c.json(errorBody(code, message, fields), STATUS[code], headers)
}

/** `app.onError`: our errors keep their code; anything else is a bug, logged without its inputs. */
export function onError(e: Error, c: Context): Response {
  if (e instanceof ApiError) return errorResponse(c, e.code, e.message, e.fields, e.headers)
  log.error('unhandled_error', { error: e, path: new URL(c.req.url).pathname })
  return errorResponse(c, 'internal_error', 'Something went wrong on our side.')
}
