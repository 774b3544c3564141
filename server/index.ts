/**
 * @module
 * The server SDK (`pay-checkout/server`): verify the webhooks pay-checkout sends, with typed event
 * types. Compiled to plain ESM: Node 20+, Bun, Deno and Workers import it without a TypeScript
 * loader (it needs only WebCrypto, global from Node 20).
 */
export { verifyWebhook, signatureHeader, DEFAULT_TOLERANCE_S } from '../worker/webhooks/sign.ts'
export type { WebhookEvent, VerifyResult, VerifyOptions } from '../worker/webhooks/sign.ts'
export { EVENT_TYPES } from '../worker/webhooks/events.ts'
export type { EventType } from '../worker/webhooks/events.ts'
