/**
 * @module
 * Attempts the session moved on from while their money may still move: a card charge whose answer
 * was lost while a QR code paid the session, a card on the bank's page when another way paid, a
 * late answer that named a payment still pending. The session's own inquiry asks only about the
 * attempt in flight (inquiry.ts), and their notification is heard (notifications.ts) but may never
 * come. So each is asked about from the alarm, by its payment id or else by order, never re-sent,
 * until the gateway says what became of it: money it took pays the session if nothing has, else
 * it is money taken a second time (charged-again.ts), told to the merchant once. So, once, is an
 * attempt the session's own inquiry did not find (`rechecks`): its charge may have landed since.
 */
import { gatewayClient } from '../config.ts'
import { askAgainInMs, callWindowMs } from '../env-vars.ts'
import { log } from '../log.ts'
import type { PaymentOutcome } from '../gateway/outcome.ts'
import {
  codesUnasked,
  isInFlight,
  moneyMayMove,
  receivedPaymentIds,
  rechecks,
  strays,
  type Attempt,
  type SessionRecord,
} from '../sessions/types.ts'
import { sameOrder, tookMoney } from './attempt.ts'
import { afterNoCharge, MINUTE_MS, type SessionCore } from './core.ts'

/** The alarm's task that asks about them. */
export const STRAY_TASK = 'strays'

/**
 * Their notification is the usual news, the inquiry the safety net: first asked this long after
 * the session moved on, then with the inquiry's backoff (up to an hour), never sooner.
 */
const FIRST_ASK_MS = 5 * MINUTE_MS

const nextAsk = (core: SessionCore, s: SessionRecord): number =>
  Date.now() + Math.max(FIRST_ASK_MS, askAgainInMs(core.env, s.strayInquiries ?? 0))

/**
 * Sets the task when the session has attempts to ask about (after a change of state, or a write
 * that may have left one: a late answer), keeping a sooner time already set: a change, even
 * many, never puts off an ask.
 */
export async function watchStrays(core: SessionCore, s: SessionRecord): Promise<void> {
  if (moneyMayMove(s)) await core.schedule(STRAY_TASK, nextAsk(core, s), true)
}

/**
 * The ones to ask about: strays, and attempts to ask about again, these only while no attempt is
 * in flight (asked by order, the gateway would answer with that one's payment).
 */
const unsettled = (s: SessionRecord): Attempt[] => [...strays(s), ...(isInFlight(s.status) ? [] : rechecks(s))]

/**
 * The task: asks about one stray attempt, each in turn (one the gateway never settles does not
 * keep the others from being asked), then again later while any is left. With none left, a session
 * that waited for them past its time, or its last attempt, ends.
 */
export async function askAboutStrays(core: SessionCore, s: SessionRecord): Promise<void> {
  const now = Date.now()
  // One whose call may still answer is left to its answer.
  const due = unsettled(s).filter((a) => a.status !== 'processing' || now >= a.at + callWindowMs(core.env))
  const attempt = due[(s.strayInquiries ?? 0) % Math.max(1, due.length)]
  if (attempt) {
    const client = gatewayClient(core.env)
    const outcome = attempt.paymentId
      ? await client.inquiry(attempt.paymentId, 'PID')
      : await client.inquiry(s.merchantTransactionId, 'MID')
    log.info('stray_inquiry', { session: s.id, attempt: attempt.n, outcome: outcome.kind })
    // Settled meanwhile (its notification came during the call): nothing left to learn.
    if (unsettled(s).includes(attempt)) await settle(core, s, attempt, outcome)
  }
  if (!moneyMayMove(s)) return endWithoutStrays(core, s)
  s.strayInquiries = (s.strayInquiries ?? 0) + 1
  await core.save(s)
  await core.schedule(STRAY_TASK, nextAsk(core, s), true)
}

/**
 * Its strays settled without paying it: a session that stayed open for them (past its time, or
 * with no attempt left: `afterNoCharge`) ends now, as it would have.
 */
async function endWithoutStrays(core: SessionCore, s: SessionRecord): Promise<void> {
  if (s.status !== 'open' && s.status !== 'declined') return
  // An invoice's session past its time is ended by its expiry task, which asks about the invoice,
  // and so is one with QR codes to ask about.
  if (Date.now() >= s.expiresAt && (s.invoice || s.regeneration || codesUnasked(s).length > 0))
    return core.schedule('expire', Date.now())
  // An invoice refused for another amount while they were asked about fails the session now, as
  // it would have then (methods/invoice.ts).
  const to = s.invoiceMismatch ? 'failed' : afterNoCharge(s, s.status === 'declined')
  if (to === 'expired' || to === 'failed') await core.move(s, to)
}

/** What the gateway's answer about `attempt` makes of it; the session changes only if money was taken. */
async function settle(core: SessionCore, s: SessionRecord, attempt: Attempt, outcome: PaymentOutcome): Promise<void> {
  const r = 'response' in outcome ? outcome.response : undefined
  if (r && !sameOrder(s, r)) {
    log.error('stray_inquiry_mismatch', { session: s.id, attempt: attempt.n, paymentId: r.paymentId })
    return
  }
  const named = r?.paymentId
  // Asked by order, the gateway names a payment the session knows from elsewhere (the one that
  // paid it, another attempt's, one held back as unclaimed): none is this attempt's, whose charge
  // never reached the gateway (the rule of the session's own inquiry). Money it took pays the
  // session all the same (tookMoney credits the attempt that owns it, else this one).
  if (!attempt.paymentId && named && receivedPaymentIds(s).includes(named)) {
    if (outcome.kind === 'succeeded') await tookMoney(core, s, attempt, named, r)
    if (attempt.paymentId !== named) {
      attempt.status = 'not_found'
      delete attempt.recheck
    }
    return core.save(s)
  }
  if (outcome.kind === 'succeeded') return tookMoney(core, s, attempt, named ?? attempt.paymentId, r)
  // "No such payment" about a payment the gateway named before (pending, on the bank's page) is no
  // news: asked again later, as the session's own inquiry takes it only for an unknown attempt.
  const namedBefore =
    attempt.paymentId !== undefined && (attempt.status === 'pending' || attempt.status === 'action_required')
  if (
    outcome.kind === 'declined' ||
    (outcome.kind === 'not_found' && !namedBefore) ||
    outcome.kind === 'pending' ||
    outcome.kind === 'action_required'
  ) {
    if (named && !attempt.paymentId) attempt.paymentId = named
    attempt.status = outcome.kind
    delete attempt.recheck
    if ('code' in outcome) Object.assign(attempt, { code: outcome.code, description: outcome.description })
    return core.save(s)
  }
  // No answer, or one that says nothing of it: asked again later.
}
