/**
 * @module
 * What a Durable Object's RPC methods answer: the HTTP status and JSON body the route sends on.
 */
import { errorBody, type ErrorCode, type FieldError } from '../../shared/errors.ts'
import { statusOf } from '../errors.ts'

export interface Reply {
  readonly status: number
  readonly body: unknown
  /** True when an earlier answer to the same Idempotency-Key is replayed. */
  readonly replayed?: boolean
}

export const fail = (code: ErrorCode, message: string, fields?: readonly FieldError[]): Reply => ({ status: statusOf(code), body: errorBody(code, message, fields) })
