/**
 * @module
 * What every part of a checkout session uses: the session object's storage and tasks (`SessionCore`,
 * which the Durable Object hands to its modules), and the few rules all ways to pay share: where an
 * attempt that took no money leaves the session, and what the browser is answered.
 */
import type { PendingEvent, TaskTimers } from '../sessions/tasked-object.ts'
import type { Env } from '../env.ts'
import type { Job } from '../outbox/jobs.ts'
import { done, type Reply } from '../reply.ts'
import {
  attemptsRemaining,
  codesUnasked,
  moneyMayMove,
  type PayResult,
  type SessionRecord,
  type Status,
} from '../sessions/types.ts'
import { METHODS } from './methods/table.ts'

/** The session object as its modules see it: one session, written one change at a time. */
export interface SessionCore {
  readonly env: Env
  readonly ctx: DurableObjectState
  load(): Promise<SessionRecord | undefined>
  /** Writes the session without a change of state (ids, counters, details). */
  save(s: SessionRecord, also?: Record<string, unknown>): Promise<void>
  /**
   * Moves the session if the state machine allows it, with the event of the change, in one batch;
   * `timers` are tasks the change sets (a time) or ends (undefined) in that batch.
   */
  move(s: SessionRecord, to: Status, also?: Record<string, unknown>, timers?: TaskTimers): Promise<boolean>
  /** Writes a change that is not a move (its events and jobs in the same batch). */
  commit(
    owner: string,
    seq: number,
    entries: Record<string, unknown>,
    events?: readonly PendingEvent[],
    jobs?: readonly Job[],
  ): Promise<void>
  /** Sets a task; `earliest` keeps a sooner time already set. */
  schedule(name: string, at: number, earliest?: boolean): Promise<void>
  cancel(name: string): Promise<void>
  /** What lives only as long as this instance: the inquiry under way and the return throttle. */
  readonly memory: { inquiring?: Promise<void>; lastReturnInquiry: number; returnInquiry?: Promise<void> }
}

export const MINUTE_MS = 60_000

/** Shoppers learn that a card was declined, never why (SECURITY.md R12). */
const MESSAGES: Record<PayResult['status'], string> = {
  succeeded: 'Payment successful.',
  declined: 'Your card was declined.',
  failed: 'This payment could not be completed.',
  pending: 'Your payment is being processed.',
  action_required: 'Your bank needs you to confirm this payment.',
  unknown: 'We are confirming your payment.',
}

/**
 * Where an attempt that took no money leaves the session: expired past its time, failed with no
 * attempts left (for the ways to pay that count them), else open for another try (`declined`
 * when the gateway declined it).
 */
export function afterNoCharge(s: SessionRecord, declined: boolean): Status {
  // Not while a payment it moved on from may still take money, or one given up is to be asked
  // about again: that one settles first (strays.ts).
  if (!moneyMayMove(s)) {
    // Past its time with QR codes to ask about, the expiry asks first (the move sets it going);
    // so it does with an invoice issued or being issued, which another try may have paid, its
    // notification lost (its expiry task is set for as long as it is to be asked about).
    if (Date.now() >= s.expiresAt && codesUnasked(s).length === 0 && !s.invoice && !s.regeneration) return 'expired'
    if ((s.method ? METHODS[s.method].countsAttempts : true) && attemptsRemaining(s) === 0) return 'failed'
  }
  return declined ? 'declined' : 'open'
}

/**
 * What the gateway said, at the session's expiry, of a payment whose notification may have been
 * lost (an issued invoice, a QR code shown): it took the money (the session is settled by it), it
 * did not (or there is nothing to ask), or ask again later (the expiry task is set for it).
 */
export type AtExpiry = 'paid' | 'unpaid' | 'ask_later'

/** The browser's answer to an attempt, as the session now stands. */
export function answer(s: SessionRecord, status: PayResult['status']): Reply {
  return done({
    status,
    // A setup's authorisation is no payment (its session voids it): the page is told the card
    // is saved, never an id it could take for a payment (the merchant's view names it).
    ...(s.paymentId && !s.setup ? { paymentId: s.paymentId } : {}),
    ...(s.card ? { card: s.card } : {}),
    ...(status === 'action_required' && s.redirect ? { redirect: s.redirect } : {}),
    attemptsRemaining: s.status === 'failed' ? 0 : attemptsRemaining(s),
    // A wallet is declined, not a card.
    message: status === 'declined' && s.method === 'qr' ? 'Your wallet payment was declined.' : MESSAGES[status],
  } satisfies PayResult)
}
