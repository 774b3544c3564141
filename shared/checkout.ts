/**
 * @module
 * What the widget and the Worker exchange on the browser routes (`/v1/checkout/{id}`): the view
 * the widget renders and the answer of a payment attempt. Types only; the Worker builds them from
 * its session records (`worker/sessions/types.ts`), the widget reads them.
 */
import type { CardBrand } from './card.ts'
import type { Redirect } from './types.ts'

export type CheckoutFlow = 'card' | 'saved-card' | 'qr' | 'invoice'
export type CheckoutStatus =
  'open' | 'processing' | 'action_required' | 'pending' | 'unknown' | 'declined' | 'failed' | 'succeeded' | 'expired'

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

/** The browser's view (`GET /v1/checkout/{id}`): what the widget needs to render. */
export interface CheckoutView {
  readonly id: string
  /** The method shown first (`methods[0]`). */
  readonly flow: CheckoutFlow
  /** Every method the session offers, distinct, `flow` first; several ones show a method picker. */
  readonly methods: readonly CheckoutFlow[]
  /** The method whose payment is in flight or done (the others are refused), else null. */
  readonly method: CheckoutFlow | null
  readonly status: CheckoutStatus
  readonly amount: string
  readonly currency: string
  readonly expiresAt: string
  /** The card is registered, not charged: the widget says "Save card" and shows no amount to pay. */
  readonly setup?: boolean
  readonly attemptsRemaining: number
  readonly savedCard: { readonly brand: CardBrand; readonly last4: string } | null
  readonly invoice: {
    merchantInvoiceId: string | null
    invoiceExpirationPeriod: string | null
    regenerated: InvoiceDetails | null
  } | null
  /** The QR code shown; `withdrawn` once the shopper paid by card: it can no longer be completed. */
  readonly qr: { merchantWalletId: string; expiresAt: string; withdrawn: boolean } | null
  readonly customer: Readonly<
    Record<'givenName' | 'surname' | 'email' | 'phone' | 'telnocc', string | undefined>
  > | null
  readonly result: { paymentId: string | null; card: { brand?: CardBrand; last4?: string } | null } | null
  readonly redirect: Redirect | null
  /** True when the Worker talks to the sandbox gateway: the widget shows a "test mode" badge. */
  readonly testMode?: boolean
}

/** The answer of a payment attempt, as the browser sees it. */
export interface PayResult {
  readonly status: Exclude<CheckoutStatus, 'open' | 'processing' | 'expired'>
  readonly paymentId?: string
  readonly card?: { brand?: CardBrand; last4?: string }
  readonly redirect?: Redirect
  readonly attemptsRemaining: number
  /** Coarse text for the shopper: never why a card was declined. */
  readonly message: string
}
