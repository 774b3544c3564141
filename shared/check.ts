/**
 * @module
 * The guard every format shares, and the URL format: small on their own, so the page-side element
 * (which checks 3-D Secure redirects) carries them without the rest of the shopper formats.
 */
import type { FieldErrorCode } from './errors.ts'

export type ShopperCheck = (value: string) => FieldErrorCode | null

// Forbids `|` (it joins checksum inputs), ASCII control characters and the Unicode line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const UNSAFE = /[|\u0000-\u001f\u007f\u2028\u2029]/

export const checkUrl: ShopperCheck = (v) => {
  if (v.length > 2048) return 'length'
  let url: URL
  try {
    url = new URL(v)
  } catch {
    return 'format'
  }
  if (url.username || url.password) return 'format'
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]'
  // https everywhere; plain http only for a developer's own machine (the sandbox and wrangler dev).
  if (url.protocol === 'https:' || (url.protocol === 'http:' && local)) return null
  return 'format'
}

/** One value against one checker: empty is `required`, unsafe characters are `format`. */
export function checkWith(check: ShopperCheck, value: string): FieldErrorCode | null {
  if (value === '') return 'required'
  if (UNSAFE.test(value)) return 'format'
  return check(value)
}
