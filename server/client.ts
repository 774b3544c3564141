/**
 * @module
 * A typed client for pay-checkout's merchant routes (sessions, payments and their operations,
 * invoices, saved cards, operations, listings), built by openapi-fetch on the types
 * openapi-typescript generates from the Worker's own API document (`server/api.ts`,
 * `npm run openapi`): paths, parameters, bodies and answers are the document's, not typed by hand.
 *
 * Retries are safe the way Stripe's SDKs make them safe: a POST or DELETE without an
 * `Idempotency-Key` gets one before its first try, and every retry of that call sends the same
 * key, so the Worker runs it once whatever happened to the earlier answers.
 */
import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './api.ts'

/** The merchant routes of the document (server to server, the merchant API key). */
export type MerchantPaths = {
  [
    P in keyof paths as P extends `/v1/${'sessions' | 'payments' | 'invoices' | 'registrations' | 'operations' | 'webhooks' | 'reports'}${string}`
      ? P
      : never
  ]: paths[P]
}

/** The platform routes (the partner's key: merchant profiles, their API keys and webhook secrets). */
export type PlatformPaths = {
  [P in keyof paths as P extends `/v1/platform/${string}` ? P : never]: paths[P]
}

export interface PayClientOptions {
  /** The Worker's address, e.g. `https://pay.example.com`. */
  readonly baseUrl: string
  /** MERCHANT_API_KEY (or a merchant profile's key; PLATFORM_API_KEY for the platform client): server side only, never in a page. */
  readonly apiKey: string
  /** Another fetch (tests, a service binding); default: the global one. */
  readonly fetch?: (request: Request) => Promise<Response>
  /**
   * How many times a call is tried again when no answer came (a network error) or the answer may
   * differ in a moment: 429, 500, 503, 504, a 502 other than the gateway's refusal
   * (`gateway_rejected` and `gateway_auth_failed` answer the same again), and 409
   * `idempotency_in_progress` (the first try is still running); default 0. Each retry waits longer
   * (0.5 s doubling, or the answer's Retry-After, in seconds or as a date, at most 60 s) and sends
   * the same Idempotency-Key as the first try.
   */
  readonly retries?: number
  /**
   * How long one try may take, in milliseconds, before it is given up (as a network error: tried
   * again, with the same Idempotency-Key, while `retries` allow); default: no limit.
   */
  readonly timeoutMs?: number
}

export type PayClient = Client<MerchantPaths>
export type PlatformClient = Client<PlatformPaths>

const RETRIED_STATUSES = new Set([409, 429, 500, 502, 503, 504])

/** An answer that may be another one in a moment (see `retries`). */
async function worthRetrying(answer: Response): Promise<boolean> {
  if (!RETRIED_STATUSES.has(answer.status)) return false
  if (answer.status !== 409 && answer.status !== 502) return true
  const code = await answer
    .clone()
    .json()
    .then(
      (body: unknown) => (body as { error?: { code?: unknown } } | null)?.error?.code,
      () => undefined,
    )
  return answer.status === 409
    ? code === 'idempotency_in_progress'
    : code !== 'gateway_rejected' && code !== 'gateway_auth_failed'
}

/** Retry-After in milliseconds (seconds, or an HTTP date), or NaN. */
function retryAfterMs(value: string | null | undefined, now = Date.now()): number {
  if (!value) return Number.NaN
  return /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now
}

/**
 * A new Idempotency-Key (a random UUID). Keep it with what it is for (the order, the refund in
 * your database) and send it again when you try that request again: the Worker answers the first
 * result instead of acting twice. Needs the global WebCrypto (Node 19+, Bun, Deno, Workers); on
 * Node 18 use `randomUUID()` from `node:crypto`.
 */
export function idempotencyKey(): string {
  if (typeof crypto !== 'object' || typeof crypto?.randomUUID !== 'function')
    throw new TypeError(
      "idempotencyKey() needs the global WebCrypto (Node 19+); on Node 18 use randomUUID() from 'node:crypto'",
    )
  return crypto.randomUUID()
}

/** A key for a call that has none: the global WebCrypto, or `node:crypto`'s on Node 18. */
async function newKey(): Promise<string> {
  if (typeof crypto === 'object' && typeof crypto?.randomUUID === 'function') return crypto.randomUUID()
  const nodeCrypto = 'node:crypto'
  return ((await import(/* @vite-ignore */ nodeCrypto)) as { randomUUID(): string }).randomUUID()
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fetch every call goes through: the key before the first try, the same key on each retry. */
function retrying(
  fetchFn: (request: Request) => Promise<Response>,
  retries: number,
  timeoutMs?: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const sendsKey = request.method === 'POST' || request.method === 'DELETE'
    if (sendsKey && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', await newKey())
    // The body is read once; each try sends a copy of the request with the same headers.
    const body = request.body === null ? null : await request.arrayBuffer()
    const attempt = () =>
      fetchFn(
        new Request(request, {
          ...(body === null ? {} : { body }),
          ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
        }),
      )
    for (let tried = 0; ; tried++) {
      let answer: Response | undefined
      try {
        answer = await attempt()
      } catch (error) {
        if (tried >= retries) throw error
      }
      if (answer && (tried >= retries || !(await worthRetrying(answer)))) return answer
      const after = retryAfterMs(answer?.headers.get('Retry-After'))
      await wait(Number.isFinite(after) && after > 0 ? Math.min(after, 60_000) : 500 * 2 ** tried)
    }
  }
}

/**
 * The merchant API as typed calls: `client.POST('/v1/sessions', { body })`,
 * `client.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })`. Each answers
 * `{ data, error, response }`: `data` on success (`response.status` tells 200 from 202), `error`
 * (the one error shape) otherwise.
 */
export function createPayClient(options: PayClientOptions): PayClient {
  return typedClient<MerchantPaths>(options)
}

/**
 * The platform API as typed calls, for a partner that runs one deployment for many merchants
 * (`apiKey`: PLATFORM_API_KEY): `platform.POST('/v1/platform/merchants', { body })` answers the
 * new merchant with its first API key, which that merchant's `createPayClient` then uses.
 */
export function createPlatformClient(options: PayClientOptions): PlatformClient {
  return typedClient<PlatformPaths>(options)
}

function typedClient<P extends object>({
  baseUrl,
  apiKey,
  fetch: fetchFn,
  retries = 0,
  timeoutMs,
}: PayClientOptions): Client<P> {
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new TypeError('createPayClient: timeoutMs must be a finite number of milliseconds greater than 0')
  const base = fetchFn ?? ((request: Request) => globalThis.fetch(request))
  return createClient<P>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${apiKey}` },
    fetch: retrying(base, retries, timeoutMs),
  })
}
