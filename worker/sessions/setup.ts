/**
 * @module
 * Registering a card without a payment (`flow: "setup"`). The gateway has no documented call that
 * registers a card alone: a registration comes back from a payment sent with
 * `createRegistration=true`, and the spec gives amounts as two-decimal text with no bounds, so a
 * 0.00 authorisation is not something to count on. A setup therefore authorises the smallest
 * amount of the currency (`paymentType=PA`, 0.01, or 1.00 where the currency has no minor unit)
 * and the session itself voids it (`RV` on `payments/{paymentId}`), from its alarm, until the
 * gateway says it is voided:
 * - the reversal carries its own merchantTransactionId, so a void whose answer was lost is looked
 *   up by it (inquiry, idType MID) and sent again only when the gateway never saw it;
 * - an authorisation whose own answer was lost is settled by the session's status inquiry like
 *   any card payment, and voided once it is known to have succeeded;
 * - no Payment object is opened for it (payments/opening.ts), so nothing offers to capture or
 *   refund it.
 * The session succeeds with the registrationId, and `registration.created` tells the merchant.
 */
import { minorUnits } from '../../shared/money.ts'
import { askAgainInMs } from '../env-vars.ts'
import type { Env } from '../env.ts'
import { gatewayClient } from '../config.ts'
import type { PaymentOutcome } from '../gateway/outcome.ts'
import { log } from '../log.ts'
import type { PendingEvent } from './tasked-object.ts'
import type { SessionRecord, Status } from './types.ts'

/** The session task that voids a setup's authorisation. */
export const SETUP_VOID_TASK = 'setup-void'

/** Refusals of the void tried before the session stops and asks for a person (logged, merchant view). */
const MAX_VOID_TRIES = 8

/** The smallest amount of the currency, as the gateway's two-decimal text. */
export function setupAmount(currency: string): string {
  return minorUnits(currency) === 0 ? '1.00' : '0.01'
}

/** Whether a setup still has an authorisation to void (its record is kept until it is). */
export function setupUnsettled(s: SessionRecord): boolean {
  return (
    s.setup === true &&
    s.status === 'succeeded' &&
    s.setupVoid?.status !== 'voided' &&
    s.setupVoid?.status !== 'needs_attention'
  )
}

/**
 * What a setup session's change to `to` adds: on success, the void to come (written with the
 * change) and `registration.created` when the registrationId is known. Nothing for other sessions.
 */
export function setupOnChange(s: SessionRecord, to: Status): PendingEvent[] {
  if (!s.setup || to !== 'succeeded') return []
  // Its own reference at the gateway (sessions are `cs_` and 24 characters: well inside 64).
  s.setupVoid ??= { status: 'pending', merchantTransactionId: `sv-${s.id}`, sent: false, tries: 0 }
  return registrationEvent(s)
}

/**
 * `registration.created`, once, when the registrationId is known: a setup's, or the card a card
 * session's payment saved that its success did not know (checkout/registration.ts).
 */
export function registrationEvent(s: SessionRecord): PendingEvent[] {
  if (s.registrationTold || !s.createdRegistrationId) return []
  s.registrationTold = true
  return [
    {
      type: 'registration.created',
      data: {
        registrationId: s.createdRegistrationId,
        sessionId: s.id,
        merchantTransactionId: s.merchantTransactionId,
        card: s.card ?? null,
        paymentId: s.paymentId ?? null,
        metadata: s.metadata ?? {},
        sequence: s.seq,
      },
    },
  ]
}

/** What one run of the void task decided: done, or try again at `at`. */
export type VoidStep = { readonly done: true } | { readonly done: false; readonly at: number }

/**
 * One step of the void: ask first when a reversal may already have landed, else send it. The
 * caller writes `s` after each step (and `sent` before the call: `markSent`).
 */
export async function voidStep(env: Env, s: SessionRecord, markSent: () => Promise<void>): Promise<VoidStep> {
  const v = s.setupVoid
  if (!v || v.status !== 'pending') return { done: true }
  if (!s.paymentId) {
    // The success named no payment to void (its answer lacked the id): a person voids it at the
    // gateway, by the setup's order reference; the record is no longer kept waiting for it.
    v.status = 'needs_attention'
    s.lastError = {
      code: 'gateway_rejected',
      message: `The payment service named no payment for the setup authorisation of ${s.merchantTransactionId}; void it at the gateway.`,
    }
    log.error('setup_void_without_payment', { session: s.id })
    return { done: true }
  }
  const client = gatewayClient(env)
  if (v.sent) {
    const asked = await client.inquiry(v.merchantTransactionId, 'MID')
    if (asked.kind === 'succeeded') return voided(s, asked)
    // Never seen, or seen and refused: it is sent (again). Anything else is asked again later.
    if (asked.kind !== 'not_found' && asked.kind !== 'declined') return later(env, s)
  }
  v.sent = true
  v.tries += 1
  await markSent()
  const outcome = await client.reverse(s.paymentId, { merchantTransactionId: v.merchantTransactionId })
  if (outcome.kind === 'succeeded') return voided(s, outcome)
  if ('code' in outcome) v.resultCode = outcome.code
  // Nothing left the Worker, or we cannot tell: the inquiry decides next time.
  if (
    outcome.kind === 'unknown' ||
    outcome.kind === 'unsent' ||
    outcome.kind === 'pending' ||
    outcome.kind === 'action_required'
  )
    return later(env, s)
  // Refused. The gateway would refuse a second reversal of a voided authorisation too, so an
  // inquiry by the reversal's reference still comes first next time; a person is asked after
  // the last try.
  log.error('setup_void_refused', { session: s.id, kind: outcome.kind, code: v.resultCode, tries: v.tries })
  if (v.tries >= MAX_VOID_TRIES) {
    v.status = 'needs_attention'
    s.lastError = {
      code: 'gateway_rejected',
      message: `The payment service refused to void the setup authorisation ${s.paymentId} (${v.resultCode ?? 'no code'}); void it at the gateway.`,
      ...(v.resultCode ? { gatewayCode: v.resultCode } : {}),
    }
    return { done: true }
  }
  return later(env, s)
}

function voided(s: SessionRecord, outcome: Extract<PaymentOutcome, { kind: 'succeeded' }>): VoidStep {
  const v = s.setupVoid
  if (v) {
    v.status = 'voided'
    v.resultCode = outcome.code
    if (outcome.response.paymentId) v.gatewayId = outcome.response.paymentId
  }
  return { done: true }
}

function later(env: Env, s: SessionRecord): VoidStep {
  return { done: false, at: Date.now() + askAgainInMs(env, s.setupVoid?.tries ?? 0) }
}
