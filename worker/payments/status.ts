/**
 * @module
 * The one place a payment's status comes from: the gateway's `transactionStatus` of the payment
 * that opened it, and the operations that succeeded since. Nothing else names payment statuses.
 *
 * | status | when |
 * | --- | --- |
 * | `authorized` | a `PA` payment succeeded (`Y`) and is neither captured nor voided |
 * | `captured` | a `DB` payment succeeded, or an authorisation was captured; nothing refunded |
 * | `partially_refunded` | refunds succeeded for part of what was captured |
 * | `refunded` | refunds succeeded for all of it |
 * | `voided` | the authorisation was voided (reversed) before any capture |
 *
 * A payment record exists only for a payment the gateway took (`Y`): pending, declined and
 * unknown attempts stay with their session.
 */
import { formatAmount, parseAmount } from '../../shared/money.ts'
import {
  IN_FLIGHT_OPERATION,
  type MoneyOperation,
  type OperationView,
  type PaymentRecord,
  type PaymentSnapshot,
  type PaymentView,
} from './types.ts'

/** What a payment id with no record is told, by the merchant routes and the Payment object alike. */
export const NO_SUCH_PAYMENT =
  'No such payment (a payment appears here shortly after it succeeds; a setup session’s authorisation, voided, never does).'

export const PAYMENT_STATUSES = ['authorized', 'captured', 'partially_refunded', 'refunded', 'voided'] as const
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

/**
 * Hundredths captured when the payment opens, from its type and the gateway's transactionStatus:
 * a succeeded `DB` is captured in full, a succeeded `PA` is only authorised.
 */
function capturedAtOpening(paymentType: 'DB' | 'PA', amount: string, transactionStatus: 'Y' = 'Y'): number {
  return transactionStatus === 'Y' && paymentType === 'DB' ? (parseAmount(amount) ?? 0) : 0
}

/**
 * The record a payment opens with: its snapshot, captured as its type says, nothing refunded,
 * change number 1, as of the time it succeeded. A pure function of the snapshot, so whoever opens
 * the payment (opening.ts) writes the same first index row as the object would.
 */
export function openingRecord(snapshot: PaymentSnapshot): PaymentRecord {
  return {
    ...snapshot,
    capturedMinor: capturedAtOpening(snapshot.paymentType, snapshot.amount),
    refundedMinor: 0,
    voided: false,
    operations: [],
    seq: 1,
    updatedAt: snapshot.createdAt,
  }
}

export function paymentStatus(p: PaymentRecord): PaymentStatus {
  if (p.voided) return 'voided'
  if (p.capturedMinor === 0) return 'authorized'
  if (p.refundedMinor === 0) return 'captured'
  return p.refundedMinor >= p.capturedMinor ? 'refunded' : 'partially_refunded'
}

/** Hundredths of refunds on their way (processing or unknown): they count against what is refundable. */
export function refundsInFlight(p: PaymentRecord): number {
  return p.operations
    .filter((o) => o.kind === 'refund' && IN_FLIGHT_OPERATION.includes(o.status))
    .reduce((n, o) => n + o.amountMinor, 0)
}

export function refundable(p: PaymentRecord): number {
  return Math.max(0, p.capturedMinor - p.refundedMinor - refundsInFlight(p))
}

export function operationView(o: MoneyOperation): OperationView {
  return {
    id: o.id,
    object: o.kind,
    status: o.status,
    amount: o.amount,
    reason: o.reason ?? null,
    gatewayId: o.gatewayId ?? null,
    resultCode: o.resultCode ?? null,
    failure: o.failure ?? null,
    needsAttention: o.needsAttention === true,
    createdAt: new Date(o.createdAt).toISOString(),
    updatedAt: new Date(o.updatedAt).toISOString(),
  }
}

export function paymentView(p: PaymentRecord): PaymentView {
  const of = (kind: MoneyOperation['kind']) => p.operations.filter((o) => o.kind === kind).map(operationView)
  return {
    id: p.paymentId,
    object: 'payment',
    status: paymentStatus(p),
    amount: p.amount,
    currency: p.currency,
    paymentType: p.paymentType,
    amountCaptured: formatAmount(p.capturedMinor),
    amountRefunded: formatAmount(p.refundedMinor),
    amountRefundable: formatAmount(refundable(p)),
    sessionId: p.sessionId,
    merchantTransactionId: p.merchantTransactionId,
    source: p.source,
    registrationId: p.registrationId,
    card: p.card,
    email: p.email,
    metadata: p.metadata,
    captures: of('capture'),
    voids: of('void'),
    refunds: of('refund'),
    needsAttention: p.operations.some((o) => o.needsAttention === true),
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  }
}
