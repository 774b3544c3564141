/**
 * @module
 * A typed client for pay-checkout's merchant routes (sessions, payments and their operations,
 * invoices, saved cards, listings), built by openapi-fetch on the types openapi-typescript
 * generates from the Worker's own API document (`server/api.ts`, `npm run openapi`): paths,
 * parameters, bodies and answers are the document's, not typed by hand.
 */
import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './api.ts'

/** The merchant routes of the document (server to server, the merchant API key). */
export type MerchantPaths = {
  [P in keyof paths as P extends `/v1/${'sessions' | 'payments' | 'invoices' | 'registrations'}${string}` ? P : never]: paths[P]
}

export interface PayClientOptions {
  /** The Worker's address, e.g. `https://pay.example.com`. */
  readonly baseUrl: string
  /** MERCHANT_API_KEY: server side only, never in a page. */
  readonly apiKey: string
  /** Another fetch (tests, a service binding); default: the global one. */
  readonly fetch?: (request: Request) => Promise<Response>
}

export type PayClient = Client<MerchantPaths>

/**
 * The merchant API as typed calls: `client.POST('/v1/sessions', { body })`,
 * `client.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })`. Each answers
 * `{ data, error, response }`: `data` on success, `error` (the one error shape) otherwise.
 */
export function createPayClient({ baseUrl, apiKey, fetch }: PayClientOptions): PayClient {
  return createClient<MerchantPaths>({ baseUrl: baseUrl.replace(/\/+$/, ''), headers: { Authorization: `Bearer ${apiKey}` }, ...(fetch ? { fetch } : {}) })
}
