/**
 * @module
 * An attempt's life, the same for every way to pay: the checks it passes (the money rule across
 * methods, the gate), its Idempotency-Key, its start (`processing` and the key on disk before the
 * gateway call), and what the gateway's answer makes of the session.
 */
import { brandFromGateway, type CardBrand } from '../../shared/card.ts'
import type { PaymentResponse } from '../../shared/types.ts'
import type { Outcome, PaymentOutcome } from '../gateway/outcome.ts'
import { countSettled } from '../guards/decline-breaker.ts'
import { callWindowMs } from '../env-vars.ts'
import { log } from '../log.ts'
import { checkKey, KEY_IN_PROGRESS, keyRefusal } from '../idempotency.ts'
import { fail, type Reply } from '../reply.ts'
import {
  attemptsRemaining,
  codesUnasked,
  effectiveStatus,
  isInFlight,
  methodUnderWay,
  receivedPaymentIds,
  strays,
  type Attempt,
  type Flow,
  type PayResult,
  type SessionRecord,
  type Status,
} from '../sessions/types.ts'
import { afterNoCharge, answer, type SessionCore } from './core.ts'
import { becomeUnknown, inquiryDelay } from './inquiry.ts'
import { METHOD_ROWS, METHODS, methodOfPayment } from './methods/table.ts'
import { paymentOfSession } from '../payments/opening.ts'
import { chargedAgain } from './charged-again.ts'
import { watchStrays } from './strays.ts'
import { registrationEvent } from '../sessions/setup.ts'

interface IdemEntry {
  readonly fingerprint: string
  /** The attempt the key started (its `n`): a provisional answer replays as that attempt is now. */
  readonly attempt?: number
  reply?: Reply
}

/** What a replay says of an attempt whose first answer was provisional, by how the attempt stands now. */
const REPLAYED_AS: Partial<Record<Attempt['status'], PayResult['status']>> = {
  succeeded: 'succeeded',
  declined: 'declined',
  pending: 'pending',
  action_required: 'action_required',
  unknown: 'unknown',
  processing: 'unknown',
}

/**
 * The answer for the attempt under a key, as it stands now. One the gateway never saw, or refused,
 * declined no card: it is answered as the pay would have been refused then, never as a decline
 * (the page would say the card was declined, and count a try). One not found that is still to be
 * asked about once more (strays.ts) is being confirmed, as it is: the page reads the session open
 * and may pay again with a new key, never told that nothing was charged.
 */
function answerFor(s: SessionRecord, attempt: Attempt): Reply | undefined {
  if (attempt.status === 'not_found')
    return attempt.recheck
      ? answer(s, 'unknown')
      : fail(
          'gateway_unavailable',
          'The payment service has no record of this payment: pay again with a new Idempotency-Key.',
        )
  if (attempt.status === 'refused')
    return fail('gateway_rejected', 'This payment could not be completed. Nothing was charged.')
  const now = REPLAYED_AS[attempt.status]
  return now && answer(s, now)
}

/**
 * The money rule across methods: once one method has a payment in flight or done (or an invoice
 * issued), every other method is refused, naming the one under way.
 */
export function otherMethod(s: SessionRecord, method: Flow): Reply | undefined {
  const busy = methodUnderWay(s)
  if (!busy || busy === method) return undefined
  const message =
    s.status === 'succeeded'
      ? `This checkout was already paid (${busy}).`
      : `A ${busy} payment is under way for this checkout.`
  return { ok: false, error: { code: 'method_in_progress', message, method: busy } }
}

/** Refuses an attempt the session cannot take; otherwise undefined. */
export async function gate(core: SessionCore, s: SessionRecord): Promise<Reply | undefined> {
  if (s.status === 'succeeded') return fail('session_completed', 'This checkout is already paid.')
  if (s.status === 'failed') return fail('too_many_attempts', 'This checkout can no longer be paid.')
  // What the clock says (an invoice being issued keeps its session: effectiveStatus).
  if (effectiveStatus(s, Date.now()) === 'expired' && !s.invoice && codesUnasked(s).length === 0) {
    await core.move(s, 'expired')
    return fail('session_expired', 'This checkout has expired.')
  }
  // A payment the session moved on from may still take money (strays.ts): no other is sent for
  // its order until that one is settled.
  if (isInFlight(s.status) || strays(s).length > 0)
    return fail('payment_in_progress', 'A payment for this checkout is already in progress.')
  // Past its time, no new charge: the session ends by its expiry, which first waits for an attempt
  // to ask about again, and asks about an issued invoice or QR codes shown (an invoice still being
  // issued keeps its session, as above).
  if ((s.status === 'open' || s.status === 'declined') && Date.now() >= s.expiresAt && !s.regeneration) {
    await core.schedule('expire', Date.now(), true)
    return fail('session_expired', 'This checkout has expired.')
  }
  if (attemptsRemaining(s) === 0) return fail('too_many_attempts', 'Too many attempts for this checkout.')
  return undefined
}

/** Both checks every attempt passes, the money rule first. */
export const refusal = async (core: SessionCore, s: SessionRecord, method: Flow): Promise<Reply | undefined> =>
  otherMethod(s, method) ?? (await gate(core, s))

/**
 * Replays a completed key, refuses a reused key with other parameters or still running. A final
 * first answer replays as it was; one that was provisional (`unknown`, `pending`,
 * `action_required`: the gateway had not said) replays as its attempt is now (`answerFor`: one
 * found never made, its refusal), so a retry after a lost answer learns the outcome instead of
 * "unknown" forever.
 */
export async function replay(core: SessionCore, key: string, fingerprint: string): Promise<Reply | undefined> {
  const stored = await core.ctx.storage.get<IdemEntry>(`idem:${key}`)
  const s = stored ? await core.load() : undefined
  const attemptOf = (e: IdemEntry) => s?.attempts.find((a) => a.n === e.attempt)
  // Finished once answered, or once its attempt moved on without an answer (the Worker went away
  // during the call, and the watchdog took it from there): a retry then learns it as it is now.
  const check = checkKey(
    stored,
    fingerprint,
    (e) => e.reply !== undefined || (attemptOf(e)?.status ?? 'processing') !== 'processing',
  )
  if (check.kind === 'new') return undefined
  if (check.kind === 'refused') return keyRefusal(check)
  const first = check.entry.reply
  const said = first?.ok ? (first.body as { status?: unknown }).status : undefined
  if (first && said !== 'unknown' && said !== 'pending' && said !== 'action_required')
    return { ...first, replayed: true }
  const attempt = attemptOf(check.entry)
  const now = s && attempt ? answerFor(s, attempt) : undefined
  if (now) return { ...now, replayed: true }
  return first ? { ...first, replayed: true } : keyRefusal(KEY_IN_PROGRESS)
}

/** What the session's other ways to pay show is withdrawn (a QR code), now that `method` pays. */
export function withdrawOthers(s: SessionRecord, method: Flow): void {
  for (const other of METHOD_ROWS) if (other !== METHODS[method]) other.yieldTo?.(s)
}

/** Starts an attempt: `processing` and the key are on disk before the caller goes upstream. */
export async function begin(
  core: SessionCore,
  s: SessionRecord,
  key: string,
  fingerprint: string,
  method: Flow,
  paymentId?: string,
  source?: string,
): Promise<Attempt> {
  const attempt: Attempt = {
    n: s.attempts.length + 1,
    at: Date.now(),
    method,
    status: 'processing',
    ...(paymentId ? { paymentId } : {}),
    ...(source ? { source } : {}),
  }
  s.attempts.push(attempt)
  s.method = method
  // A way to pay without a card: the card an earlier attempt was made with (declined) is no card
  // of this payment. A card's own attempt names its card (methods/card.ts), and a payment's
  // answer, inquiry or notification the card that paid.
  if (method !== 'card' && method !== 'saved-card') delete s.card
  // The session's payment is this attempt's from now on (the earlier ones stay known by their
  // attempts): an answer that never comes must not name the payment declined before it.
  if (paymentId) s.paymentId = paymentId
  else delete s.paymentId
  // Likewise the card an earlier attempt's answer named (a 3-D Secure answer names it before the
  // bank's step; a failed one stores nothing): only this attempt's may become the session's.
  delete s.createdRegistrationId
  withdrawOthers(s, method)
  s.inquiries = 0
  delete s.lastError
  // The watchdog is set in the same write as `processing`: one batch and one alarm before the call.
  await core.move(
    s,
    'processing',
    { [`idem:${key}`]: { fingerprint, attempt: s.attempts.length } satisfies IdemEntry },
    { watchdog: Date.now() + callWindowMs(core.env) },
  )
  return attempt
}

/**
 * Keeps the attempt's answer under its key (what a retry replays) and ends its watchdog, unless a
 * newer attempt has begun meanwhile (the watchdog is that one's now).
 */
export async function finish(
  core: SessionCore,
  s: SessionRecord,
  attempt: Attempt,
  key: string,
  fingerprint: string,
  reply: Reply,
): Promise<Reply> {
  const started = await core.ctx.storage.get<IdemEntry>(`idem:${key}`)
  await core.ctx.storage.put(`idem:${key}`, { ...started, fingerprint, reply } satisfies IdemEntry)
  if (s.attempts[s.attempts.length - 1] === attempt) await core.cancel('watchdog')
  return reply
}

/** Whether a gateway answer is about this session's order, amount and currency. */
export function sameOrder(s: SessionRecord, r: Partial<PaymentResponse>): boolean {
  return (
    (r.merchantTransactionId === undefined || r.merchantTransactionId === s.merchantTransactionId) &&
    (r.amount === undefined || r.amount === s.amount) &&
    (r.currency === undefined || r.currency === s.currency)
  )
}

/**
 * What a gateway answer about `attempt`, the attempt in flight, tells about the session's payment
 * (ids, status, card brand and last 4).
 */
export function absorb(s: SessionRecord, r: Partial<PaymentResponse>, attempt: Attempt | undefined): void {
  if (r.paymentId) {
    s.paymentId = r.paymentId
    if (attempt && isInFlight(attempt.status as Status)) attempt.paymentId = r.paymentId
  }
  if (r.transactionStatus) s.transactionStatus = r.transactionStatus
  // The card a new card's payment saved: a saved card's answer names the card it charged.
  if (r.registrationId && s.createRegistration && (attempt?.method ?? s.method) !== 'saved-card')
    s.createdRegistrationId = r.registrationId
  if (r.cardLast4) s.card = { brand: brandFromGateway(r.paymentBrand) ?? s.card?.brand, last4: r.cardLast4 }
}

/**
 * Counts a settled attempt for the deployment's decline breaker (R12) when its method is counted,
 * after the session's own change is written and without holding the shopper's answer for it.
 * Called by whichever settles the attempt (its answer, the gateway's notification, an inquiry),
 * so once: only the one whose change moves the session counts it.
 */
export function tally(core: SessionCore, s: SessionRecord, declined: boolean): void {
  if (!METHODS[s.method ?? s.flow].countsForBreaker) return
  countSettled(core.env, (work) => core.ctx.waitUntil(work), declined, s.attempts[s.attempts.length - 1]?.source)
}

/**
 * The gateway says `attempt`'s payment took money after the session moved on (a notification
 * settled the attempt while the Worker's own call about it was on its way, and the session was
 * paid otherwise, or declined, or a newer attempt began). Money taken is never forgotten: it pays
 * the session if nothing has, else it is money taken a second time (charged-again.ts). A newer
 * attempt still in flight then settles as a second payment if it takes money too: by its answer,
 * or by its notification, which a paid session takes for an attempt that never learned its
 * payment's id (notifications.ts). The payment is credited to the attempt that has its id, if
 * one has (an inquiry by order may answer with a newer attempt's payment), and its card is the
 * answer's when the answer names one.
 */
export async function tookMoney(
  core: SessionCore,
  s: SessionRecord,
  attempt: Attempt,
  paymentId: string | undefined,
  r?: Partial<PaymentResponse>,
): Promise<void> {
  if (!paymentId) {
    log.error('late_success_unnamed', { session: s.id, attempt: attempt.n })
    return
  }
  if (s.status === 'succeeded' && paymentId === s.paymentId) return
  // A payment another method holds as its own (a withdrawn QR code the wallet paid, named by an
  // inquiry by order) is not `attempt`'s: that attempt's own charge stays unknown (strays.ts).
  // Of the attempts with its id (a QR code completed twice), the one asked about.
  const theirs = methodOfPayment(s, paymentId)
  const owner =
    attempt.paymentId === paymentId
      ? attempt
      : (s.attempts.findLast((a) => a.paymentId === paymentId) ?? (theirs ? undefined : attempt))
  if (owner) owner.paymentId = paymentId
  const card = r?.cardLast4 ? { brand: brandFromGateway(r.paymentBrand), last4: r.cardLast4 } : null
  if (s.status === 'succeeded') {
    await chargedAgain(core, s, paymentId, owner?.method ?? theirs, card, owner)
    return
  }
  if (owner) owner.status = 'succeeded'
  s.paymentId = paymentId
  const method = owner?.method ?? theirs
  if (method) s.method = method
  cardOfSuccess(s, card, owner)
  if (await core.move(s, 'succeeded')) tally(core, s, false)
}

/**
 * The card the session names once a success is applied (`s.method` set to the method that paid):
 * the one its news names, else the one its attempt was made with; none for a way to pay without a
 * card (a QR code a wallet paid after a card was declined, whose notification names no card).
 */
export function cardOfSuccess(
  s: SessionRecord,
  news: { brand?: CardBrand; last4?: string } | null,
  attempt: Attempt | undefined,
): void {
  const card = news ?? attempt?.card
  const method = s.method ?? s.flow
  if (card) s.card = { ...card, brand: card.brand ?? attempt?.card?.brand ?? s.card?.brand }
  else if (method !== 'card' && method !== 'saved-card') delete s.card
}

/**
 * Turns the gateway's answer to `attempt` (the attempt that made the call) into the session's next
 * state and the browser's answer.
 */
export async function applyOutcome(
  core: SessionCore,
  s: SessionRecord,
  outcome: PaymentOutcome | Outcome<{ paymentId?: string | undefined }>,
  attempt: Attempt,
): Promise<Reply> {
  // Settled while its answer was on the way (the gateway's notification, an inquiry), or a newer
  // attempt began after that: the record stands, and a late answer ("pending", a decline, or
  // none) changes nothing of the session's state, status or codes, nor of a newer attempt (all
  // of a session's attempts have its order reference: only the attempt tells them apart). Only
  // money taken, and what the answer alone carries (the registration a first payment made: a
  // notification names none), are kept. The shopper is answered as a replay of the key would be.
  if (!isInFlight(s.status) || s.attempts[s.attempts.length - 1] !== attempt) {
    const r = 'response' in outcome ? (outcome.response as Partial<PaymentResponse> | undefined) : undefined
    if (outcome.kind === 'succeeded') await tookMoney(core, s, attempt, r?.paymentId ?? attempt.paymentId, r)
    else if (r?.paymentId && !attempt.paymentId && !receivedPaymentIds(s).includes(r.paymentId)) {
      // Not settled yet, or not by money (pending, a bank step, a decline): the attempt keeps the
      // id its answer names, so that the payment's notification is known as this session's, and
      // its state, so that it is asked about while its money may move (strays.ts): an attempt
      // given up as unknown to the gateway (`not_found`) may have reached it after all.
      attempt.paymentId = r.paymentId
      if (attempt.status === 'processing' || attempt.status === 'unknown' || attempt.status === 'not_found')
        attempt.status =
          outcome.kind === 'declined' || outcome.kind === 'pending' || outcome.kind === 'action_required'
            ? outcome.kind
            : outcome.kind === 'rejected'
              ? 'refused'
              : 'unknown'
      delete attempt.recheck
      await core.save(s)
    } else if (outcome.kind === 'unknown' && attempt.status === 'processing') {
      // Its answer lost after the session moved on: still unknown, its notification still heard.
      attempt.status = 'unknown'
      await core.save(s)
    }
    // An attempt left in flight is asked about, as its notification may never come (strays.ts).
    await watchStrays(core, s)
    if (r?.registrationId && r.paymentId === s.paymentId && s.createRegistration && !s.createdRegistrationId) {
      s.createdRegistrationId = r.registrationId
      // Its payment's record, opened at the success, takes the card too (payments/opening.ts),
      // and the merchant, whose success event named none, is told it (registration.ts).
      const tell = s.status === 'succeeded' && !s.registrationTold
      if (tell) s.seq += 1
      await core.commit(
        s.id,
        s.seq,
        { session: s },
        tell ? registrationEvent(s) : [],
        s.status === 'succeeded' ? paymentOfSession(s) : [],
      )
    }
    // An answer that says money may have moved (a success it could not name, or none at all) is
    // no "nothing was charged" for an attempt given up as never seen: it is being confirmed.
    const givenUp = attempt.status === 'not_found' || attempt.status === 'refused'
    if (givenUp && (outcome.kind === 'succeeded' || outcome.kind === 'unknown')) return answer(s, 'unknown')
    return answerFor(s, attempt) ?? answer(s, 'unknown')
  }
  if ('response' in outcome && outcome.response) absorb(s, outcome.response as Partial<PaymentResponse>, attempt)
  if ('code' in outcome) {
    s.resultCode = outcome.code
    s.resultDescription = outcome.description
    Object.assign(attempt, { code: outcome.code, description: outcome.description })
  }
  switch (outcome.kind) {
    case 'succeeded':
      attempt.status = 'succeeded'
      // The gateway's notification may have settled it during the call (and counted it).
      if (await core.move(s, 'succeeded')) tally(core, s, false)
      return answer(s, 'succeeded')
    case 'declined':
      attempt.status = 'declined'
      if (await core.move(s, afterNoCharge(s, true))) tally(core, s, true)
      return answer(s, 'declined')
    case 'pending':
    case 'action_required':
      attempt.status = outcome.kind
      if (outcome.kind === 'action_required') s.redirect = outcome.redirect
      await core.move(s, outcome.kind)
      // Settled by notification; the inquiry is the safety net if none comes.
      await core.schedule('inquiry', Date.now() + inquiryDelay(core.env, s))
      return answer(s, outcome.kind)
    case 'unknown':
      log.warn('payment_unknown', { session: s.id, reason: outcome.reason })
      await becomeUnknown(core, s)
      return answer(s, 'unknown')
    case 'unsent': {
      // Nothing left the Worker: the attempt did not happen. Where that leaves the session is
      // read before it goes: with it still the session's own attempt, an earlier one whose late
      // answer came meanwhile counts as a stray (strays.ts), which holds expiry.
      const to = afterNoCharge(s, false)
      s.attempts.pop()
      const error =
        outcome.reason === 'token_refused'
          ? ({
              code: 'gateway_auth_failed',
              message: 'The payment service refused our credentials (AuthToken). Nothing was charged.',
            } as const)
          : ({
              code: 'gateway_unavailable',
              message: 'The payment service cannot be reached. Nothing was charged; please try again later.',
            } as const)
      s.lastError = error
      log.error('gateway_unsent', { session: s.id, reason: outcome.reason })
      await core.move(s, to)
      return fail(error.code, error.message)
    }
    default: {
      // Refused before processing (our request or the merchant's account): nothing was charged.
      attempt.status = 'refused'
      const code = 'code' in outcome ? outcome.code : undefined
      const description = 'code' in outcome ? outcome.description : undefined
      // The merchant's view (and its events) say what the gateway said; the browser gets our
      // closed code and a fixed sentence, never the gateway's code or words.
      const message = code
        ? `The payment service refused the request (${code}: ${description || 'no description'}). Nothing was charged.`
        : 'The payment request was not valid for the payment service. Nothing was charged.'
      s.lastError = { code: 'gateway_rejected', message, ...(code ? { gatewayCode: code } : {}) }
      log.error('gateway_refused', {
        session: s.id,
        kind: outcome.kind,
        code,
        fields: 'fields' in outcome ? outcome.fields : undefined,
      })
      await core.move(s, afterNoCharge(s, false))
      return fail('gateway_rejected', 'This payment could not be completed. Nothing was charged.')
    }
  }
}
