/**
 * @module
 * Claims that must be unique across the deployment, one Durable Object per name:
 * - `order:{merchantTransactionId}`: the order reference of one session. The gateway refuses a
 *   second live payment with the same reference (30005) and its notifications and inquiries find
 *   payments by it, so two sessions sharing one could settle each other. A second session is
 *   refused at creation (`duplicate_order`).
 * - `key:{hash of Idempotency-Key}`: one session creation per key. The same request again gets
 *   the first answer back; the same key with another body is refused.
 *
 * The stored answer of a creation holds the client secret, which is never stored in clear (R2): it
 * is sealed with a key derived from the merchant API key, so only a caller holding that key can
 * have it replayed, and a storage dump shows no secret.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'

export type Claim =
  | { readonly kind: 'claimed' }
  /** The same claim again: the owner it named, and the sealed answer once there is one. */
  | { readonly kind: 'same'; readonly owner: string; readonly sealed?: string }
  /** Another owner holds the name (another session, or the key with another body). */
  | { readonly kind: 'taken'; readonly owner: string }

interface Record_ {
  readonly owner: string
  readonly fingerprint: string
  sealed?: string
}

/** How long a name stays taken beyond what claims it may still be paid. */
export const CLAIM_KEPT_MS = 30 * 24 * 60 * 60_000

export class OrderRegistry extends DurableObject<Env> {
  /**
   * Claims this name for `owner`, unless it is taken; the same fingerprint is the same claim.
   * `payableMs`: how long what claims it may still be paid (an invoice, up to its expiry period),
   * beyond which the name is kept the usual 30 days.
   */
  async claim(owner: string, fingerprint: string, payableMs = 0): Promise<Claim> {
    const existing = await this.ctx.storage.get<Record_>('claim')
    if (existing)
      return existing.fingerprint === fingerprint
        ? { kind: 'same', owner: existing.owner, ...(existing.sealed ? { sealed: existing.sealed } : {}) }
        : { kind: 'taken', owner: existing.owner }
    await this.ctx.storage.put('claim', { owner, fingerprint } satisfies Record_)
    // Order references stay taken well beyond any session's life, or any invoice's (the gateway
    // keeps them too, and its notifications and inquiries find payments by them).
    await this.ctx.storage.setAlarm(Date.now() + Math.max(0, payableMs) + CLAIM_KEPT_MS)
    return { kind: 'claimed' }
  }

  /** Keeps the (sealed) answer of the claim, for replays. */
  async complete(sealed: string): Promise<void> {
    const existing = await this.ctx.storage.get<Record_>('claim')
    if (existing) await this.ctx.storage.put('claim', { ...existing, sealed })
  }

  /** Gives the name back when the claimed work did not happen. */
  async release(owner: string): Promise<void> {
    const existing = await this.ctx.storage.get<Record_>('claim')
    if (existing?.owner === owner && !existing.sealed) await this.ctx.storage.delete('claim')
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}

const enc = new TextEncoder()
const keys = new Map<string, Promise<CryptoKey>>()

/** AES-GCM key derived from a secret, cached per isolate (derivation is not free). */
function sealingKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', enc.encode(`pay-checkout replay seal v1|${secret}`))
      .then((raw) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']))
    keys.set(secret, key)
  }
  return key
}

const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))
const unb64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

export async function seal(secret: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const data = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await sealingKey(secret),
    enc.encode(JSON.stringify(value)),
  )
  return `${b64(iv)}.${b64(new Uint8Array(data))}`
}

/** The sealed value, or undefined when it was sealed under another secret (a rotated key). */
export async function unseal<T>(secret: string, sealed: string): Promise<T | undefined> {
  const [iv, data] = sealed.split('.')
  if (!iv || !data) return undefined
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: unb64(iv) }, await sealingKey(secret), unb64(data))
    return JSON.parse(new TextDecoder().decode(plain)) as T
  } catch {
    return undefined
  }
}

/** The sealed value opened with the first of `secrets` it was sealed under (a rotation's overlap). */
export async function unsealWithAny<T>(secrets: readonly string[], sealed: string): Promise<T | undefined> {
  for (const secret of secrets) {
    const value = await unseal<T>(secret, sealed)
    if (value !== undefined) return value
  }
  return undefined
}
