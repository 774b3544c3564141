/**
 * @module
 * The gateway's notifications, once their checksum is verified (the route's work): which ones are
 * this session's, and what each may settle. A success for any of the session's payments wins
 * (money taken at the gateway must end as a paid session); only the attempt in flight may be
 * declined or left pending; anything else is refused and kept for the operator.
 */
import { NOTIFICATION_FIELDS } from '../../shared/fields.ts'
import type { Notification, PaymentResponse } from '../../shared/types.ts'
import { settlementOf } from '../gateway/outcome.ts'
import { log } from '../log.ts'
import {
  canMove,
  isInFlight,
  receivedPaymentIds,
  rechecks,
  strays,
  type Flow,
  type SessionRecord,
  type Status,
} from '../sessions/types.ts'
import { cardOfSuccess, tally } from './attempt.ts'
import { afterNoCharge, type SessionCore } from './core.ts'
import { inquiryDelay } from './inquiry.ts'
import { cardOf, chargedAgain, unnamedAttempt } from './charged-again.ts'
import { claimingMethod, METHODS, methodOfPayment, methodPaymentIds } from './methods/table.ts'

/** What a verified notification did: applied, already known, or refused as not this session's. */
export type NotificationResult =
  | { readonly kind: 'applied'; readonly status: string }
  | { readonly kind: 'duplicate'; readonly status: string }
  | { readonly kind: 'refused'; readonly reason: string }

/** Signed notifications that are not this session's: the last ones are kept for the operator. */
const KEEP_REFUSED = 20

/**
 * Why a verified notification is not this session's, or undefined when it is. It must name a
 * payment the gateway gave this session (or, before any answer, match the attempt in flight by
 * order, amount and currency); the checksum does not cover the currency, so it is compared too.
 * A method with a rule of its own (an invoice's tries on the gateway's page) decides by it.
 */
function foreign(s: SessionRecord, n: Notification, claimant: Flow | undefined): string | undefined {
  if (n.currency !== s.currency) return 'currency'
  const own = claimant && METHODS[claimant].notifications
  if (own) return own.foreign(s, n)
  if (n.merchantTransactionId !== s.merchantTransactionId) return 'order'
  if (n.amount !== s.amount) return 'amount'
  if (receivedPaymentIds(s).includes(n.paymentId)) return undefined
  // A payment of this order, amount and currency that no answer named: an attempt that never
  // learned its payment's id (its answer on the way or lost, or the gateway asked too early and
  // said it had none) is its only source, since the order reference is this session's alone.
  if (unnamedAttempt(s)) return undefined
  return 'payment'
}

/** A notification whose checksum the route verified. Settles the session only if it is its own. */
export async function settleFromNotification(core: SessionCore, n: Notification): Promise<NotificationResult> {
  const s = await core.load()
  if (!s) return { kind: 'refused', reason: 'no_session' }
  const claimant = claimingMethod(s, n)
  const reason = foreign(s, n, claimant)
  if (reason) {
    s.refusedNotifications = [
      ...(s.refusedNotifications ?? []),
      { at: Date.now(), paymentId: n.paymentId, reason },
    ].slice(-KEEP_REFUSED)
    await core.save(s)
    log.warn('notification_refused', { session: s.id, paymentId: n.paymentId, reason })
    return { kind: 'refused', reason }
  }
  const attempt = s.attempts[s.attempts.length - 1]
  // A method's own notifications (an invoice's) settle by their rule; otherwise only the attempt
  // in flight may be declined or left pending. An attempt still without a payment id is named
  // only by a payment id no other payment of the session has: a late decline of an earlier
  // attempt or of a QR code given up on says nothing about the card payment now in flight,
  // whose charge may still be taken.
  const earlier = s.attempts
    .slice(0, -1)
    .map((a) => a.paymentId)
    .concat(methodPaymentIds(s), s.unclaimedPayments ?? [])
  // Nor by one when an earlier attempt never learned its payment's id either and its money may
  // still move (its answer lost, or not found yet and to be asked again): the payment may be that
  // one's, reaching the gateway after all. It is kept as unclaimed, so that an inquiry by order
  // naming it does not settle the attempt in flight either, which its own answer or inquiry
  // settles; a success still pays the session, whichever attempt it was.
  const unnamedEarlier = [...strays(s), ...rechecks(s)].some((a) => a !== attempt && !a.paymentId)
  const current =
    claimant !== undefined ||
    (attempt?.paymentId ? attempt.paymentId === n.paymentId : !earlier.includes(n.paymentId) && !unnamedEarlier)
  let to: Status | undefined
  const verdict = settlementOf(n.transactionStatus)
  if (verdict === 'charged') to = 'succeeded'
  // Declined: where that leaves the session (`afterNoCharge`) is decided once the attempt it
  // settles counts as declined, below; a last attempt's decline fails the session.
  else if (verdict === 'not_charged' && current && (isInFlight(s.status) || claimant)) to = 'declined'
  else if (
    verdict === 'pending' &&
    current &&
    (s.status === 'processing' || s.status === 'unknown' || s.status === 'action_required')
  )
    to = 'pending'
  // Money taken a second time for a paid session (a QR code, or a card's bank step, completed after
  // another way paid) is never answered "duplicate" and forgotten.
  if (to === 'succeeded' && s.status === 'succeeded' && n.paymentId && n.paymentId !== s.paymentId)
    return chargedAgain(core, s, n.paymentId, claimant, cardOf(n))
  // Only a decline: a pending payment may be the attempt in flight's own, whose inquiry by order
  // must still take it as its own and ask about it by its id.
  if (!to && unnamedEarlier && !current && verdict === 'not_charged' && !receivedPaymentIds(s).includes(n.paymentId)) {
    s.unclaimedPayments = [...(s.unclaimedPayments ?? []), n.paymentId].slice(-KEEP_REFUSED)
    await core.save(s)
    log.warn('notification_unclaimed', { session: s.id, paymentId: n.paymentId })
  }
  if (!to || !canMove(s.status, to)) return { kind: 'duplicate', status: s.status }
  s.paymentId = n.paymentId
  if (claimant) METHODS[claimant].notifications?.settles(s, n)
  s.transactionStatus = n.transactionStatus
  if (n.resultCode) s.resultCode = n.resultCode
  if (n.resultDescription) s.resultDescription = n.resultDescription
  const card = cardOf(n)
  if (card) s.card = { ...card, brand: card.brand ?? s.card?.brand }
  // The attempt it settles: the one with its id, else one that never learned its payment's id,
  // unless the payment is another method's own (a QR code paid while a card's answer was lost):
  // credited to that card, it would end the card's attempt, whose own charge is still unknown.
  const theirs = methodOfPayment(s, n.paymentId)
  const settled = claimant
    ? undefined
    : (s.attempts.findLast((a) => a.paymentId === n.paymentId) ??
      (theirs ? undefined : ((current ? attempt : undefined) ?? unnamedAttempt(s))))
  // A late success names the method that took the money (a withdrawn QR code, an earlier card).
  if (to === 'succeeded') {
    s.method = claimant ?? settled?.method ?? theirs ?? s.method
    cardOfSuccess(s, card, settled)
  }
  if (settled) {
    Object.assign(settled, { paymentId: n.paymentId, status: to === 'succeeded' || to === 'pending' ? to : 'declined' })
    // The result that settled it, as an answer's or an inquiry's does: not the answer it waited
    // on (a 3-D Secure step's "authentication required"), which the console's decline reasons
    // and the merchant's view of the attempt would otherwise report as why it was declined.
    if (n.resultCode) {
      settled.code = n.resultCode
      if (n.resultDescription) settled.description = n.resultDescription
      else delete settled.description
    }
  }
  if (to === 'declined') to = afterNoCharge(s, true)
  const moved = await core.move(s, to)
  if (to === 'pending') await core.schedule('inquiry', Date.now() + inquiryDelay(core.env, s))
  else if (moved) tally(core, s, to !== 'succeeded')
  return { kind: 'applied', status: s.status }
}

const NO_FIELDS = Object.fromEntries(Object.keys(NOTIFICATION_FIELDS).map((k) => [k, undefined])) as Record<
  keyof Notification,
  undefined
>

/**
 * A payment the gateway, asked, says took money (a notification that may have been lost: an
 * invoice's, a QR code's), settled as its notification would be, with the same checks of order,
 * amount and currency: an answer without its order or currency is not taken as paid.
 */
export async function settleFromInquiry(
  core: SessionCore,
  r: Partial<PaymentResponse>,
  result: { readonly code: string; readonly description: string },
): Promise<'paid' | 'ask_later' | 'unpaid'> {
  if (!r.paymentId || !r.merchantTransactionId || !r.currency || !r.amount) return 'ask_later'
  const settled = await settleFromNotification(core, {
    ...NO_FIELDS,
    paymentId: r.paymentId,
    transactionStatus: r.transactionStatus ?? 'Y',
    amount: r.amount,
    currency: r.currency,
    merchantTransactionId: r.merchantTransactionId,
    // Asked of the gateway, not received: there is no checksum to carry.
    checksum: '',
    paymentBrand: r.paymentBrand,
    resultCode: result.code,
    resultDescription: result.description,
    cardLastFourDigits: r.cardLast4,
  })
  return settled.kind === 'applied' ? 'paid' : 'unpaid'
}
