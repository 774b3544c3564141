/**
 * @module
 * Checkout sessions: what the merchant's server creates, what the Durable Object keeps, and the
 * state machine it follows.
 */
import type { CardBrand } from '../../shared/card.ts'
import type { Redirect } from '../../shared/types.ts'

export const FLOWS = ['card', 'saved-card', 'qr', 'invoice'] as const
export type Flow = (typeof FLOWS)[number]

export const STATUSES = ['open', 'processing', 'succeeded', 'declined', 'pending', 'action_required', 'unknown', 'expired'] as const
export type Status = (typeof STATUSES)[number]

/**
 * Allowed transitions. A succeeded or expired session is final. `unknown -> open` happens only
 * when an inquiry proves the gateway has no such payment (nothing was charged, the shopper may
 * try again). `open -> succeeded | declined` is for invoice sessions, paid on the gateway's
 * hosted page and settled by its verified notification.
 */
export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  open: ['processing', 'expired', 'succeeded', 'declined'],
  processing: ['succeeded', 'declined', 'pending', 'action_required', 'unknown', 'open'],
  declined: ['processing', 'expired'],
  pending: ['succeeded', 'declined', 'unknown'],
  action_required: ['succeeded', 'declined', 'pending', 'unknown', 'expired'],
  unknown: ['succeeded', 'declined', 'pending', 'open'],
  succeeded: [],
  expired: [],
}

export const canMove = (from: Status, to: Status): boolean => from === to || TRANSITIONS[from].includes(to)

/** The states in which money may be moving: a session there is not expired by its clock. */
export const IN_FLIGHT: readonly Status[] = ['processing', 'pending', 'unknown']

/** What the merchant's server fixed when it created the session (validated). */
export interface SessionInput {
  readonly flow: Flow
  readonly amount: string
  readonly currency: string
  readonly merchantTransactionId: string
  readonly paymentType: 'DB' | 'PA'
  readonly recurring?: 'INITIAL'
  readonly createRegistration?: boolean
  readonly registrationId?: string
  readonly recurringType?: 'INITIAL' | 'REPEATED'
  readonly savedCard?: { readonly brand: CardBrand; readonly last4: string }
  readonly invoiceId?: string
  readonly merchantInvoiceId?: string
  readonly invoiceExpirationPeriod?: string
  readonly customer?: Readonly<Record<'givenName' | 'surname' | 'email' | 'phone' | 'telnocc', string | undefined>>
  readonly returnUrl?: string
  readonly allowedOrigins: readonly string[]
  readonly expiresAt: number
  readonly maxAttempts: number
}

export interface Attempt {
  readonly n: number
  readonly at: number
  status: Status
  code?: string
  description?: string
  paymentId?: string
}

export interface InvoiceDetails {
  readonly systemInvoiceId: string
  readonly merchantInvoiceId: string
  readonly amount: string
  readonly currency: string
  readonly createdDate?: string
  readonly createdTime?: string
  readonly invoiceExpirationPeriod?: string
  readonly transactionUrl?: string
}

export interface SessionRecord extends SessionInput {
  readonly id: string
  readonly createdAt: number
  /** SHA-256 of the client secret; the secret itself is never stored (SECURITY.md R2). */
  readonly clientSecretHash: string
  status: Status
  updatedAt: number
  attempts: Attempt[]
  paymentId?: string
  createdRegistrationId?: string
  resultCode?: string
  resultDescription?: string
  transactionStatus?: string
  card?: { brand?: CardBrand; last4?: string }
  /** The 3-D Secure step, kept so the widget can resume it after a reload. */
  redirect?: Redirect
  qr?: { paymentId: string; merchantWalletId: string; expiresAt: number }
  invoice?: InvoiceDetails
  /** How many status inquiries have run while unknown. */
  inquiries: number
}

/** The answer of a payment attempt, as the browser sees it. */
export interface PayResult {
  readonly status: Exclude<Status, 'open' | 'processing' | 'expired'>
  readonly paymentId?: string
  readonly card?: { brand?: CardBrand; last4?: string }
  readonly redirect?: Redirect
  readonly attemptsRemaining: number
  /** Coarse text for the shopper: never why a card was declined. */
  readonly message: string
}

/** The merchant's view (`GET /v1/sessions/{id}`): the whole state, never card data beyond brand and last 4. */
export interface MerchantView {
  readonly id: string
  readonly flow: Flow
  readonly status: Status
  readonly amount: string
  readonly currency: string
  readonly merchantTransactionId: string
  readonly paymentType: string
  readonly recurring: string | null
  readonly attempts: Attempt[]
  readonly maxAttempts: number
  readonly paymentId: string | null
  readonly registrationId: string | null
  readonly resultCode: string | null
  readonly resultDescription: string | null
  readonly transactionStatus: string | null
  readonly card: { brand?: CardBrand; last4?: string } | null
  readonly invoice: InvoiceDetails | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly expiresAt: string
}

export function merchantView(s: SessionRecord): MerchantView {
  return {
    id: s.id,
    flow: s.flow,
    status: s.status,
    amount: s.amount,
    currency: s.currency,
    merchantTransactionId: s.merchantTransactionId,
    paymentType: s.paymentType,
    recurring: s.recurring ?? null,
    attempts: s.attempts,
    maxAttempts: s.maxAttempts,
    paymentId: s.paymentId ?? null,
    registrationId: s.createdRegistrationId ?? s.registrationId ?? null,
    resultCode: s.resultCode ?? null,
    resultDescription: s.resultDescription ?? null,
    transactionStatus: s.transactionStatus ?? null,
    card: s.card ?? null,
    invoice: s.invoice ?? null,
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
    expiresAt: new Date(s.expiresAt).toISOString(),
  }
}

/** The browser's view (`GET /v1/checkout/{id}`): what the widget needs to render. */
export interface CheckoutView {
  readonly id: string
  readonly flow: Flow
  readonly status: Status
  readonly amount: string
  readonly currency: string
  readonly expiresAt: string
  readonly attemptsRemaining: number
  readonly savedCard: { readonly brand: CardBrand; readonly last4: string } | null
  readonly invoice: { merchantInvoiceId: string | null; invoiceExpirationPeriod: string | null; regenerated: InvoiceDetails | null } | null
  readonly qr: { merchantWalletId: string; expiresAt: string } | null
  readonly customer: SessionInput['customer'] | null
  readonly result: { paymentId: string | null; card: { brand?: CardBrand; last4?: string } | null } | null
  readonly redirect: Redirect | null
}

export function checkoutView(s: SessionRecord, now: number): CheckoutView {
  const status: Status = s.status !== 'expired' && now >= s.expiresAt && !IN_FLIGHT.includes(s.status) && s.status !== 'succeeded' ? 'expired' : s.status
  return {
    id: s.id,
    flow: s.flow,
    status,
    amount: s.amount,
    currency: s.currency,
    expiresAt: new Date(s.expiresAt).toISOString(),
    attemptsRemaining: Math.max(0, s.maxAttempts - s.attempts.length),
    savedCard: s.flow === 'saved-card' ? (s.savedCard ?? null) : null,
    invoice:
      s.flow === 'invoice'
        ? { merchantInvoiceId: s.merchantInvoiceId ?? null, invoiceExpirationPeriod: s.invoiceExpirationPeriod ?? null, regenerated: s.invoice ?? null }
        : null,
    qr: s.qr ? { merchantWalletId: s.qr.merchantWalletId, expiresAt: new Date(s.qr.expiresAt).toISOString() } : null,
    customer: s.customer ?? null,
    result: s.status === 'succeeded' || s.status === 'declined' ? { paymentId: s.paymentId ?? null, card: s.card ?? null } : null,
    redirect: s.status === 'action_required' ? (s.redirect ?? null) : null,
  }
}
