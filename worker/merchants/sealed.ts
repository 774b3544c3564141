/**
 * @module
 * A merchant profile's secrets at rest: one AES-256-GCM ciphertext per profile, under a key derived
 * (HKDF-SHA-256) from the Worker secret `MERCHANT_SECRETS_KEY`. The profile's id is the additional
 * data, so a sealed column copied onto another merchant's row does not open there. A database dump
 * shows no secure key, AuthToken or webhook secret; a profile can be read only by this Worker.
 * While the master key rotates, `MERCHANT_SECRETS_KEY_PREVIOUS` opens what the key before sealed,
 * and everything is sealed under the new one (`profiles.ts` `resealProfiles`).
 */
import type { Env } from '../env.ts'
import { log } from '../log.ts'

const enc = new TextEncoder()
/** Shorter master keys are refused: it guards every merchant's gateway credentials. */
const MIN_MASTER_KEY = 32

const keys = new Map<string, Promise<CryptoKey>>()

/** The AES key of a master secret, derived once per isolate. */
function aesKey(master: string): Promise<CryptoKey> {
  let key = keys.get(master)
  if (!key) {
    key = crypto.subtle.importKey('raw', enc.encode(master), 'HKDF', false, ['deriveKey']).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: 'HKDF',
          hash: 'SHA-256',
          salt: new Uint8Array(0),
          info: enc.encode('pay-checkout merchant secrets v1'),
        },
        base,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      ),
    )
    keys.set(master, key)
  }
  return key
}

const usable = (value: string | undefined): string | undefined => {
  const key = value?.trim()
  return key && key.length >= MIN_MASTER_KEY ? key : undefined
}

/** The master key, or undefined when profiles cannot be kept (unset or too short). */
export const masterKey = (env: Env): string | undefined => usable(env.MERCHANT_SECRETS_KEY)

let warned = false

/**
 * The master key before the current one, during a rotation; undefined when unset, too short (a
 * placeholder, logged by name as the other overlap secrets are: worker/secrets.ts), the current
 * key itself, or without a current key (unset, profiles are off: the key before does not keep
 * them on). It only opens: nothing is sealed under it.
 */
export function previousMasterKey(env: Env): string | undefined {
  const key = usable(env.MERCHANT_SECRETS_KEY_PREVIOUS)
  if (!key && env.MERCHANT_SECRETS_KEY_PREVIOUS?.trim() && !warned) {
    warned = true
    log.error('rotation_secret_ignored', { variable: 'MERCHANT_SECRETS_KEY_PREVIOUS', reason: 'too_short' })
  }
  const current = masterKey(env)
  return current && key !== current ? key : undefined
}

const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))
const unb64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

export async function sealSecrets(master: string, merchantId: string, secrets: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const data = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: enc.encode(`merchant:${merchantId}`) },
    await aesKey(master),
    enc.encode(JSON.stringify(secrets)),
  )
  return `v1.${b64(iv)}.${b64(new Uint8Array(data))}`
}

/** The secrets, or undefined when they were sealed under another key or for another merchant. */
export async function openSecrets<T>(master: string, merchantId: string, sealed: string): Promise<T | undefined> {
  const [version, iv, data] = sealed.split('.')
  if (version !== 'v1' || !iv || !data) return undefined
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: unb64(iv), additionalData: enc.encode(`merchant:${merchantId}`) },
      await aesKey(master),
      unb64(data),
    )
    return JSON.parse(new TextDecoder().decode(plain)) as T
  } catch {
    return undefined
  }
}
