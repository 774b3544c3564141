/**
 * @module
 * The one rule for a 3-D Secure redirect the gateway hands us, used by the Worker before it passes
 * one on and by the widget (both sides of the card frame) before it navigates (SECURITY.md R28).
 * A redirect is submitted as a form by the shopper's browser: a `javascript:` or `data:` target
 * would run script on the page that submits it, so the address must pass the shared `url` format
 * (https, or http on 127.0.0.1/localhost for the sandbox; no credentials), the method must be GET
 * or POST, and every parameter a pair of strings.
 */
import { checkUrl, checkWith } from './check.ts'

export interface SafeRedirect {
  readonly url: string
  /** `GET` or `POST`, upper case; absent means POST (the facts sheet's default). */
  readonly method?: 'GET' | 'POST'
  readonly target?: string
  readonly parameters: readonly { readonly name: string; readonly value: string }[]
}

/** At most this many hidden fields: a real ACS form has a handful. */
const MAX_PARAMETERS = 50

/**
 * The redirect as it may be followed, or `undefined` when any part of it breaks the rule.
 * Unknown keys are dropped; nothing is repaired (a bad parameter refuses the whole redirect).
 */
export function safeRedirect(value: unknown): SafeRedirect | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const r = value as Record<string, unknown>
  if (typeof r.url !== 'string' || checkWith(checkUrl, r.url) !== null) return undefined
  let method: 'GET' | 'POST' | undefined
  if (r.method !== undefined && r.method !== null) {
    if (typeof r.method !== 'string') return undefined
    const upper = r.method.toUpperCase()
    if (upper !== 'GET' && upper !== 'POST') return undefined
    method = upper
  }
  if (r.target !== undefined && typeof r.target !== 'string') return undefined
  const raw = r.parameters ?? []
  if (!Array.isArray(raw) || raw.length > MAX_PARAMETERS) return undefined
  const parameters: { name: string; value: string }[] = []
  for (const p of raw as unknown[]) {
    if (typeof p !== 'object' || p === null) return undefined
    const { name, value: v } = p as Record<string, unknown>
    if (typeof name !== 'string' || typeof v !== 'string' || name === '') return undefined
    parameters.push({ name, value: v })
  }
  return {
    url: r.url,
    ...(method ? { method } : {}),
    ...(typeof r.target === 'string' ? { target: r.target } : {}),
    parameters,
  }
}
