/**
 * @module
 * A payment whose answer never came is asked about, never re-sent: status inquiry with backoff,
 * from the alarm, at most one at a time per session; and the shopper's return from 3-D Secure or
 * a hosted page, which is no proof and only triggers an inquiry (throttled: R28).
 */
import { gatewayClient } from '../config.ts'
import { askAgainInMs } from '../env-vars.ts'
import type { Env } from '../env.ts'
import { log } from '../log.ts'
import { checkoutView, isInFlight, receivedPaymentIds, type SessionRecord, type Status } from '../sessions/types.ts'
import { absorb, sameOrder, tally, tookMoney } from './attempt.ts'
import { afterNoCharge, MINUTE_MS, type SessionCore } from './core.ts'
import { METHODS } from './methods/table.ts'

/**
 * While the shopper is on the bank's page, the gateway is asked at least this often: an
 * authentication nobody finishes is ended by the gateway (its window; the sandbox's is 15
 * minutes) and the next inquiry sees it, so an abandoned 3-D Secure payment ends within the
 * gateway's window plus this interval.
 */
const ACTION_REQUIRED_POLL_MS = 5 * MINUTE_MS
/** Shopper returns from 3-D Secure ask the gateway at most this often (R28: no amplification). */
const RETURN_INQUIRY_MIN_MS = 2_000

export function inquiryDelay(env: Env, s: SessionRecord): number {
  const backoff = askAgainInMs(env, s.inquiries)
  return s.status === 'action_required' ? Math.min(ACTION_REQUIRED_POLL_MS, backoff) : backoff
}

export async function becomeUnknown(core: SessionCore, s: SessionRecord): Promise<void> {
  const attempt = s.attempts[s.attempts.length - 1]
  if (attempt) attempt.status = 'unknown'
  s.inquiries = 0
  await core.move(s, 'unknown')
  await core.schedule('inquiry', Date.now() + inquiryDelay(core.env, s))
}

/** Asks the gateway what became of the payment in flight; one inquiry at a time. */
export function inquire(core: SessionCore, s: SessionRecord): Promise<void> {
  core.memory.inquiring ??= runInquiry(core, s).finally(() => {
    core.memory.inquiring = undefined
  })
  return core.memory.inquiring
}

/** Never re-sends the charge: only asks, by payment id when the gateway gave one, else by order. */
async function runInquiry(core: SessionCore, s: SessionRecord): Promise<void> {
  if (!isInFlight(s.status) || s.status === 'processing') return
  const attempt = s.attempts[s.attempts.length - 1]
  const paymentId = attempt?.paymentId ?? METHODS[s.method ?? s.flow].inquiryPaymentId?.(s)
  const client = gatewayClient(core.env)
  const outcome = paymentId
    ? await client.inquiry(paymentId, 'PID')
    : await client.inquiry(s.merchantTransactionId, 'MID')
  log.info('inquiry', { session: s.id, outcome: outcome.kind, tries: s.inquiries + 1 })
  // Settled meanwhile (a notification came in during the call), and perhaps a newer attempt begun:
  // the answer is about `attempt` alone. Only money it took is kept (tookMoney); the attempt now
  // in flight, if any, is asked about on its own schedule.
  if (!isInFlight(s.status) || s.attempts[s.attempts.length - 1] !== attempt) {
    if (attempt && outcome.kind === 'succeeded' && sameOrder(s, outcome.response))
      await tookMoney(core, s, attempt, outcome.response.paymentId ?? attempt.paymentId, outcome.response)
    if (isInFlight(s.status) && (s.status as Status) !== 'processing')
      await core.schedule('inquiry', Date.now() + inquiryDelay(core.env, s))
    return
  }
  s.inquiries += 1
  // Asked by order (no answer named the attempt's payment), the gateway answered with a payment
  // the session knows from another attempt or a QR code: none of this attempt's, whose charge then
  // never reached the gateway, as "no such payment" would say. If that other payment took money,
  // it pays the session (tookMoney credits its own attempt); a late notification naming this
  // attempt's payment is still heard (notifications.ts).
  const named = 'response' in outcome ? outcome.response?.paymentId : undefined
  if (!paymentId && named && receivedPaymentIds(s).includes(named) && s.status === 'unknown' && attempt) {
    log.warn('inquiry_named_another_payment', { session: s.id, paymentId: named, outcome: outcome.kind })
    if (outcome.kind === 'succeeded' && sameOrder(s, outcome.response)) {
      await tookMoney(core, s, attempt, named, outcome.response)
      return
    }
    Object.assign(attempt, { status: 'not_found', recheck: true })
    await core.move(s, afterNoCharge(s, false))
    return
  }
  if ((outcome.kind === 'succeeded' || outcome.kind === 'declined') && !sameOrder(s, outcome.response)) {
    log.error('inquiry_mismatch', { session: s.id, paymentId: outcome.response.paymentId })
  } else if (outcome.kind === 'succeeded' || outcome.kind === 'declined') {
    absorb(s, outcome.response, attempt)
    s.resultCode = outcome.code
    s.resultDescription = outcome.description
    if (attempt) Object.assign(attempt, { status: outcome.kind, code: outcome.code, description: outcome.description })
    if (await core.move(s, outcome.kind === 'succeeded' ? 'succeeded' : afterNoCharge(s, true)))
      tally(core, s, outcome.kind === 'declined')
    return
  } else if (outcome.kind === 'not_found' && s.status === 'unknown') {
    // The gateway never saw the charge: nothing to settle, the shopper may try again. It is asked
    // about once more before the session may end on it (strays.ts: a charge can land later).
    if (attempt) Object.assign(attempt, { status: 'not_found', recheck: true })
    await core.move(s, afterNoCharge(s, false))
    return
  } else if (outcome.kind === 'pending' && s.status === 'unknown') {
    // Still waiting at the gateway (`P`, or `3D` without the bank page we never received).
    if (outcome.response.paymentId) absorb(s, outcome.response, attempt)
    if (attempt) attempt.status = 'pending'
    await core.move(s, 'pending')
  } else {
    await core.save(s)
  }
  await core.schedule('inquiry', Date.now() + inquiryDelay(core.env, s))
}

/**
 * The shopper came back from 3-D Secure or a hosted page: ask the gateway (a browser return is
 * no proof) about the payment in flight, or what `askOtherwise` asks about without one (an
 * issued invoice, paid on the gateway's page: methods/invoice.ts). However often returns arrive,
 * there is at most one inquiry in flight and one return-triggered inquiry per interval (R28): a
 * return inside the interval waits for the next slot and shares it with every other return
 * waiting, so a burst costs at most two inquiries.
 */
export async function confirmReturn(
  core: SessionCore,
  askOtherwise: (s: SessionRecord) => (() => Promise<unknown>) | undefined = () => undefined,
): Promise<{ status: Status; returnUrl?: string; returnPage?: string; allowedOrigins: readonly string[] } | undefined> {
  const s = await core.load()
  if (!s) return undefined
  const ask = isInFlight(s.status) ? () => inquire(core, s) : askOtherwise(s)
  if (ask) {
    const memory = core.memory
    const wait = memory.lastReturnInquiry + RETURN_INQUIRY_MIN_MS - Date.now()
    memory.returnInquiry ??= (wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve())
      .then(async () => {
        memory.lastReturnInquiry = Date.now()
        await ask()
      })
      .finally(() => {
        memory.returnInquiry = undefined
      })
    await memory.returnInquiry
  }
  return {
    status: checkoutView(s, Date.now()).status,
    ...(s.returnUrl ? { returnUrl: s.returnUrl } : {}),
    ...(s.returnPage ? { returnPage: s.returnPage } : {}),
    allowedOrigins: s.allowedOrigins,
  }
}
