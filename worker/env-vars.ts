/**
 * @module
 * Reading settings from the bindings: numbers (timeouts, delays, limits) and the Worker's own
 * callback URLs, one helper each instead of a copy per Durable Object.
 */

// The sandbox reads its numbers the same way: the helper is shared.
export { numberVar } from '../shared/settings.ts'

/**
 * The Worker's own URL the gateway calls back (`notifications`: the asynchronous result) or sends
 * the shopper to (`return`: after 3-D Secure or an invoice page), for a session or operation id.
 */
export function callbackUrl(
  env: { readonly PUBLIC_BASE_URL: string },
  kind: 'notifications' | 'return',
  id: string,
): string {
  return `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}/v1/${kind}/${id}`
}
