/**
 * @module
 * A session as the merchant reads it (`GET /v1/sessions/{id}`, the search index, its events).
 */
import {
  methodsOf,
  methodUnderWay,
  type Flow,
  type MerchantView,
  type RequestedFlow,
  type SessionRecord,
} from '../sessions/types.ts'
import { paymentTypeOf } from './methods/table.ts'

export function merchantView(s: SessionRecord): MerchantView {
  // A setup runs as a card session; the merchant sees the flow it asked for.
  const asked = (m: Flow): RequestedFlow => (s.setup && m === 'card' ? 'setup' : m)
  const method = methodUnderWay(s)
  return {
    id: s.id,
    flow: asked(s.flow),
    methods: methodsOf(s).map(asked),
    method: method ? asked(method) : null,
    status: s.status,
    amount: s.amount,
    currency: s.currency,
    merchantTransactionId: s.merchantTransactionId,
    // What the gateway was asked for once a method is under way: a QR wallet's payment is an
    // authorisation (PA) and an invoice's a sale (DB) whatever the session asked, and a merchant
    // who ships on `checkout.session.succeeded` must see that a QR payment waits for its capture.
    paymentType: method ? paymentTypeOf(method, s) : s.paymentType,
    recurring: s.recurring ?? null,
    // `recheck` says an attempt not found is still to be asked about: once its notification or a
    // late answer settled it, the flag it may still carry says nothing. `source`, the shopper's
    // network hashed for the breaker, is personal data the merchant has no use for: never shown,
    // and so never in the events or the search index either.
    // The card of each attempt is the session's to name (`card`), once, for its payment.
    attempts: s.attempts.map(({ recheck, source: _network, card: _card, ...a }) =>
      recheck && a.status === 'not_found' ? { ...a, recheck } : a,
    ),
    maxAttempts: s.maxAttempts,
    paymentId: s.paymentId ?? null,
    // The card saved by its payment, else the saved card it offers or charged: not once a new
    // card paid (its card is then learned, or none).
    registrationId: s.createdRegistrationId ?? (s.method === 'card' ? null : (s.registrationId ?? null)),
    resultCode: s.resultCode ?? null,
    resultDescription: s.resultDescription ?? null,
    transactionStatus: s.transactionStatus ?? null,
    card: s.card ?? null,
    invoice: s.invoice ?? null,
    lastError: s.lastError ?? null,
    refusedNotifications: s.refusedNotifications?.length ?? 0,
    setup: s.setup ? { amount: s.amount, void: s.setupVoid?.status ?? null } : null,
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
    expiresAt: new Date(s.expiresAt).toISOString(),
    metadata: s.metadata ?? {},
  }
}
