/**
 * @module
 * Merchant metadata: up to 20 string pairs the merchant attaches to a session (order ids, customer
 * ids). It comes back on the session, its payment, every event about them and the listings, and
 * one pair can filter a listing. It must never hold card data: a key or value holding a card number
 * in any disguise (shared/card.ts containsCardNumber) is refused, by field name
 * (the session schema checks it: worker/schemas/sessions.ts).
 */
export type Metadata = Readonly<Record<string, string>>

export const METADATA_LIMITS = { keys: 20, keyLength: 40, valueLength: 500 } as const
/** Keys are plain identifiers, so they are safe in a query string (`metadata[key]=value`). */
export const METADATA_KEY = /^[A-Za-z0-9_.-]{1,40}$/
