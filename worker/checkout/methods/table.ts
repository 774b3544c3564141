/**
 * @module
 * The ways to pay, one row each: what the session's shared parts (attempts, inquiry,
 * notifications) need to know of a method. Its actions (how it starts, its gateway call) are its
 * own module beside this one: `card.ts` (card and saved card), `qr.ts`, `invoice.ts`. Adding a
 * way to pay is a row here, its module, and its routes.
 */
import type { Notification } from '../../../shared/types.ts'
import { settlementOf } from '../../gateway/outcome.ts'
import { methodsOf, offers, type Flow, type SessionRecord } from '../../sessions/types.ts'

export interface CheckoutMethod {
  /** The gateway's paymentType of its payments when it fixes one; else the session's (a card's DB or PA). */
  readonly paymentType?: 'DB' | 'PA'
  /** Its declines count against the session's `maxAttempts` (an invoice's page is the gateway's). */
  readonly countsAttempts: boolean
  /** Its settled attempts are counted by the deployment's decline breaker (SECURITY.md R12). */
  readonly countsForBreaker: boolean
  /** The payment an inquiry asks about when the attempt in flight carries no id of its own. */
  inquiryPaymentId?(s: SessionRecord): string | undefined
  /** Another way to pay has started: what this one offered is withdrawn. */
  yieldTo?(s: SessionRecord): void
  /** The payments of this method a late notification may name, beyond the session's attempts. */
  paymentIds?(s: SessionRecord): readonly (string | undefined)[]
  /**
   * Notifications this method answers for by its own rule rather than by attempt: whether it
   * claims one, and if it does, why it is not this session's (undefined: it is).
   */
  readonly notifications?: {
    claims(s: SessionRecord, n: Notification): boolean
    foreign(s: SessionRecord, n: Notification): string | undefined
    /** It settles the session: what the method keeps of it. */
    settles(s: SessionRecord, n: Notification): void
  }
}

const card: CheckoutMethod = { countsAttempts: true, countsForBreaker: true }

const qr: CheckoutMethod = {
  // The completion is the spec's DYNAMIC request: an authorisation, to capture or void.
  paymentType: 'PA',
  countsAttempts: true,
  countsForBreaker: false,
  // The gateway gave the payment id at verification; the completion's answer may not repeat it.
  inquiryPaymentId: (s) => s.qr?.paymentId,
  // A code already shown can no longer be completed once the shopper pays another way (its
  // payment id stays this session's, so a notification about it is still heard).
  yieldTo: (s) => {
    if (s.qr && !s.qr.withdrawn) s.qr.withdrawn = true
  },
  paymentIds: (s) => [s.qr?.paymentId, ...(s.withdrawnQr ?? [])],
}

const invoice: CheckoutMethod = {
  // The invoice's page takes a sale.
  paymentType: 'DB',
  countsAttempts: false,
  countsForBreaker: false,
  paymentIds: (s) => [s.invoicePaymentId],
  notifications: {
    // Always for an invoice-only session; with several methods, when it names the issued
    // invoice's order and none of the other payments.
    claims(s, n) {
      if (!offers(s, 'invoice')) return false
      if (methodsOf(s).length === 1) return true
      const others = s.attempts.map((a) => a.paymentId).concat(methodPaymentIds(s, 'invoice'))
      return (
        s.invoice !== undefined &&
        n.merchantTransactionId === s.invoice.merchantInvoiceId &&
        !others.includes(n.paymentId)
      )
    },
    foreign(s, n) {
      if (!s.invoice) return 'no_invoice'
      if (n.merchantTransactionId !== s.invoice.merchantInvoiceId) return 'order'
      if (n.amount !== s.invoice.amount || n.amount !== s.amount) return 'amount'
      // Each try on the invoice's page is a payment of its own: a success of any of them is the
      // invoice paid (money taken must end as a paid session), even after a declined try's notice.
      if (settlementOf(n.transactionStatus) === 'charged') return undefined
      // The invoice's payment id comes with its first notification (older records kept it as paymentId).
      const known = s.invoicePaymentId ?? (methodsOf(s).length === 1 ? s.paymentId : undefined)
      return known === undefined || known === n.paymentId ? undefined : 'payment'
    },
    settles(s, n) {
      s.invoicePaymentId = n.paymentId
    },
  },
}

export const METHODS: Readonly<Record<Flow, CheckoutMethod>> = { card, 'saved-card': card, qr, invoice }

const FLOWS = Object.keys(METHODS) as Flow[]

/** Each row once (card and saved card share theirs). */
export const METHOD_ROWS: readonly CheckoutMethod[] = [...new Set(Object.values(METHODS))]

/**
 * What the gateway is asked for by a method's payments: its own type (a QR wallet's authorisation,
 * an invoice's sale), else the session's (a card's DB or PA).
 */
export const paymentTypeOf = (method: Flow, s: SessionRecord): 'DB' | 'PA' =>
  METHODS[method].paymentType ?? s.paymentType

/** The method a notification belongs to by its own rule, if one claims it. */
export const claimingMethod = (s: SessionRecord, n: Notification): Flow | undefined =>
  FLOWS.find((m) => METHODS[m].notifications?.claims(s, n))

/** The payment ids the methods hold beyond the session's attempts (codes shown, the invoice's), but `except`'s. */
export const methodPaymentIds = (s: SessionRecord, except?: Flow): (string | undefined)[] =>
  FLOWS.filter((m) => m !== except).flatMap((m) => [...(METHODS[m].paymentIds?.(s) ?? [])])

/** The method whose own payment ids (beyond the attempts) include `paymentId`, if any. */
export const methodOfPayment = (s: SessionRecord, paymentId: string): Flow | undefined =>
  FLOWS.find((m) => METHODS[m].paymentIds?.(s).includes(paymentId))
