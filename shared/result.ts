/**
 * @module
 * The typed result every boundary returns instead of throwing on bad input.
 */

/** Success carries the value; failure carries what went wrong (never the offending value). */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E }

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value })
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error })
