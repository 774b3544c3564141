/**
 * @module
 * The one rule of an Idempotency-Key, for every place that keeps them (checkout attempts, merchant
 * operations on a session or a payment, session creation): a key seen before with other
 * parameters is refused, one whose first request has not finished is refused as in progress, and
 * one that finished replays that answer. Each place keeps its records its own way (a Durable
 * Object's storage, the order registry's sealed claim); what a record says is decided here.
 */
import type { ErrorCode } from '../shared/errors.ts'
import { fail, type Reply } from './reply.ts'

type KeyRefusal = {
  readonly kind: 'refused'
  readonly code: Extract<ErrorCode, 'idempotency_mismatch' | 'idempotency_in_progress'>
  readonly message: string
}

export type KeyCheck<T> = { readonly kind: 'new' } | { readonly kind: 'replay'; readonly entry: T } | KeyRefusal

/** The two refusals, as every place words them. */
export const KEY_REUSED: KeyRefusal = {
  kind: 'refused',
  code: 'idempotency_mismatch',
  message: 'This Idempotency-Key was used with different parameters.',
}
export const KEY_IN_PROGRESS: KeyRefusal = {
  kind: 'refused',
  code: 'idempotency_in_progress',
  message: 'A request with this Idempotency-Key is in progress.',
}

/** What the record kept for a key says of a request with `fingerprint`. */
export function checkKey<T extends { readonly fingerprint: string }>(
  entry: T | undefined,
  fingerprint: string,
  finished: (entry: T) => boolean,
): KeyCheck<T> {
  if (!entry) return { kind: 'new' }
  if (entry.fingerprint !== fingerprint) return KEY_REUSED
  if (!finished(entry)) return KEY_IN_PROGRESS
  return { kind: 'replay', entry }
}

/** A refusal as a Durable Object's reply. */
export const keyRefusal = (check: KeyRefusal): Reply => fail(check.code, check.message)
