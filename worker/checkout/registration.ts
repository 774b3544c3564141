/**
 * @module
 * The card a session's payment saved (`createRegistration`). Its registrationId comes only with
 * the gateway's answer to the payment: a payment settled without that answer (its notification,
 * which names no registration, came first, or the answer was lost) left the session, and the
 * payment's record, without the card. Then the merchant cannot delete the card, and a repeat of
 * the payment charges it with no deletion to check against. So a session that succeeded without
 * it asks the gateway (status inquiry by payment id), from its alarm, until the gateway answers;
 * the card goes to the session and to the payment's record (the repeat's deletion guard checks
 * it), and `registration.created` tells the merchant, whose `checkout.session.succeeded` said
 * `registrationId: null`. A setup session does the same in its void task (sessions/setup.ts).
 */
import { gatewayClient } from '../config.ts'
import { askAgainInMs } from '../env-vars.ts'
import { log } from '../log.ts'
import { paymentOfSession, savesCard } from '../payments/opening.ts'
import { registrationEvent } from '../sessions/setup.ts'
import type { TaskTimers } from '../sessions/tasked-object.ts'
import type { SessionRecord } from '../sessions/types.ts'
import { absorb, sameOrder } from './attempt.ts'
import type { SessionCore } from './core.ts'

/** The session task that asks for the registration a payment saved. */
export const REGISTRATION_TASK = 'registration'

/**
 * Unanswered inquiries before the session stops asking (logged; the merchant view says none):
 * about three days, two hours of doubling then hourly (`askAgainInMs`), as an issued invoice is
 * asked after. Until then the payment's repeats wait for the card (routes/payments.ts), so a
 * gateway down for an afternoon must not leave them refused for good.
 */
const MAX_ASKS = 12 + 72

/**
 * What a card session's success sets for the card its payment saved: nothing more when the
 * success knows it (its event carries it), else the task that asks for it. Not for a setup,
 * whose own task does (sessions/setup.ts), nor for a payment that saves no card (another way
 * to pay of the session).
 */
export function registrationOnSuccess(s: SessionRecord): TaskTimers {
  if (!savesCard(s)) return {}
  if (s.createdRegistrationId) {
    s.registrationTold = true
    return {}
  }
  return { [REGISTRATION_TASK]: Date.now() }
}

/**
 * Whether the session still asks for the card its payment saved (its record kept until then:
 * checkout-session.ts's purge), or has learned it and not told it yet.
 */
export const registrationAsked = (s: SessionRecord): boolean =>
  savesCard(s) &&
  !s.registrationTold &&
  !s.registrationNone &&
  s.status === 'succeeded' &&
  !!s.paymentId &&
  (s.registrationAsks ?? 0) < MAX_ASKS

/**
 * Asks the gateway about the session's payment and takes the card its answer names (only the
 * payment's own success, of the session's order): `paid` when that success came, whether or not
 * it named a card. Shared by this task and a setup's void task (checkout-session.ts).
 */
export async function askForCard(core: SessionCore, s: SessionRecord, paymentId: string): Promise<boolean> {
  const asked = await gatewayClient(core.env).inquiry(paymentId, 'PID')
  const paid = asked.kind === 'succeeded' && sameOrder(s, asked.response)
  // The session's own payment, settled long since: no attempt of it is in flight.
  if (paid) absorb(s, asked.response, undefined)
  return paid
}

/** The task: asks the gateway for the registration, records it and tells it, or asks again later. */
export async function learnRegistration(core: SessionCore, s: SessionRecord): Promise<void> {
  if (!registrationAsked(s) || !s.paymentId) return
  if (!s.createdRegistrationId) {
    const paid = await askForCard(core, s, s.paymentId)
    // Only the payment's own success that names no card says none was saved: then there is
    // nothing to tell, and the payment's record, which waited for the card, may be repeated
    // (payments/opening.ts). Any other answer (a decline, no such payment, another order's) says
    // nothing of the card, and is asked again like no answer.
    if (paid && !s.createdRegistrationId) {
      log.warn('registration_not_named', { session: s.id, paymentId: s.paymentId })
      s.registrationNone = true
      s.seq += 1
      s.updatedAt = Date.now()
      return core.commit(s.id, s.seq, { session: s }, [], paymentOfSession(s))
    }
  }
  if (!s.createdRegistrationId) {
    s.registrationAsks = (s.registrationAsks ?? 0) + 1
    await core.save(s)
    if (s.registrationAsks >= MAX_ASKS) {
      // The payment's record keeps waiting for the card: its repeats stay refused (README).
      log.error('registration_unknown', { session: s.id, paymentId: s.paymentId })
      return
    }
    return core.schedule(REGISTRATION_TASK, Date.now() + askAgainInMs(core.env, s.registrationAsks))
  }
  s.seq += 1
  s.updatedAt = Date.now()
  // The payment's record, opened at the success without the card, takes it (payments/opening.ts).
  await core.commit(s.id, s.seq, { session: s }, registrationEvent(s), paymentOfSession(s))
}
