/**
 * @module
 * Card and saved-card payments: the browser's pay, whole, in one call into the session (the Worker
 * makes no other on this path). Card data passes through here in memory only: it is not stored,
 * logged or returned.
 */
import { merchantStatusOf } from '../../merchants/merchant-env.ts'
import { GATEWAY_BRANDS, detectBrand, last4 as lastFour, type CardBrand } from '../../../shared/card.ts'
import type { RequestFieldName } from '../../../shared/fields.ts'
import { gatewayClient } from '../../config.ts'
import { callbackUrl } from '../../env-vars.ts'
import type { PaymentOutcome } from '../../gateway/outcome.ts'
import { sourceOf } from '../../guards/decline-breaker.ts'
import { registrationRefusal } from '../../registrations/guard.ts'
import { originRefused, secretMatches } from '../../access.ts'
import { payInputOf, type Admission, type PayAnswer, type PayRequest } from '../../sessions/pay-request.ts'
import { fail, type Reply } from '../../reply.ts'
import { checkoutView, offers, type Attempt, type SessionRecord } from '../../sessions/types.ts'
import { applyOutcome, begin, finish, refusal, replay } from '../attempt.ts'
import { MINUTE_MS, type SessionCore } from '../core.ts'

export interface PayInput {
  /** Which card method the shopper pays with (a session may offer both). */
  readonly method: 'card' | 'saved-card'
  readonly idempotencyKey: string
  /** SHA-256 over the canonical request (card number as its HMAC): what a reused key must match. */
  readonly fingerprint: string
  /** Shopper fields by logical name; card data lives only in this object, only during the call. */
  readonly shopper: Partial<Record<RequestFieldName, string>>
  readonly ip: string
  /** The card's keyed hash, counted for velocity once the attempt really starts (R11). */
  readonly cardHash?: string
  /** Attempts allowed per card in ten minutes, across sessions. */
  readonly velocityLimit: number
  /** The page that started the payment, on an allowed origin: the result page's link back. */
  readonly returnPage?: string
}

/**
 * Nothing is read or decided for a caller before its origin and then its client secret pass
 * (R21, R2); then the request's own checks, a replay of the key if it already ran (R16, even
 * when the breaker or Turnstile would refuse it now: its single-use token is spent by then), the
 * route's admission (R10, R12), and the attempt.
 */
export async function pay(core: SessionCore, req: PayRequest & { readonly admission: Admission }): Promise<PayAnswer> {
  const s = await core.load()
  if (originRefused(req.origin, req.secFetchSite, s?.allowedOrigins ?? [], core.env))
    return { access: 'origin_refused' }
  if (!s || !(await secretMatches(req.secret, s.clientSecretHash))) return { access: 'not_found' }
  // A disabled merchant takes no new pays (what is under way still settles): its checkouts are gone.
  if (merchantStatusOf(core.env) === 'disabled') return { access: 'not_found' }
  const input = await payInputOf(checkoutView(s, Date.now()), s.customer, s.allowedOrigins, req, core.env)
  if (!input.ok) return { access: 'granted', reply: input.error }
  const replayed = await replay(core, input.value.idempotencyKey, input.value.fingerprint)
  if (replayed) return { access: 'granted', reply: replayed }
  if (!req.admission.ok)
    return {
      access: 'granted',
      reply: req.admission.reply,
      ...(req.admission.retryAfter ? { retryAfter: req.admission.retryAfter } : {}),
    }
  return { access: 'granted', reply: await charge(core, s, input.value) }
}

/** A card or saved-card attempt the request's checks and the admission let through. */
async function charge(core: SessionCore, s: SessionRecord, input: PayInput): Promise<Reply> {
  if (!offers(s, input.method)) return fail('forbidden', `This checkout does not offer ${input.method} payments.`)
  const refused = await refusal(core, s, input.method)
  if (refused) return refused
  // Counted only now, when the attempt really starts: replays and refusals never lock a card (R11).
  // The call to the velocity object would let other requests of this session in between the
  // gate and `begin`; blocking them keeps "one attempt at a time" (R14).
  if (input.cardHash) {
    const velocity = core.env.VELOCITY.get(core.env.VELOCITY.idFromName(input.cardHash))
    const { allowed } = await core.ctx.blockConcurrencyWhile(() => velocity.hit(input.velocityLimit, 10 * MINUTE_MS))
    if (!allowed) return fail('too_many_attempts', 'Too many attempts with this card. Please try later.')
  }
  // A saved card deleted after this session was created (or being deleted) is never charged.
  const deleted =
    input.method === 'saved-card'
      ? await core.ctx.blockConcurrencyWhile(() => registrationRefusal(core.env, s.registrationId))
      : undefined
  if (deleted) return fail(deleted.code, deleted.message)
  if (input.returnPage) s.returnPage = input.returnPage
  const attempt = await begin(
    core,
    s,
    input.idempotencyKey,
    input.fingerprint,
    input.method,
    undefined,
    await sourceOf(input.ip),
  )
  // What the payment's record will carry: the email the gateway is sent, wherever it came from.
  if (input.shopper.email) s.payerEmail = input.shopper.email
  const outcome =
    input.method === 'card' ? await newCard(core, s, input, attempt) : await savedCard(core, s, input, attempt)
  const reply = await applyOutcome(core, s, outcome, attempt)
  return finish(core, s, attempt, input.idempotencyKey, input.fingerprint, reply)
}

/** What every card payment sends, whichever card. */
function common(core: SessionCore, s: SessionRecord, input: PayInput) {
  return {
    amount: s.amount,
    currency: s.currency,
    paymentType: s.paymentType,
    merchantTransactionId: s.merchantTransactionId,
    ip: input.ip,
    notificationUrl: callbackUrl(core.env, 'notifications', s.id),
    merchantRedirectUrl: callbackUrl(core.env, 'return', s.id),
    // POST keeps the gateway's signed checksum out of URLs, browser history and access logs (R25).
    redirectMethod: 'POST',
  }
}

function newCard(core: SessionCore, s: SessionRecord, input: PayInput, attempt: Attempt): Promise<PaymentOutcome> {
  const sh = input.shopper
  const brand: CardBrand | undefined = detectBrand(sh.cardNumber ?? '')
  s.card = attempt.card = { ...(brand ? { brand } : {}), last4: lastFour(sh.cardNumber ?? '') }
  return gatewayClient(core.env).payment({
    ...common(core, s, input),
    ...sh,
    paymentBrand: brand ? GATEWAY_BRANDS[brand] : '',
    ...(s.recurring ? { recurringType: 'INITIAL' } : {}),
    ...(s.createRegistration ? { createRegistration: 'true' } : {}),
  } as never)
}

function savedCard(core: SessionCore, s: SessionRecord, input: PayInput, attempt: Attempt): Promise<PaymentOutcome> {
  s.card = attempt.card = s.savedCard ? { ...s.savedCard } : {}
  return gatewayClient(core.env).payWithToken(s.registrationId ?? '', s.recurringType ?? 'REPEATED', {
    ...common(core, s, input),
    cvv: input.shopper.cvv ?? '',
  } as never)
}
