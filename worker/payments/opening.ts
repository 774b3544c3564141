/**
 * @module
 * The one place that decides which payments exist. Whatever learns that the gateway took money (a
 * session's success, a merchant repeat, an invoice regenerated through the merchant route and then
 * paid, a notification or an inquiry that settles one of those) hands it over here, and the
 * `payment` outbox job opens its Payment object in the same batch as that change: the record
 * always follows the money, even if the Worker stops right after it. Each source says what the
 * payment really is (its gateway payment type), which card saved it, and the metadata that
 * follows it (the session's, or the repeated payment's).
 */
import { paymentTypeOf } from '../checkout/methods/table.ts'
import type { Job } from '../outbox/jobs.ts'
import type { Flow, SessionRecord } from '../sessions/types.ts'
import { paymentIndexJob } from '../search/rows.ts'
import { openingRecord } from './status.ts'
import type { PaymentSnapshot } from './types.ts'

/** What any source knows of a payment that took money; the rest of the record starts empty. */
export type PaymentFacts = Omit<
  PaymentSnapshot,
  'createdAt' | 'card' | 'email' | 'registrationId' | 'sessionId' | 'recurring'
> &
  Partial<Pick<PaymentSnapshot, 'card' | 'email' | 'registrationId' | 'sessionId'>> & {
    readonly recurring: NonNullable<PaymentSnapshot['recurring']> | null
  }

/**
 * The jobs that open a payment's record (idempotent: a second one for the same payment changes
 * nothing) and write its first index row. The row is the opener's, not the object's: it waits
 * for the opener's own index row and goes with it, where the object would wake up a second
 * later for it alone, and it is not written while the record's opening still waits (`jobPlace`).
 * It is the record the object opens with (`openingRecord`), change number 1: where the record
 * existed already, its own later rows win over this one.
 */
export function openPayment(facts: PaymentFacts): Job[] {
  if (!facts.paymentId) return []
  const snapshot: PaymentSnapshot = {
    sessionId: null,
    registrationId: null,
    card: null,
    email: null,
    ...facts,
    createdAt: Date.now(),
  }
  return [{ kind: 'payment', snapshot, indexed: true }, paymentIndexJob(openingRecord(snapshot))]
}

/**
 * The recurringType a session's payment of `method` was sent with (checkout/methods/card.ts): a
 * card's INITIAL when the session starts a series, a saved card's own (REPEATED by default).
 */
const recurringOf = (s: SessionRecord, method: Flow): PaymentFacts['recurring'] =>
  method === 'card' ? (s.recurring ?? null) : method === 'saved-card' ? (s.recurringType ?? 'REPEATED') : null

/** Whether the session's payment is one that saves a card (a new card's, not a setup's: sessions/setup.ts). */
export const savesCard = (s: SessionRecord): boolean =>
  !s.setup && s.createRegistration === true && (s.method ?? s.flow) === 'card'

/**
 * The payment of a session that just succeeded (none without a paymentId), or `other`, a payment
 * of the session that took money after it was paid (checkout/notifications.ts `chargedAgain`).
 */
export function paymentOfSession(
  s: SessionRecord,
  other?: { readonly paymentId: string; readonly method: Flow; readonly card: PaymentSnapshot['card'] },
): Job[] {
  // A setup's authorisation registered a card and is voided by its session (sessions/setup.ts):
  // it is no payment, and nothing may capture, refund or repeat it. Its Payment object is only
  // marked, so that a repeat of it is refused (a repeat would charge the card with no record
  // of the card for its deletion's guard to check).
  const paymentId = other?.paymentId ?? s.paymentId
  if (!paymentId) return []
  if (s.setup) return [{ kind: 'setup', paymentId, sessionId: s.id }]
  // The method that paid, not the one shown first: a session offering QR then card may authorise.
  const method = other?.method ?? s.method ?? s.flow
  // The card it charged: a saved card's own, or the one a new card's payment saved (a session
  // offering a saved card beside a new one may be paid by either; the offered card is not the
  // new one's, whose deletion must stop this payment's repeats).
  const registrationId = other
    ? null
    : method === 'saved-card'
      ? (s.registrationId ?? null)
      : (s.createdRegistrationId ?? null)
  // Its card not known yet, and the gateway not yet asked to say there is none (registration.ts).
  // A second card payment of the session saved a card too, which nobody asks for: its repeats
  // stay refused (it is money taken twice, to be refunded, not repeated).
  const pending = other
    ? other.method === 'card' && s.createRegistration === true
    : !registrationId && !s.registrationNone && savesCard(s)
  return openPayment({
    paymentId,
    sessionId: s.id,
    merchantTransactionId: s.merchantTransactionId,
    amount: s.amount,
    currency: s.currency,
    paymentType: paymentTypeOf(method, s),
    source: method,
    recurring: recurringOf(s, method),
    registrationId,
    ...(pending ? { registrationPending: true as const } : {}),
    card: other ? other.card : (s.card ?? null),
    email: s.payerEmail ?? s.customer?.email ?? null,
    metadata: s.metadata ?? {},
  })
}
