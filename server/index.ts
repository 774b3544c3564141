/**
 * @module
 * The server SDK (`pay-checkout/server`): a typed client for the merchant API (generated from the
 * API document), and verification of the webhooks pay-checkout sends, with typed events. Compiled to
 * plain ESM: Node 18+, Bun, Deno and Workers import it without a TypeScript loader (it needs only
 * WebCrypto: the global one, or `node:crypto`'s on Node 18, where it is not global).
 */
import type { WebhookEvent } from '../shared/webhooks/sign.ts'
import { EVENT_TYPES, type EventType } from '../shared/webhooks/events.ts'
import type { webhooks } from './api.ts'

export { verifyWebhook, signatureHeader, DEFAULT_TOLERANCE_S } from '../shared/webhooks/sign.ts'
export type { WebhookEvent, VerifyResult, VerifyOptions } from '../shared/webhooks/sign.ts'
export { EVENT_TYPES }
export { createPayClient, createPlatformClient, idempotencyKey } from './client.ts'
export type { MerchantPaths, PayClient, PayClientOptions, PlatformClient, PlatformPaths } from './client.ts'
/** The API document's types (openapi-typescript): `components['schemas']['Payment']`, ... */
export type { components, operations, paths, webhooks } from './api.ts'
export type { EventType }

/** The body pay-checkout POSTs for an event type, as the API document's `webhooks` describe it. */
type EventBody<T extends EventType> = webhooks[T]['post']['requestBody']['content']['application/json']

/**
 * A verified event of a type pay-checkout sends: a union discriminated by `type`, each with its
 * `data` typed from the API document (`components['schemas']['SessionEventData']`,
 * `PaymentEventData`, `OperationEventData`, ...). `switch (event.type)` checks each case against
 * the catalogue and narrows `event.data`.
 */
export type PayWebhookEvent = { [T in EventType]: Readonly<EventBody<T>> }[EventType]

/** The event of one type: `PayWebhookEventOf<'refund.succeeded'>`. */
export type PayWebhookEventOf<T extends EventType> = Extract<PayWebhookEvent, { readonly type: T }>

/** What an event of one type carries: `PayWebhookEventData<'checkout.session.succeeded'>['paymentId']`. */
export type PayWebhookEventData<T extends EventType> = PayWebhookEventOf<T>['data']

/** Narrows a verified event to the catalogue, with typed `data`; false for a type this SDK does not know (a newer one). */
export function isKnownEvent(event: WebhookEvent): event is PayWebhookEvent {
  return Object.hasOwn(EVENT_TYPES, event.type)
}
