/**
 * @module
 * The Idempotency-Key header's grammar, for every route that takes one and for the API document.
 */
import type { FieldError } from '../../shared/errors.ts'

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/

/** At most 64 characters of `[A-Za-z0-9_-]` (SECURITY.md R13); UUIDs fit. */
export function idempotencyKeyOf(header: string | undefined): string | FieldError {
  if (header === undefined) return { field: 'Idempotency-Key', code: 'required', expected: IDEMPOTENCY_KEY.source }
  return IDEMPOTENCY_KEY.test(header)
    ? header
    : { field: 'Idempotency-Key', code: 'format', expected: IDEMPOTENCY_KEY.source }
}

/** The message of a refused header: missing, or not of the key's format (never its value). */
export const idempotencyKeyMessage = (error: FieldError): string =>
  error.code === 'required'
    ? 'An Idempotency-Key header is required.'
    : 'The Idempotency-Key header is 1 to 64 letters, digits, _ and -.'
