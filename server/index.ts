/**
 * @module
 * The server SDK (`pay-checkout/server`): a typed client for the merchant API (generated from the
 * API document), and verification of the webhooks pay-checkout sends, with typed event types. Compiled to plain ESM: Node 20+, Bun, Deno and Workers import it without a TypeScript
 * loader (it needs only WebCrypto, global from Node 20).
 */
import type { WebhookEvent } from '../worker/webhooks/sign.ts'
import { EVENT_TYPES, type EventType } from '../worker/webhooks/events.ts'

export { verifyWebhook, signatureHeader, DEFAULT_TOLERANCE_S } from '../worker/webhooks/sign.ts'
export type { WebhookEvent, VerifyResult, VerifyOptions } from '../worker/webhooks/sign.ts'
export { EVENT_TYPES }
export { createPayClient } from './client.ts'
export type { MerchantPaths, PayClient, PayClientOptions } from './client.ts'
/** The API document's types (openapi-typescript): `components['schemas']['Payment']`, ... */
export type { components, operations, paths } from './api.ts'
export type { EventType }

/**
 * A verified event with its `type` narrowed to the catalogue (`EVENT_TYPES`): `switch (event.type)`
 * checks each case against the event types pay-checkout sends.
 */
export type PayWebhookEvent = { [T in EventType]: Omit<WebhookEvent, 'type'> & { readonly type: T } }[EventType]

/** Narrows a verified event's `type` to the catalogue; false for a type this SDK does not know (a newer one). */
export function isKnownEvent(event: WebhookEvent): event is WebhookEvent & PayWebhookEvent {
  return Object.hasOwn(EVENT_TYPES, event.type)
}
