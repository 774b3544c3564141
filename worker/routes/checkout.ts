/**
 * @module
 * Browser routes, used by `<pay-checkout>`: read the session, pay by card or saved card, the two
 * QR steps, and invoice regeneration. Amount, currency, merchantTransactionId and payment type
 * come only from the session (SECURITY.md R1).
 */
import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { detectBrand } from '../../shared/card.ts'
import { checkFormat } from '../../shared/formats.ts'
import { flatten } from '../../shared/validate.ts'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { derivedKey, hmacHex, sha256Hex } from '../ids.ts'
import { browserAccess, type BrowserAccessVariables } from '../middleware/browser-access.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { validate } from '../middleware/validate.ts'
import { CHECKOUT_DOCS as DOCS, noFields } from '../schemas/checkout.ts'
import { parsePayBody, parseQrVerifyBody } from '../sessions/parse-input.ts'
import { breakerState } from '../sessions/decline-breaker.ts'
import { turnstilePasses } from '../turnstile.ts'
import { idempotencyKeyOf, sendReply } from './operations.ts'
import { numberVar } from '../env-vars.ts'

type Ctx = Context<{ Bindings: Env; Variables: BrowserAccessVariables & JsonBodyVariables }>

export const checkout = new Hono<{ Bindings: Env; Variables: BrowserAccessVariables & JsonBodyVariables }>()

checkout.use('/:id', browserAccess())
checkout.use('/:id/*', browserAccess())

/** The connecting address, as Cloudflare reports it; never a value from the body. */
function clientIp(c: Ctx): string {
  const ip = c.req.header('CF-Connecting-IP') ?? ''
  return checkFormat('ip', ip) === null ? ip : '127.0.0.1'
}

/** The sandbox gateway (on this machine, or a host named sandbox): the widget shows a "test mode" badge. */
function testMode(env: Env): boolean {
  try {
    const host = new URL(env.GATEWAY_BASE_URL).hostname
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || /(^|[.-])sandbox([.-]|$)/i.test(host)
  } catch {
    return false
  }
}

checkout.get('/:id', describeRoute(DOCS.view), (c) => c.json({ ...c.get('view'), testMode: testMode(c.env) }))

/** The stored answer of an attempt this key already made, if any (only asked on a refusal path). */
async function storedReply(c: Ctx, key: string, fingerprint: string): Promise<Response | undefined> {
  const reply = await c.get('session').replay(key, fingerprint)
  return reply ? sendReply(c, reply) : undefined
}

checkout.post('/:id/pay', describeRoute(DOCS.pay), jsonBody(), async (c) => {
  const stub = c.get('session')
  const view = c.get('view')
  const card = view.methods.includes('card')
  const saved = view.methods.includes('saved-card')
  if (!card && !saved) return errorResponse(c, 'forbidden', `This checkout does not offer card payments.`)
  const key = idempotencyKeyOf(c.req.header('Idempotency-Key'))
  if (typeof key !== 'string') return errorResponse(c, 'invalid_request', 'An Idempotency-Key header is required.', [key])
  const body = c.get('body')
  // A session offering both card methods: a card number means a new card, the CVV alone the saved one.
  const flow = card && (!saved || flatten(body)['card.number'] !== undefined) ? 'card' : 'saved-card'
  const parsed = parsePayBody(body, flow, view.customer ?? undefined, view.savedCard?.brand)
  if (!parsed.ok) {
    const message = parsed.error.code === 'param_mismatch' ? 'The amount, currency and order are fixed by the checkout session.' : 'Some fields are missing or invalid.'
    return errorResponse(c, parsed.error.code, message, parsed.error.fields)
  }
  const ip = clientIp(c)
  const shopper = parsed.value
  // A keyed hash of the card number: the velocity key and the idempotency fingerprint (R11, R15).
  // Derived once per isolate, not per request.
  const pepper = await derivedKey(c.env.SECURE_KEY, 'pay-checkout card fingerprint v1')
  const cardHash = shopper.cardNumber ? await hmacHex(pepper, shopper.cardNumber) : ''
  const canonical = Object.entries(shopper)
    .filter(([k]) => k !== 'cardNumber' && k !== 'cvv')
    .sort(([a], [b]) => a.localeCompare(b))
  const fingerprint = await sha256Hex(JSON.stringify({ canonical, cardHash, brand: detectBrand(shopper.cardNumber ?? '') ?? null }))
  // A burst of declines across the deployment (card testing) trips the breaker: new attempts then
  // need Turnstile, or wait where Turnstile is not configured (R10, R12). A retry of an attempt
  // that already ran still gets its stored answer (R16): its single-use token is spent by then.
  const breaker = await breakerState(c.env)
  if (breaker.tripped && !c.env.TURNSTILE_SECRET) {
    const retry = String(Math.max(1, Math.ceil(((breaker.until ?? Date.now()) - Date.now()) / 1000)))
    return (await storedReply(c, key, fingerprint)) ?? errorResponse(c, 'payments_paused', 'Card payments are paused for a few minutes. Please try again later.', undefined, { 'Retry-After': retry })
  }
  const turnstileNeeded = c.env.TURNSTILE_REQUIRED !== 'on_declines' || breaker.tripped
  if (turnstileNeeded && !(await turnstilePasses(c.env, body.turnstileToken, ip))) {
    return (await storedReply(c, key, fingerprint)) ?? errorResponse(c, 'forbidden', 'The bot check failed. Please try again.', [{ field: 'turnstileToken', code: 'invalid_value', expected: 'a fresh token from the Turnstile widget on this page' }])
  }
  // The session counts the card's velocity itself, once the attempt really starts (R11).
  return sendReply(c, await stub.pay({ method: flow, idempotencyKey: key, fingerprint, shopper, ip, velocityLimit: numberVar(c.env.CARD_VELOCITY_LIMIT, 5) || 5, ...(cardHash ? { cardHash } : {}) }))
})

checkout.post('/:id/qr/verify', describeRoute(DOCS.qrVerify), jsonBody(), async (c) => {
  const parsed = parseQrVerifyBody(c.get('body'), c.get('view').customer ?? {})
  if (!parsed.ok) return errorResponse(c, parsed.error.code, 'Some fields are missing or invalid.', parsed.error.fields)
  return sendReply(c, await c.get('session').qrVerify(parsed.value))
})

checkout.post('/:id/qr/complete', describeRoute(DOCS.qrComplete), jsonBody(), validate('json', noFields), async (c) => {
  const key = idempotencyKeyOf(c.req.header('Idempotency-Key'))
  if (typeof key !== 'string') return errorResponse(c, 'invalid_request', 'An Idempotency-Key header is required.', [key])
  return sendReply(c, await c.get('session').qrComplete(key))
})

checkout.post('/:id/invoice/regenerate', describeRoute(DOCS.invoiceRegenerate), jsonBody(), validate('json', noFields), async (c) => {
  return sendReply(c, await c.get('session').regenerateInvoice())
})
