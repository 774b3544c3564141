/**
 * @module
 * The gateway's wire format: `application/x-www-form-urlencoded`, dotted names literal.
 */
import type { WireRequest } from '../types.ts'

export function encodeForm(fields: WireRequest): string {
  return new URLSearchParams(Object.entries(fields)).toString()
}

/**
 * Decodes a form body; a repeated name keeps its last value (the gateway's behaviour for
 * duplicates). The result has no prototype, so a field named `__proto__` is a field like any other.
 */
export function decodeForm(body: string): WireRequest {
  const out: WireRequest = Object.create(null) as WireRequest
  for (const [k, v] of new URLSearchParams(body)) out[k] = v
  return out
}
