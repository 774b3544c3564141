/**
 * @module
 * Checkout sessions: what the merchant's server creates, what the Durable Object keeps, and the
 * state machine it follows.
 */
import type { CardBrand } from '../../shared/card.ts'
import type { CheckoutView, InvoiceDetails, PayResult } from '../../shared/checkout.ts'
import type { Redirect } from '../../shared/types.ts'
import type { EventType } from '../../shared/webhooks/events.ts'
import type { Metadata } from './metadata.ts'

// The browser's view and a pay answer are shared with the widget (`shared/checkout.ts`).
export type { CheckoutView, InvoiceDetails, PayResult }

/**
 * What a merchant may ask for. `setup` registers a card without a payment (setup.ts): the session
 * then runs as a card session with `setup: true` (its methods are `['card']` inside), so 3-D
 * Secure, inquiries, notifications, attempts and the breaker work as for a card payment.
 */
export const FLOWS = ['card', 'saved-card', 'qr', 'invoice', 'setup'] as const
/** What a merchant may ask for (the API's flow values). */
export type RequestedFlow = (typeof FLOWS)[number]
/** What a session runs: a setup runs as `card`. */
export type Flow = Exclude<RequestedFlow, 'setup'>

export const STATUSES = [
  'open',
  'processing',
  'action_required',
  'pending',
  'unknown',
  'declined',
  'failed',
  'succeeded',
  'expired',
] as const
export type Status = (typeof STATUSES)[number]

/**
 * States in which money may be moving: the gateway may have, or may yet, take the payment. A
 * session in flight never expires by its clock; its payment is settled first (README, "States").
 */
export const IN_FLIGHT: readonly Status[] = ['processing', 'action_required', 'pending', 'unknown']
/** States that end the session: the merchant hears of exactly one of them. */
export const FINAL: readonly Status[] = ['succeeded', 'failed', 'expired']

export const isInFlight = (s: Status): boolean => IN_FLIGHT.includes(s)
export const isFinal = (s: Status): boolean => FINAL.includes(s)

/**
 * Allowed transitions (README, "States"). Who moves them:
 * - shopper: `open | declined -> processing` (pay, QR complete);
 * - gateway answer, notification, inquiry: `processing | action_required | pending | unknown ->` a result;
 * - inquiry saying the gateway never saw the charge: `unknown -> open` (nothing was charged);
 * - alarm or a late request: `open | declined -> expired` (never from a state in flight);
 * - notification of an invoice paid on the gateway's page: `open -> succeeded | declined`.
 * A verified success for a payment the session itself received always wins, even over `failed`
 * or `expired`: money taken at the gateway must end as a paid session.
 */
export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  open: ['processing', 'succeeded', 'declined', 'failed', 'expired'],
  processing: ['action_required', 'pending', 'unknown', 'succeeded', 'declined', 'failed', 'open', 'expired'],
  action_required: ['pending', 'unknown', 'succeeded', 'declined', 'failed', 'expired'],
  pending: ['succeeded', 'declined', 'failed', 'expired'],
  unknown: ['pending', 'action_required', 'succeeded', 'declined', 'failed', 'open', 'expired'],
  declined: ['processing', 'succeeded', 'failed', 'expired'],
  failed: ['succeeded'],
  expired: ['succeeded'],
  succeeded: [],
}

export const canMove = (from: Status, to: Status): boolean => TRANSITIONS[from].includes(to)

/**
 * The merchant event for entering a state. Final states are `checkout.session.*`; the steps of
 * an attempt are `checkout.attempt.*` and never final (a declined attempt may be followed by a
 * paid one while attempts remain).
 */
export const EVENT_OF: Readonly<Record<Status, EventType>> = {
  processing: 'checkout.attempt.processing',
  action_required: 'checkout.attempt.action_required',
  pending: 'checkout.attempt.pending',
  unknown: 'checkout.attempt.unknown',
  declined: 'checkout.attempt.declined',
  open: 'checkout.attempt.reopened',
  succeeded: 'checkout.session.succeeded',
  failed: 'checkout.session.failed',
  expired: 'checkout.session.expired',
}

/** What the merchant's server fixed when it created the session (validated). */
export interface SessionInput {
  /** The method shown first: `methods[0]` (kept for the merchant's view and older records). */
  readonly flow: Flow
  /** Every method this session offers, distinct, `flow` first. Records from before have only `flow`. */
  readonly methods?: readonly Flow[]
  readonly amount: string
  readonly currency: string
  readonly merchantTransactionId: string
  readonly paymentType: 'DB' | 'PA'
  readonly recurring?: 'INITIAL'
  readonly createRegistration?: boolean
  readonly registrationId?: string
  readonly recurringType?: 'INITIAL' | 'REPEATED'
  readonly savedCard?: { readonly brand: CardBrand; readonly last4: string }
  /** Registers the card only: the amount is the Worker's smallest authorisation, voided by the session (setup.ts). */
  readonly setup?: true
  readonly invoiceId?: string
  readonly merchantInvoiceId?: string
  readonly invoiceExpirationPeriod?: string
  readonly customer?: Readonly<Record<'givenName' | 'surname' | 'email' | 'phone' | 'telnocc', string | undefined>>
  readonly returnUrl?: string
  readonly allowedOrigins: readonly string[]
  /** Moves later only for an invoice, whose session lives as long as the invoice. */
  expiresAt: number
  readonly maxAttempts: number
  /** The merchant's pairs (metadata.ts): on the session, its payment, every event and the listings. */
  readonly metadata?: Metadata
}

export interface Attempt {
  readonly n: number
  readonly at: number
  /** The method that made it (absent on records from before several methods). */
  readonly method?: Flow
  /** A session status, or how an attempt ended without a charge: refused by the gateway, or never seen by it. */
  status: Status | 'refused' | 'not_found'
  /** The client's network, hashed (decline-breaker.ts `sourceOf`): the breaker counts per source. */
  source?: string
  code?: string
  description?: string
  paymentId?: string
  /**
   * Given up as never seen by the gateway (`not_found`) by the session's own inquiry, and not yet
   * asked about again: a charge can reach the gateway after the inquiry that did not find it.
   */
  recheck?: true
  /**
   * The card a card's or a saved card's attempt was made with: the card of its payment when the
   * news of its success names none (the session's own may be another's by then).
   */
  card?: { brand?: CardBrand; last4?: string }
}

export interface SessionRecord extends SessionInput {
  readonly id: string
  readonly createdAt: number
  /** SHA-256 of the client secret; the secret itself is never stored (SECURITY.md R2). */
  readonly clientSecretHash: string
  status: Status
  updatedAt: number
  attempts: Attempt[]
  /** The page the latest card attempt that named one started on (its origin allowed): the 3-D Secure result page links back to it. */
  returnPage?: string
  paymentId?: string
  createdRegistrationId?: string
  resultCode?: string
  resultDescription?: string
  transactionStatus?: string
  card?: { brand?: CardBrand; last4?: string }
  /** The 3-D Secure step, kept so the widget can resume it after a reload. */
  redirect?: Redirect
  /** The QR code shown; `withdrawn` once the shopper paid by another method (it can no longer be completed). */
  /** The QR code shown, and the wallet owner's name and email from its verify step (sent again with its completion). */
  qr?: {
    paymentId: string
    merchantWalletId: string
    expiresAt: number
    withdrawn?: boolean
    customer?: { givenName: string; surname: string; email: string }
  }
  /** Payments that took money after the session was paid by another (`checkout.session.charged_again`). */
  chargedAgain?: string[]
  /** Payment ids of QR codes no longer shown (withdrawn, replaced): still this session's for notifications. */
  withdrawnQr?: string[]
  /** The method of the payment begun last (or of the invoice issued): what `methodUnderWay` reports. */
  method?: Flow
  /** The gateway's payment id of the session's invoice, from its first notification. */
  invoicePaymentId?: string
  invoice?: InvoiceDetails
  /** How many status inquiries have run for the payment in flight. */
  inquiries: number
  /** How many times the session has asked about attempts it moved on from (checkout/strays.ts). */
  strayInquiries?: number
  /** Counts every change (status or invoice); merchant event ids derive from it. */
  seq: number
  /** QR codes requested so far (each costs a gateway call, so they are capped like attempts). */
  qrVerifications?: number
  /** Of those, requests whose answer never came, given back (at most `QR_UNANSWERED_GIVEN_BACK`). */
  qrUnanswered?: number
  /** An invoice regeneration on its way: one at a time per session. */
  regeneration?: { status: 'processing' | 'unknown'; at: number }
  /** How often the gateway could not say, at the session's expiry, whether its issued invoice was paid. */
  invoiceAsks?: number
  /**
   * When its expiry may ask about each QR code the gateway issued, by payment id: once a wallet can
   * no longer pay it, then again after each ask the gateway did not answer; and how often it asked
   * (checkout/methods/qr.ts). A code from a record without it is asked after the session's time.
   */
  codeAsks?: Record<string, { at: number; asked?: number }>
  /** QR codes its expiry asked about and took as unpaid (the gateway said so, or never said, after every ask). */
  codesAsked?: string[]
  /** Why the gateway refused the last request, for the operator (`GET /v1/sessions/{id}`). */
  lastError?: { code: string; message: string; gatewayCode?: string }
  /**
   * The invoice the merchant named is for another amount or currency (methods/invoice.ts): never
   * offered, not asked for again. Its own mark: `lastError` is the latest refusal of any method.
   */
  invoiceMismatch?: true
  /** The email the gateway was sent with the payment (the shopper's, typed in the widget, or the merchant's). */
  payerEmail?: string
  /** Signed notifications that did not belong to this session: recorded, never applied. */
  refusedNotifications?: { at: number; paymentId: string; reason: string }[]
  /**
   * Payments of this order that no answer named, told declined while the attempt in flight had no
   * payment id and an earlier one, given up without one, may own them (its charge reaching the
   * gateway after all): not taken as the attempt in flight's, so neither a notification nor an
   * inquiry by order that names one declines it (checkout/notifications.ts, checkout/inquiry.ts).
   */
  unclaimedPayments?: string[]
  /** A setup's authorisation on its way to being voided, and whether registration.created was told (setup.ts). */
  setupVoid?: SetupVoid
  /** Whether the merchant was told the registrationId (with the success, or `registration.created`). */
  registrationTold?: boolean
  /** Unanswered inquiries for the card a payment saved, after its success (checkout/registration.ts). */
  registrationAsks?: number
  /** The gateway, asked for the card the payment saved, named none: nothing was saved. */
  registrationNone?: true
}

/**
 * The void of a setup's authorisation. `sent`: a reversal with this reference may have reached the
 * gateway (an inquiry by it comes before any re-send); `voided` ends it; `needs_attention` when
 * the gateway kept refusing it.
 */
export interface SetupVoid {
  status: 'pending' | 'voided' | 'needs_attention'
  readonly merchantTransactionId: string
  sent: boolean
  tries: number
  gatewayId?: string
  resultCode?: string
}

/** Every payment id the gateway gave this session: what its notifications must name. */
export function receivedPaymentIds(s: SessionRecord): string[] {
  const ids = s.attempts.map((a) => a.paymentId).filter((id): id is string => Boolean(id))
  if (s.qr?.paymentId) ids.push(s.qr.paymentId)
  ids.push(...(s.withdrawnQr ?? []), ...(s.unclaimedPayments ?? []))
  if (s.invoicePaymentId) ids.push(s.invoicePaymentId)
  if (s.paymentId) ids.push(s.paymentId)
  return [...new Set(ids)]
}

/** The methods a session offers, `flow` first (records from before several methods have only `flow`). */
export const methodsOf = (s: SessionInput): readonly Flow[] => s.methods ?? [s.flow]
export const offers = (s: SessionInput, m: Flow): boolean => methodsOf(s).includes(m)

/**
 * The method whose payment is in flight or done, if any: the money rule refuses every other one.
 * An invoice is under way from its regeneration on (the shopper may pay it on the gateway's page
 * at any time, and it cannot be withdrawn) until the session ends.
 */
export function methodUnderWay(s: SessionRecord): Flow | undefined {
  if (isInFlight(s.status) || s.status === 'succeeded') return s.method ?? s.flow
  if ((s.invoice || s.regeneration) && !isFinal(s.status)) return 'invoice'
  return undefined
}

/** The states of an attempt in which its money may still move. */
const MAY_TAKE_MONEY: readonly Attempt['status'][] = ['processing', 'unknown', 'pending', 'action_required']

/**
 * The attempts whose money may still move though the session is not waiting for them
 * (checkout/strays.ts asks about them): every one still in flight but the session's own attempt
 * in flight (its inquiry asks about that one), and never one whose payment paid the session or
 * was told as taken again (an attempt that shares its id: a QR code completed twice).
 */
export function strays(s: SessionRecord): Attempt[] {
  const own = isInFlight(s.status) ? s.attempts[s.attempts.length - 1] : undefined
  return s.attempts.filter((a) => a !== own && MAY_TAKE_MONEY.includes(a.status) && !toldPayment(s, a))
}

/** Whether the attempt's payment paid the session or was told as taken again: nothing left to learn of it. */
function toldPayment(s: SessionRecord, a: Attempt): boolean {
  return a.paymentId !== undefined && (a.paymentId === paidBy(s) || (s.chargedAgain ?? []).includes(a.paymentId))
}

const paidBy = (s: SessionRecord): string | undefined => (s.status === 'succeeded' ? s.paymentId : undefined)

/**
 * Attempts given up as never seen by the gateway that are asked about once more (checkout/strays.ts)
 * before the session may end on them: a charge that reached the gateway after the inquiry that did
 * not find it must not find its session expired or failed (two final events, or money told to
 * nobody when its notification is lost). They do not keep the shopper from trying again.
 */
export const rechecks = (s: SessionRecord): Attempt[] =>
  s.attempts.filter((a) => a.status === 'not_found' && a.recheck && !toldPayment(s, a))

/**
 * The session's QR codes that no completion of ours carried to the gateway (one whose completion
 * was not found there is still payable) and that its expiry has not yet asked about: a wallet may
 * have paid one all the same (the shopper's page closed before it said so), and the gateway's
 * notification of it can be lost. Its expiry asks about them first (checkout/methods/qr.ts), and
 * so does that of a session that ended with such codes (`codesAfterEnd`).
 */
export const codesUnasked = (s: SessionRecord): string[] => {
  const known = new Set([
    ...s.attempts.filter((a) => a.status !== 'not_found').map((a) => a.paymentId),
    ...(s.codesAsked ?? []),
    // Known to have taken money: the payment that paid the session, and those taken again.
    ...(s.status === 'succeeded' ? [s.paymentId] : []),
    ...(s.chargedAgain ?? []),
  ])
  return [s.qr?.paymentId, ...(s.withdrawnQr ?? [])].filter((id): id is string => id !== undefined && !known.has(id))
}

/**
 * A session that ended (paid, failed, or expired: a code can arrive after the end, its request
 * answered late) while QR codes it showed, or asked for, were still payable: a wallet may pay one
 * after the end, its notification lost. Its expiry asks about them, and its record is kept until
 * it has (a paid session's code taken is money taken again: charged-again.ts).
 */
export const codesAfterEnd = (s: SessionRecord): boolean => isFinal(s.status) && codesUnasked(s).length > 0

/**
 * How long after its session's time a code of a record from before `codeAsks` is asked about: its
 * issue is not recorded, and one shown in the session's last minutes is payable for the default
 * `QR_TTL_MS` (10 minutes) after it, with the minute's grace the others get.
 */
const UNRECORDED_CODE_WAIT_MS = 11 * 60_000

/** When the expiry may ask about `code` (`codeAsks`; a code of a record from before those times: after the session's). */
export const codeAskAt = (s: SessionRecord, code: string): number =>
  s.codeAsks?.[code]?.at ?? s.expiresAt + UNRECORDED_CODE_WAIT_MS

/** When the expiry next asks about the session's QR codes: the soonest of those left to ask (none: never). */
export const nextCodeAsk = (s: SessionRecord): number => Math.min(...codesUnasked(s).map((code) => codeAskAt(s, code)))

/**
 * Whether an attempt the session moved on from may still take money (`strays`), or is to be asked
 * about once more (`rechecks`): while so, an open session neither expires nor fails.
 */
export const moneyMayMove = (s: SessionRecord): boolean => strays(s).length > 0 || rechecks(s).length > 0

/**
 * What the clock says the session is: open and declined sessions past their time are expired,
 * unless an invoice is being issued for them (it is under way: its answer decides), or a payment
 * it moved on from may still take money (`moneyMayMove`: its answer decides).
 */
export function effectiveStatus(s: SessionRecord, now: number): Status {
  return (s.status === 'open' || s.status === 'declined') && now >= s.expiresAt && !s.regeneration && !moneyMayMove(s)
    ? 'expired'
    : s.status
}

/** The merchant's view (`GET /v1/sessions/{id}`): the whole state, never card data beyond brand and last 4. */
export interface MerchantView {
  readonly id: string
  readonly flow: RequestedFlow
  readonly methods: readonly RequestedFlow[]
  /** The method whose payment is in flight or done, else null. */
  readonly method: RequestedFlow | null
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
  /** The gateway's last refusal, for the operator: our code, its code and description. */
  readonly lastError: { code: string; message: string; gatewayCode?: string } | null
  readonly refusedNotifications: number
  /** A setup (flow setup): the authorisation that registered the card, and its void. */
  readonly setup: { readonly amount: string; readonly void: SetupVoid['status'] | null } | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly expiresAt: string
  readonly metadata: Metadata
}

/**
 * Attempts count only declines of the card: a refusal that is the merchant's configuration (a bad
 * checksum, a field the gateway refuses, "not permitted"), a charge the gateway never saw and one
 * that never left the Worker took nothing from the shopper's tries.
 */
export const declinesOf = (s: SessionRecord): number => s.attempts.filter((a) => a.status === 'declined').length
export const attemptsRemaining = (s: SessionRecord): number => Math.max(0, s.maxAttempts - declinesOf(s))

export function checkoutView(s: SessionRecord, now: number): CheckoutView {
  const status = effectiveStatus(s, now)
  return {
    id: s.id,
    flow: s.flow,
    methods: methodsOf(s),
    method: methodUnderWay(s) ?? null,
    status,
    amount: s.amount,
    currency: s.currency,
    expiresAt: new Date(s.expiresAt).toISOString(),
    ...(s.setup ? { setup: true } : {}),
    attemptsRemaining: attemptsRemaining(s),
    savedCard: offers(s, 'saved-card') ? (s.savedCard ?? null) : null,
    invoice: offers(s, 'invoice')
      ? {
          merchantInvoiceId: s.merchantInvoiceId ?? null,
          invoiceExpirationPeriod: s.invoiceExpirationPeriod ?? null,
          regenerated: s.invoice ?? null,
        }
      : null,
    qr: s.qr
      ? {
          merchantWalletId: s.qr.merchantWalletId,
          expiresAt: new Date(s.qr.expiresAt).toISOString(),
          withdrawn: s.qr.withdrawn === true,
        }
      : null,
    // Personal data only while the shopper may still need it to pay (SECURITY.md R2).
    customer: isFinal(status) ? null : (s.customer ?? null),
    result:
      s.status === 'succeeded' || s.status === 'declined' || s.status === 'failed'
        ? // A setup's authorisation is no payment: never named to the page (as its answer: core.ts).
          { paymentId: s.setup ? null : (s.paymentId ?? null), card: s.card ?? null }
        : null,
    redirect: s.status === 'action_required' ? (s.redirect ?? null) : null,
  }
}
