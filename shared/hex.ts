/**
 * @module
 * Bytes as lowercase hex, and HMAC-SHA256 as hex: the one copy of each for checksums, ids, card
 * fingerprints and webhook signatures (WebCrypto only, so the server SDK runs anywhere).
 */

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return [...(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
}

/**
 * The HMAC-SHA256 key for a text secret. `subtle` is the global WebCrypto's unless given (the
 * server SDK passes `node:crypto`'s on Node 18, where there is no global one).
 */
export function hmacKeyOf(secret: string, subtle: SubtleCrypto = crypto.subtle): Promise<CryptoKey> {
  return subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
}

/** HMAC-SHA256 of a text message, as hex. */
export async function hmacSha256Hex(
  key: CryptoKey | string,
  message: string,
  subtle: SubtleCrypto = crypto.subtle,
): Promise<string> {
  const k = typeof key === 'string' ? await hmacKeyOf(key, subtle) : key
  return toHex(await subtle.sign('HMAC', k, new TextEncoder().encode(message)))
}
