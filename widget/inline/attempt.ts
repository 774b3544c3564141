/**
 * @module
 * An attempt in the inline checkout, whatever the way to pay: the card's pay (the QR wallet's and
 * the invoice's steps are in ./other-methods.ts), the Worker's refusal, and its result, each told
 * to the page as an event. The checkout element is the host; these are its steps.
 */
import type { CardBrand } from '../../shared/card.ts'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import type { FieldError } from '../../shared/errors.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import type { ApiClient, ApiError, CheckoutView, PayResult } from '../api-client.ts'
import {
  PayDeclinedEvent,
  PayErrorEvent,
  PayPendingEvent,
  PaySubmitEvent,
  PaySuccessEvent,
  type PayResultDetail,
} from '../events.ts'
import type { Messages } from '../i18n/index.ts'
import { followRedirect, startingPage } from '../navigate.ts'
import { declinedMessage } from './method-views.ts'
import {
  ERROR_MESSAGE,
  pendingAs,
  READ_AGAIN,
  saysNothing,
  SLOW_PAY_MS,
  stateOfRefused,
  WATCHED,
  type CheckoutState,
  type Notice,
} from './states.ts'

/** The checkout as its steps use it (its internals: only the checkout and its modules use them). */
export interface AttemptHost extends HTMLElement {
  readonly endpoint: string
  readonly messages: Messages
  readonly resolvedLocale: string
  readonly api: ApiClient | null
  /** The method shown. */
  readonly current: CheckoutFlow
  view: CheckoutView | null
  /** The session's status as last read (none since a pay's answer: the next read is shown, whatever it says). */
  lastRead: CheckoutView['status'] | undefined
  state: CheckoutState
  notice: Notice
  inFlight: boolean
  attemptKey: string | null
  startingPage: string | undefined
  applyView(view: CheckoutView): void
  announceMethods(): void
  poll(): void
  clearCvv(): void
  /** The card form's inputs the Worker refused, shown at each of them. */
  showRefused(fields: readonly FieldError[]): void
  /** Keeps what the shopper typed besides the card over the bank's step (`../card-form/kept.ts`). */
  keepTyped(): void
}

/** A result event's detail: never more than the status, the payment id, the brand and last 4. */
export function resultDetail(
  status: string,
  paymentId: string | null | undefined,
  card?: { brand?: CardBrand; last4?: string } | null,
): PayResultDetail {
  return { status, paymentId: paymentId ?? null, brand: card?.brand ?? null, last4: card?.last4 ?? null }
}

/**
 * A session read again after an answer that said nothing (a bare 5xx), with the payment on its way
 * after all: told as that answer would have told it (its view names no payment yet).
 */
export function toldIfOnItsWay(c: Pick<AttemptHost, 'state' | 'dispatchEvent'>, view: CheckoutView): void {
  if (WATCHED.includes(c.state)) c.dispatchEvent(new PayPendingEvent(resultDetail(pendingAs(view.status), null)))
}

/** The card form's pay. One Idempotency-Key per attempt; a request that never got an answer keeps its key. */
export async function payByCard(c: AttemptHost, fields: Record<string, unknown>): Promise<void> {
  if (c.inFlight || !c.api || !c.view) return
  const api = c.api
  c.inFlight = true
  c.state = 'submitting'
  c.notice = null
  c.attemptKey ??= crypto.randomUUID()
  c.dispatchEvent(new PaySubmitEvent({ flow: c.current }))
  // Not answered after a few seconds (a slow gateway): it is being confirmed, not to be made again.
  const slow = setTimeout(() => {
    if (c.inFlight) c.notice = { key: 'unknown' }
  }, SLOW_PAY_MS)
  const page = c.startingPage ?? startingPage()
  const key = c.attemptKey
  let result = await api.pay(page ? { ...fields, returnPage: page } : fields, key)
  // A Worker of an earlier release knows no such field, and a page it will not link to is no
  // reason to stop the payment: once more without it, with the same key (nothing ran).
  if (page && !result.ok && result.error.status === 400 && result.error.fields?.some((f) => f.field === 'returnPage'))
    result = await api.pay(fields, key)
  clearTimeout(slow)
  // The element was given another session meanwhile (load): the answer is the old session's, and
  // its events and state are not this one's.
  if (c.api !== api) return
  c.inFlight = false
  c.notice = null
  if (!result.ok && result.error.status === 0) {
    // No answer: the same key is sent again on retry, so the charge cannot happen twice. The
    // session was read from this page, so its origin is allowed: the network failed, whatever
    // a probe of the Worker would say now (its answer may have been lost on the way back).
    c.state = 'ready'
    c.notice = { key: 'networkError' }
    c.dispatchEvent(new PayErrorEvent({ code: 'network_error', message: result.error.message, fields: [] }))
    return
  }
  if (!result.ok && saysNothing(result.error)) {
    // Being confirmed until the session, read again, says what became of it; the form stays as
    // the shopper left it, and its key is kept for a retry.
    c.state = 'ready'
    c.notice = { key: 'unknown' }
    void api.view().then((v) => {
      // Not if the element was given another session meanwhile.
      if (!v.ok || c.api !== api) return
      c.notice = null
      c.applyView(v.value)
      toldIfOnItsWay(c, v.value)
    })
    c.dispatchEvent(new PayErrorEvent({ code: result.error.code, message: result.error.message, fields: [] }))
    return
  }
  c.attemptKey = null
  if (!result.ok) return refuse(c, result.error)
  settle(c, result.value)
}

/**
 * The Worker refused the attempt. The form stays as the shopper left it (values kept) with a
 * message saying what to do next, unless the session itself is over.
 */
export function refuse(c: AttemptHost, error: ApiError): void {
  const code: string = error.code
  // The session moved on without this page (another tab, another method): read it again, so the
  // picker shows the method under way, and a payment made elsewhere is shown and told.
  const api = c.api
  if (READ_AGAIN.includes(code)) void api?.view().then((v) => v.ok && c.api === api && c.applyView(v.value))
  c.state = stateOfRefused(code, c.view?.attemptsRemaining)
  c.notice = c.state === 'ready' ? { key: ERROR_MESSAGE[code] ?? 'error' } : null
  if (c.state === 'ready') c.showRefused(error.fields ?? [])
  c.dispatchEvent(new PayErrorEvent({ code, message: error.message, fields: error.fields ?? [] }))
}

/** The attempt's result: the state it leaves, and its one event. */
export function settle(c: AttemptHost, r: PayResult): void {
  const detail = resultDetail(r.status, r.paymentId, r.card)
  // A payment in flight or done holds its method: the picker shows it and disables the others.
  const holds = r.status !== 'declined' && r.status !== 'failed'
  c.lastRead = undefined
  // The bank's page is offered for as long as its step waits (the element's render).
  c.view = c.view
    ? {
        ...c.view,
        attemptsRemaining: r.attemptsRemaining,
        method: holds ? c.current : c.view.method,
        redirect: r.status === 'action_required' ? (r.redirect ?? null) : null,
        // The session's status now: read again, a decline is not a new one, and a payment on its
        // way that comes back to where it was (found never made, declined again) is (applyView).
        status: r.status,
      }
    : c.view
  c.announceMethods()
  switch (r.status) {
    case 'succeeded':
      c.state = 'succeeded'
      c.dispatchEvent(new PaySuccessEvent(detail))
      break
    case 'declined':
    case 'failed': {
      const left = r.attemptsRemaining
      c.state = left > 0 ? 'ready' : 'declined'
      c.notice = left > 0 ? { key: declinedMessage(c.current, 0), n: left } : null
      c.clearCvv()
      c.dispatchEvent(new PayDeclinedEvent({ ...detail, status: 'declined', attemptsRemaining: left }))
      break
    }
    case 'pending':
    case 'unknown':
      c.state = r.status
      c.dispatchEvent(new PayPendingEvent(detail))
      c.poll()
      break
    case 'action_required':
      c.state = 'action_required'
      // Kept only for a redirect that will be followed (the shared rule, as followRedirect's).
      if (r.redirect && safeRedirect(r.redirect)) c.keepTyped()
      if (r.redirect && !followRedirect(c, r.redirect)) {
        // A redirect that fails the shared rule (SECURITY.md R28) is never followed nor announced.
        c.state = 'unknown'
        c.dispatchEvent(new PayPendingEvent(resultDetail('unknown', null)))
      }
      // Watched while the bank's step waits: the page may stay (its pay-action cancelled, the step
      // shown in a window of its own), and the step's outcome is shown and told here.
      c.poll()
      break
  }
}
