/**
 * @module
 * Money taken a second time for a paid session: a payment of it other than the one that paid it
 * took money (a QR code paid after the card, a card's bank step finished after a QR code paid, an
 * earlier attempt's late success). Its notification or its late answer is never taken as a
 * duplicate and forgotten: its record opens, the merchant is told once, and the session stays paid
 * by its own payment.
 */
import { brandFromGateway } from '../../shared/card.ts'
import type { Notification } from '../../shared/types.ts'
import { log } from '../log.ts'
import type { PaymentSnapshot } from '../payments/types.ts'
import { paymentOfSession } from '../payments/opening.ts'
import type { Attempt, Flow, SessionRecord } from '../sessions/types.ts'
import type { SessionCore } from './core.ts'
import { methodOfPayment } from './methods/table.ts'

/** The card a notification names, as a payment record keeps it. */
export function cardOf(n: Notification): PaymentSnapshot['card'] {
  const last4 = n.cardLast4 ?? n.cardLastFourDigits
  return last4 ? { brand: brandFromGateway(n.paymentBrand), last4 } : null
}

/** An attempt whose charge may have been taken though no answer named its payment. */
export const unnamedAttempt = (s: SessionRecord): Attempt | undefined =>
  s.attempts.findLast(
    (a) => !a.paymentId && (a.status === 'processing' || a.status === 'unknown' || a.status === 'not_found'),
  )

/**
 * `paymentId` took money on the paid session `s`: its record opens (refund or void it) and
 * `checkout.session.charged_again` is told, once per payment. Its amount and currency are the
 * session's (a notification's were checked against them; an answer is to the session's request).
 * A setup session's second authorisation gets no record: nothing may capture it.
 */
export async function chargedAgain(
  core: SessionCore,
  s: SessionRecord,
  paymentId: string,
  claimant: Flow | undefined,
  card: PaymentSnapshot['card'],
  owner?: Attempt,
): Promise<{ readonly kind: 'applied' | 'duplicate'; readonly status: string }> {
  if (s.chargedAgain?.includes(paymentId)) return { kind: 'duplicate', status: s.status }
  ;(s.chargedAgain ??= []).push(paymentId)
  // Its attempt (a card on the bank's page when the QR code was paid) is settled too: `owner`
  // (the attempt an answer or an inquiry was about), else the one with its id, else one that never
  // learned its payment's id (a card charge whose answer was lost), unless the payment is another
  // method's own (a withdrawn QR code): that card's charge is still unknown, and asked about
  // (strays.ts).
  const attempt =
    owner ??
    s.attempts.findLast((a) => a.paymentId === paymentId) ??
    (claimant === undefined && !methodOfPayment(s, paymentId) ? unnamedAttempt(s) : undefined)
  if (attempt) Object.assign(attempt, { paymentId, status: 'succeeded' })
  const method = claimant ?? attempt?.method ?? methodOfPayment(s, paymentId) ?? s.method ?? s.flow
  s.seq += 1
  s.updatedAt = Date.now()
  log.error('charged_again', { session: s.id, paymentId, method })
  await core.commit(
    s.id,
    s.seq,
    { session: s },
    [
      {
        type: 'checkout.session.charged_again',
        data: {
          sessionId: s.id,
          merchantTransactionId: s.merchantTransactionId,
          paymentId,
          method,
          amount: s.amount,
          currency: s.currency,
          sessionPaymentId: s.paymentId ?? null,
          metadata: s.metadata ?? {},
          sequence: s.seq,
        },
      },
    ],
    // No record for a setup's authorisation, only its mark (paymentOfSession): nothing may
    // capture, refund or repeat it.
    paymentOfSession(s, { paymentId, method, card }),
  )
  return { kind: 'applied', status: s.status }
}
