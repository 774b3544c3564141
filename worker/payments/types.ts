/**
 * @module
 * A payment after the checkout: what the Payment Durable Object keeps (worker/payments/payment-object.ts)
 * and the merchant's view of it. Amounts are text on the wire and in views, integer hundredths in
 * every sum (shared/money.ts).
 */
import type { CardBrand } from '../../shared/card.ts'
import type { Metadata } from '../sessions/metadata.ts'

/** The money operations a merchant runs on a payment; each has its module in `operations/`. */
export const OPERATION_KINDS = ['capture', 'void', 'refund'] as const
export type OperationKind = (typeof OPERATION_KINDS)[number]

/**
 * One operation's life: `processing` (written before the gateway call) -> `succeeded` | `failed` |
 * `unknown`; `unknown` -> `succeeded` | `failed` by inquiry (or re-sent once, when the inquiry says
 * the gateway never saw it). `failed` moved no money.
 */
export type OperationStatus = 'processing' | 'unknown' | 'succeeded' | 'failed'

export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatus, readonly OperationStatus[]>> = {
  processing: ['unknown', 'succeeded', 'failed'],
  unknown: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
}

export const IN_FLIGHT_OPERATION: readonly OperationStatus[] = ['processing', 'unknown']

export interface MoneyOperation {
  /** `cp_...`, `vd_...`, `re_...`: derives from the payment, the kind and the Idempotency-Key. */
  readonly id: string
  readonly kind: OperationKind
  /** What it moves (a void: the whole authorisation), in hundredths and as text. */
  readonly amountMinor: number
  readonly amount: string
  readonly reason?: string
  /** Sent to the gateway with the call, so an inquiry by merchantTransactionId finds it. */
  readonly merchantTransactionId: string
  status: OperationStatus
  /** The gateway's id of the operation, once an answer named it. */
  gatewayId?: string
  resultCode?: string
  resultDescription?: string
  /** Why nothing was sent or the gateway refused, for the operator. */
  failure?: { code: 'gateway_rejected' | 'gateway_unavailable' | 'gateway_auth_failed' | 'not_found'; message: string }
  readonly createdAt: number
  updatedAt: number
  /** Inquiries so far, and whether the one re-send (after "no such transaction") happened. */
  inquiries: number
  resent: boolean
  /** Still unknown after `MAX_INQUIRIES`: the merchant was told once; asked about hourly until it settles. */
  needsAttention?: true
}

/** What a paid session (or a repeat) hands over when its payment exists: the record's first state. */
export interface PaymentSnapshot {
  readonly paymentId: string
  readonly sessionId: string | null
  readonly merchantTransactionId: string
  readonly amount: string
  readonly currency: string
  readonly paymentType: 'DB' | 'PA'
  /** How it was paid: a session flow, or `repeat` (a merchant repeat by payment id). */
  readonly source: string
  readonly registrationId: string | null
  /**
   * The payment saved a card whose registrationId is not known yet (its notification settled it
   * before the gateway's answer, which alone names the card): its session asks the gateway
   * (checkout/registration.ts). Until then it is not repeated, since a repeat would copy no card
   * for a later deletion to stop (README, "saved cards").
   */
  readonly registrationPending?: true
  /**
   * Its place in a recurring series, as the gateway was asked (`recurringType`): INITIAL or
   * REPEATED may be repeated; null began none, and the gateway refuses its repeats (an initial
   * payment comes first), so they are refused before it. Absent on records made before it was kept.
   */
  readonly recurring?: 'INITIAL' | 'REPEATED' | null
  readonly card: { brand?: CardBrand; last4?: string } | null
  readonly email: string | null
  readonly metadata: Metadata
  /** When the payment succeeded (ms). */
  readonly createdAt: number
}

/** What a merchant repeat of a payment inherits from its record (payment-object.ts `repeatSource`). */
export type RepeatSource = Pick<
  PaymentSnapshot,
  'registrationId' | 'registrationPending' | 'recurring' | 'card' | 'email' | 'metadata'
> & {
  /** The payment is a setup session's authorisation (this session's), which is never repeated. */
  readonly setupOf?: string
}

/**
 * The record kept of a payment: its snapshot and the money. One object for the Durable Object's
 * life, changed in place (payment-object.ts): the personal data erased by the retention sweep and
 * the card learned late are the snapshot's only fields that change.
 */
export interface PaymentRecord extends Omit<
  PaymentSnapshot,
  'registrationId' | 'registrationPending' | 'email' | 'metadata'
> {
  registrationId: string | null
  registrationPending?: true
  email: string | null
  metadata: Metadata
  /** Hundredths captured (a DB payment is captured when it succeeds) and refunded, by succeeded operations. */
  capturedMinor: number
  refundedMinor: number
  voided: boolean
  operations: MoneyOperation[]
  /** Counts every change; event ids and the index row's order derive from it. */
  seq: number
  updatedAt: number
}

/** The merchant's view (`GET /v1/payments/{id}`, events, the listing). */
export interface PaymentView {
  readonly id: string
  readonly object: 'payment'
  readonly status: string
  readonly amount: string
  readonly currency: string
  readonly paymentType: 'DB' | 'PA'
  readonly amountCaptured: string
  readonly amountRefunded: string
  /** What may still be refunded: captured less refunded less refunds in flight. */
  readonly amountRefundable: string
  readonly sessionId: string | null
  readonly merchantTransactionId: string
  readonly source: string
  readonly registrationId: string | null
  readonly card: { brand?: CardBrand; last4?: string } | null
  readonly email: string | null
  readonly metadata: Metadata
  readonly captures: OperationView[]
  readonly voids: OperationView[]
  readonly refunds: OperationView[]
  /** One of its operations needs attention (`GET /v1/payments?needs_attention=true`). */
  readonly needsAttention: boolean
  readonly createdAt: string
  readonly updatedAt: string
}

export interface OperationView {
  readonly id: string
  readonly object: OperationKind
  readonly status: OperationStatus
  readonly amount: string
  readonly reason: string | null
  readonly gatewayId: string | null
  readonly resultCode: string | null
  readonly failure: MoneyOperation['failure'] | null
  /** An operation's outcome is still unknown after hours of inquiries (asked about hourly until it settles). */
  readonly needsAttention: boolean
  readonly createdAt: string
  readonly updatedAt: string
}
