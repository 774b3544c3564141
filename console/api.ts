/**
 * @module
 * The console's way to the Worker: the merchant API itself, through the same typed client the SDK
 * is built on (openapi-fetch over the API document's types: `server/api.ts`), with the console's
 * session instead of a key. The session is an HttpOnly cookie the browser sends and no script
 * reads; each change carries the session's CSRF token, and actions carry an Idempotency-Key made
 * when the action is opened, so a double click or a retry acts once.
 */
import createClient, { type Client } from 'openapi-fetch'
import type { components } from '../server/api.ts'
import type { MerchantPaths } from '../server/client.ts'

export type Payment = components['schemas']['Payment']
export type Session = components['schemas']['Session']
export type Operation = components['schemas']['Operation']
export type Delivery = components['schemas']['WebhookDelivery']
export type Overview = components['schemas']['Overview']
export type ApiError = components['schemas']['Error']['error']

export interface ConsoleSession {
  readonly merchant: string
  readonly csrfToken: string
  readonly expiresAt: string
  readonly via: 'key' | 'access'
}

export type ConsoleApi = Client<MerchantPaths>

/** The typed merchant API with the session (the cookie goes with every same-origin call). */
export function consoleApi(session: ConsoleSession): ConsoleApi {
  return createClient<MerchantPaths>({
    baseUrl: location.origin,
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': session.csrfToken },
  })
}

const SESSION_PATH = '/console/api/session'

/** What the sign-in route says: a session, or why there is none. */
export type SessionAnswer =
  | { readonly session: ConsoleSession }
  | { readonly session?: undefined; readonly status: number; readonly error?: ApiError }

async function sessionAnswer(res: Response): Promise<SessionAnswer> {
  if (res.ok) return { session: (await res.json()) as ConsoleSession }
  const body = (await res.json().catch(() => ({}))) as { error?: ApiError }
  return { status: res.status, ...(body.error ? { error: body.error } : {}) }
}

/** The standing session (or, behind Cloudflare Access, one opened from the Access sign-in). */
export async function currentSession(): Promise<SessionAnswer> {
  return sessionAnswer(await fetch(SESSION_PATH, { credentials: 'same-origin', cache: 'no-store' }))
}

/** Signs in with a merchant API key: sent once, kept nowhere (the answer is the cookie). */
export async function signIn(apiKey: string): Promise<SessionAnswer> {
  return sessionAnswer(
    await fetch(SESSION_PATH, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiKey }),
    }),
  )
}

export async function signOut(session: ConsoleSession): Promise<void> {
  await fetch(SESSION_PATH, {
    method: 'DELETE',
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': session.csrfToken },
  })
}

/** A call's error as one line for the page: the message and the fields it names (never a value). */
export function describeError(error: unknown, status?: number): string {
  const e = (error as { error?: ApiError } | undefined)?.error
  if (!e) return status ? `The request failed (${status}).` : 'The request failed.'
  const fields = (e.fields ?? []).map((f) => `${f.field}: ${f.code}`).join(', ')
  return fields ? `${e.message} (${fields})` : e.message
}

/** Told up the tree by any view whose call answered 401: the session ended. */
export const SIGNED_OUT = 'console-signed-out'
export function signedOut(from: HTMLElement): void {
  from.dispatchEvent(new CustomEvent(SIGNED_OUT, { bubbles: true, composed: true }))
}
