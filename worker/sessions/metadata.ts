/**
 * @module
 * Merchant metadata: up to 20 string pairs the merchant attaches to a session (order ids, customer
 * ids). It comes back on the session, its payment, every event about them and the listings, and
 * one pair can filter a listing. It must never hold card data: a value containing what looks like
 * a card number (a Luhn-valid run of 12 to 19 digits of a known brand) is refused, by field name
 * (the session schema checks it: worker/schemas/sessions.ts).
 */
import { BRAND_RULES, detectBrand, luhnValid } from '../../shared/card.ts'

export type Metadata = Readonly<Record<string, string>>

export const METADATA_LIMITS = { keys: 20, keyLength: 40, valueLength: 500 } as const
/** Keys are plain identifiers, so they are safe in a query string (`metadata[key]=value`). */
export const METADATA_KEY = /^[A-Za-z0-9_.-]{1,40}$/

/** Whether text holds something that looks like a card number (digits, optionally spaced or dashed). */
export function looksLikeCardNumber(text: string): boolean {
  for (const run of text.match(/\d[\d -]{10,}\d/g) ?? []) {
    const digits = run.replace(/[ -]/g, '')
    for (let len = 12; len <= 19; len++) {
      for (let i = 0; i + len <= digits.length; i++) {
        const candidate = digits.slice(i, i + len)
        const brand = detectBrand(candidate)
        if (brand && BRAND_RULES[brand].lengths.includes(len) && luhnValid(candidate)) return true
      }
    }
  }
  return false
}
