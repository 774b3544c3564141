/**
 * @module
 * The hand-over from what took the money to its Payment object: a `payment` outbox job written
 * in the same batch as the session's (or repeat's) success, so the payment record always follows
 * a success, even if the Worker stops right after it.
 */
import type { Job } from '../outbox/jobs.ts'
import type { SessionRecord } from '../sessions/types.ts'

/** The job opening the payment of a session that just succeeded (none without a paymentId). */
export function paymentOfSession(s: SessionRecord): Job[] {
  if (!s.paymentId) return []
  // The method that paid, not the one shown first: a session offering QR then card may authorise.
  const method = s.method ?? s.flow
  return [
    {
      kind: 'payment',
      snapshot: {
        paymentId: s.paymentId,
        sessionId: s.id,
        merchantTransactionId: s.merchantTransactionId,
        amount: s.amount,
        currency: s.currency,
        // QR and invoice payments are sales; only card sessions may authorise (PA).
        paymentType: method === 'card' || method === 'saved-card' ? s.paymentType : 'DB',
        source: method,
        registrationId: s.createdRegistrationId ?? s.registrationId ?? null,
        card: s.card ?? null,
        email: s.customer?.email ?? null,
        metadata: s.metadata ?? {},
        createdAt: s.updatedAt,
      },
    },
  ]
}

/** The job opening the payment a merchant repeat made. */
export function paymentOfRepeat(r: { paymentId: string; merchantTransactionId: string; amount: string; currency: string; paymentType: 'DB' | 'PA' }): Job[] {
  return [
    {
      kind: 'payment',
      snapshot: { ...r, sessionId: null, source: 'repeat', registrationId: null, card: null, email: null, metadata: {}, createdAt: Date.now() },
    },
  ]
}
