/**
 * @module
 * Identifiers and secrets: session ids, client secrets and their stored hashes, event ids.
 */
import { hmacKeyOf, hmacSha256Hex, toHex } from '../shared/hex.ts'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** `n` random base62 characters (rejection sampling keeps them uniform). */
export function randomToken(n: number): string {
  let out = ''
  while (out.length < n) {
    for (const b of crypto.getRandomValues(new Uint8Array(n * 2))) {
      if (b < 248 && out.length < n) out += ALPHABET[b % 62]
    }
  }
  return out
}

export const newSessionId = (): string => `cs_${randomToken(24)}`

/** What a session id looks like (`newSessionId`): anything else names no session. */
export const SESSION_ID = /^cs_[A-Za-z0-9]{24}$/
export const newEventId = (): string => `evt_${randomToken(24)}`
/** 43 base62 characters: more than 256 bits of randomness. */
export const newClientSecret = (sessionId: string): string => `${sessionId}_secret_${randomToken(43)}`

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}

/**
 * JSON with every object's keys sorted, at every depth: the same request written by another JSON
 * library (another key order) has the same text, so its Idempotency-Key fingerprint is the same.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  )
}

/** The fingerprint an Idempotency-Key is bound to: SHA-256 of the request's canonical JSON. */
export const fingerprintOf = (value: unknown): Promise<string> => sha256Hex(canonicalJson(value))

/**
 * Imported HMAC keys, per isolate: the same few keys (the deployment's secrets and what is derived
 * from them) sign every request, so each is imported once, not once per request. Bounded, in case
 * a caller ever passes per-request keys.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>()
const MAX_CACHED_KEYS = 32

function hmacKey(key: string): Promise<CryptoKey> {
  let k = hmacKeys.get(key)
  if (!k) {
    k = hmacKeyOf(key)
    if (hmacKeys.size >= MAX_CACHED_KEYS) hmacKeys.delete(hmacKeys.keys().next().value as string)
    hmacKeys.set(key, k)
  }
  return k
}

/** Keys derived from a secret and a label (HMAC of the label), per isolate: derived once. */
const derived = new Map<string, Promise<string>>()

/** `hmacHex(secret, label)`, computed once per isolate for each secret and label. */
export function derivedKey(secret: string, label: string): Promise<string> {
  const id = `${label}\u0000${secret}`
  let d = derived.get(id)
  if (!d) {
    d = hmacHex(secret, label)
    if (derived.size >= MAX_CACHED_KEYS) derived.delete(derived.keys().next().value as string)
    derived.set(id, d)
  }
  return d
}

/** HMAC-SHA256 hex, for card fingerprints and webhook signatures. */
export async function hmacHex(key: string, message: string): Promise<string> {
  return hmacSha256Hex(await hmacKey(key), message)
}
