/**
 * @module
 * What the sandbox's ledger (ledger.ts) keeps and answers: its rows and results.
 */
import type { Behaviour } from './cards.ts'

export type PaymentKind = 'card' | 'token' | 'repeat' | 'qr' | 'invoice' | BackOfficeKind
/** Operations on an earlier payment, recorded as rows of their own with `parentId` (no charge). */
export type BackOfficeKind = 'capture' | 'refund' | 'reversal'

export interface PaymentRow {
  id: string
  kind: PaymentKind
  mtid: string
  amount: string
  currency: string
  paymentType: string
  recurring: string
  /** transactionStatus: Y, N, P, 3D, or V (QR verified, awaiting completion). */
  status: string
  code: string
  description: string
  brand: string
  bin: string
  last4: string
  expiryMonth: string
  expiryYear: string
  holder: string
  registrationId: string
  parentId: string
  notificationUrl: string
  redirectUrl: string
  redirectMethod: string
  walletId: string
  merchantWalletId: string
  email: string
  behaviour: Behaviour | ''
  createRegistration: number
  created: string
}

export interface RegistrationRow {
  id: string
  brand: string
  bin: string
  last4: string
  expiryMonth: string
  expiryYear: string
  holder: string
  behaviour: Behaviour
  initialDone: number
}

/** The card a payment saved (its `registrationId`), as the registrations table keeps it. */
export function registrationOf(p: PaymentRow): RegistrationRow {
  return {
    id: p.registrationId,
    brand: p.brand,
    bin: p.bin,
    last4: p.last4,
    expiryMonth: p.expiryMonth,
    expiryYear: p.expiryYear,
    holder: p.holder,
    behaviour: p.behaviour === '' ? 'succeed' : p.behaviour,
    initialDone: p.recurring === 'INITIAL' ? 1 : 0,
  }
}

export interface InvoiceRow {
  id: string
  merchantInvoiceId: string
  amount: string
  currency: string
  period: number
  createdMs: number
  email: string
  description: string
  redirectUrl: string
  notificationUrl: string
  paymentId: string
  /** The invoice this one was regenerated from ('' for a generated one). */
  sourceId: string
}

/**
 * What an injected fault does to a processed request's answer: lost (`timeout`, `http500`),
 * mangled (`unparseable`, `token_refused`), late (`late`: still true; `late_pending`: stale), or `incomplete`: a QR
 * verification's success without the merchant wallet id to show, a regenerated invoice without its sum.
 */
export const FAULTS = [
  'timeout',
  'http500',
  'unparseable',
  'token_refused',
  'late_pending',
  'late',
  'incomplete',
] as const
export type Fault = (typeof FAULTS)[number]

export interface FaultRule {
  op: string
  fault: Fault
  /** Only requests whose wire field `field` equals `value` (or, for path ids, `id`). */
  field?: string
  value?: string
  times?: number
}

export type BeginResult = { ok: true } | { ok: false; reason: 'duplicate' }

/** Why a capture, refund or reversal was refused: no such payment, its state, or the amount. */
export type BackOfficeResult =
  { ok: true } | { ok: false; reason: 'not_found' | 'not_permitted' | 'amount' | 'currency' | 'duplicate' }
