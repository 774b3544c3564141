/**
 * @module
 * What a Durable Object's RPC methods answer: a typed result, never an HTTP status. The route turns
 * it into a response (`sendReply` in respond.ts): a success with the route's own status
 * (200 unless it says otherwise), an error with the status its code has (worker/errors.ts).
 */
import { errorBody, type ErrorBody, type ErrorCode, type FieldError } from '../shared/errors.ts'

export type Reply =
  | {
      readonly ok: true
      readonly body: unknown
      /** An earlier answer to the same Idempotency-Key, replayed. */ readonly replayed?: boolean
    }
  | { readonly ok: false; readonly error: ErrorBody['error']; readonly replayed?: boolean }

/** A success: the body the route sends. */
export const done = (body: unknown): Reply => ({ ok: true, body })

/** A refusal, by its error code (which decides the HTTP status at the route). */
export const fail = (code: ErrorCode, message: string, fields?: readonly FieldError[]): Reply => ({
  ok: false,
  error: errorBody(code, message, fields).error,
})
