/**
 * @module
 * Reading settings from the bindings: numbers (timeouts, delays, limits) and the Worker's own
 * callback URLs, one helper each instead of a copy per Durable Object.
 */

/** A whole-number setting (`"15000"`); unset, empty or anything else is the default. */
export function numberVar(value: string | undefined, fallback: number): number {
  const v = value?.trim()
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : fallback
}

/**
 * The Worker's own URL the gateway calls back (`notifications`: the asynchronous result) or sends
 * the shopper to (`return`: after 3-D Secure or an invoice page), for a session or operation id.
 */
export function callbackUrl(env: { readonly PUBLIC_BASE_URL: string }, kind: 'notifications' | 'return', id: string): string {
  return `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}/v1/${kind}/${id}`
}
