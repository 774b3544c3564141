/**
 * @module
 * The inline checkout's states: what the session's status makes of it, and what the shopper reads
 * in each, and for each error the Worker answers.
 */
import type { CheckoutStatus } from '../../shared/checkout.ts'
import type { CheckoutView } from '../api-client.ts'
import type { MessageKey } from '../i18n/index.ts'

/**
 * What the status line says beside the state: a message of the shopper's language (and its count),
 * kept as such so that a new language says it again in its words.
 */
export type Notice = { readonly key: MessageKey; readonly n?: number } | null

export type CheckoutState =
  | 'loading'
  | 'ready'
  | 'submitting'
  | 'action_required'
  | 'succeeded'
  | 'declined'
  | 'pending'
  | 'unknown'
  | 'expired'
  | 'error'
  | 'blocked'

export const STATUS_MESSAGE: Partial<Record<CheckoutState, MessageKey>> = {
  submitting: 'processing',
  action_required: 'actionRequired',
  succeeded: 'succeeded',
  declined: 'declinedFinal',
  pending: 'pending',
  unknown: 'unknown',
  expired: 'expired',
  error: 'error',
  blocked: 'err_contact_shop',
}

/**
 * What the shopper reads for an error the Worker answers. A pay refused so that the page cannot
 * pay any more (`OVER`, below) says its state's words instead. Every message says what to do
 * next; none says why a card was refused.
 */
export const ERROR_MESSAGE: Partial<Record<string, MessageKey>> = {
  invalid_request: 'err_check_fields',
  gateway_error: 'error',
  gateway_rejected: 'err_gateway',
  gateway_auth_failed: 'err_gateway',
  gateway_unavailable: 'err_gateway_unavailable',
  duplicate_order: 'err_duplicate_order',
  invoice_mismatch: 'err_contact_shop',
  forbidden: 'err_contact_shop',
  rate_limited: 'err_rate_limited',
  payment_in_progress: 'err_in_progress',
  method_in_progress: 'err_method_in_progress',
  qr_withdrawn: 'qrWithdrawn',
  idempotency_in_progress: 'err_in_progress',
  internal_error: 'err_gateway',
  too_many_attempts: 'err_velocity',
  payments_paused: 'err_rate_limited',
  network_error: 'networkError',
  origin_not_allowed: 'originNotAllowed',
}

/**
 * Refusals that say the session moved on without this page (another tab paid it, or has a payment
 * on its way; another way to pay took over): the session is read again, and shown, and its
 * outcome told, as it is now.
 */
export const READ_AGAIN: readonly string[] = [
  'method_in_progress',
  'qr_withdrawn',
  'session_completed',
  'payment_in_progress',
  'idempotency_in_progress',
]

/**
 * A pay's answer that says nothing of the payment: the Worker's own failure, or a 5xx from
 * something in between. It may have been charged, as with no answer: the same key goes with the
 * retry, and the session is read again.
 */
export const saysNothing = (e: { readonly code: string; readonly status: number }): boolean =>
  e.status >= 500 && e.code === 'internal_error'

/**
 * A payment being confirmed (its answer lost) that the session, read again, shows open: the gateway
 * had no such payment, or refused it. The form is back, and the page is told the pay failed
 * (`NOT_MADE`, ../api-client.ts). Not "nothing was charged": the Worker asks about it once more
 * later, and a charge that reached the gateway after all pays the session then.
 */
export const foundNotMade = (before: CheckoutStatus | undefined, now: CheckoutStatus): boolean =>
  (before === 'unknown' || before === 'processing') && now === 'open'

/** A session read after a pay whose answer said nothing, with a payment on its way: as its pay-pending says it. */
export const pendingAs = (status: CheckoutStatus): string => (status === 'processing' ? 'unknown' : status)

/**
 * A pay not answered after this long: the shopper reads that it is being confirmed and must not be
 * made again (a slow gateway answers within the Worker's gateway timeout, 15 s by default).
 */
export const SLOW_PAY_MS = 5_000

/**
 * How often a payment under way (pending, unknown, at the bank's step) is checked again: every
 * `POLL_MS` for `POLL_MAX` checks (counted again from each new status, and for a session loaded
 * again: a payment after one watched for long is checked often again), then every
 * `POLL_SLOW_MS` for as long as the page shows it
 * (the page says it updates by itself; the Worker's own inquiry backs off to an hour).
 */
export const POLL_MS = 2_000
export const POLL_MAX = 60
export const POLL_SLOW_MS = 15_000

/** What each status of a session shows (a decline with tries left shows the form again). */
const STATE_OF: Readonly<Record<CheckoutStatus, CheckoutState>> = {
  open: 'ready',
  declined: 'declined',
  // No attempt left: shown as the final decline.
  failed: 'declined',
  processing: 'unknown',
  unknown: 'unknown',
  pending: 'pending',
  action_required: 'action_required',
  succeeded: 'succeeded',
  expired: 'expired',
}

/**
 * What a session read from the Worker shows. A failed session with attempts left was not declined
 * (an invoice for another amount than the session's): the shop must help, so it says so.
 */
export const stateOf = (view: CheckoutView): CheckoutState =>
  view.status === 'declined' && view.attemptsRemaining > 0
    ? 'ready'
    : view.status === 'failed' && view.attemptsRemaining > 0
      ? 'blocked'
      : (STATE_OF[view.status] ?? 'error')

/** A session read after a card was declined (not a wallet: its view has the card). */
export const cardDeclined = (view: CheckoutView): boolean => view.status === 'declined' && !!view.result?.card

/** The states watched (polled) until the payment settles. */
export const WATCHED: readonly CheckoutState[] = ['unknown', 'pending', 'action_required']

/**
 * The errors after which this page cannot pay (the session is over, the page is not the shop's, the
 * saved card was deleted), whether they come from reading the session or from a pay.
 */
const OVER: Partial<Record<string, CheckoutState>> = {
  registration_deleted: 'blocked',
  origin_not_allowed: 'blocked',
  session_expired: 'expired',
  session_completed: 'succeeded',
}

/** What a session that could not be read shows, by the error's code. */
export const stateOfUnreadable = (code: string): CheckoutState => OVER[code] ?? 'error'

/**
 * What a pay the Worker refused leaves: the form as the shopper left it, unless the page cannot pay
 * any more (the card's last try was used up by too many attempts: the final decline).
 */
export const stateOfRefused = (code: string, attemptsRemaining = 0): CheckoutState =>
  OVER[code] ?? (code === 'too_many_attempts' && attemptsRemaining <= 0 ? 'declined' : 'ready')
