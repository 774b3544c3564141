/**
 * @module
 * Where the Durable Objects that call the gateway are created. An object lives where it is first
 * created: by default near the request that created it (a session near the merchant's server that
 * created it, a payment near whoever settled it). Each pay, inquiry, capture or refund is one or
 * more round trips from that object to the gateway, while the request that reaches the object
 * makes one; so with `GATEWAY_LOCATION` naming the region of the gateway (a `locationHint`:
 * `weur`, `eeur`, `wnam`, `enam`, `sam`, `apac`, `oc`, `afr`, `me`), sessions, payments,
 * operations, registrations and token keepers are created near the gateway, and the shopper's and
 * the merchant's single round trip is the one that travels. Objects created before the setting
 * stay where they are. Unset (or not one of those): Cloudflare's default placement.
 */
import type { Env } from './env.ts'

const HINTS = new Set(['wnam', 'enam', 'sam', 'weur', 'eeur', 'apac', 'oc', 'afr', 'me'])

export function placement(env: Env): { locationHint: DurableObjectLocationHint } | undefined {
  const hint = env.GATEWAY_LOCATION?.trim()
  return hint && HINTS.has(hint) ? { locationHint: hint as DurableObjectLocationHint } : undefined
}
