/**
 * @module
 * A repeat: the merchant charges a stored card again by the first payment's id (`REPEATED`). One
 * charge: once charged or declined it never changes again. An answer that never came is settled by
 * status inquiry (by the repeat's payment id, or before any answer by its reference); only when the
 * gateway says it has no such transaction is it sent once more, with the same reference (its card
 * deleted before that: asked about once more, minutes later, and only then failed).
 */
import type { Notification, PaymentResponse } from '../../../shared/types.ts'
import type { Outcome } from '../../gateway/outcome.ts'
import { log } from '../../log.ts'
import { openPayment } from '../../payments/opening.ts'
import type { PaymentSnapshot } from '../../payments/types.ts'
import type { OperationContext, OperationFlow, OperationRecord } from './flow.ts'

export interface RepeatParams {
  readonly kind: 'repeat'
  readonly paymentId: string
  readonly amount: string
  readonly currency: string
  readonly paymentType: 'DB' | 'PA'
  /** Generated from the key, so a timed-out repeat can be found by inquiry (idType=MID). */
  readonly merchantTransactionId: string
  /**
   * What the repeated payment's record says (none when the Worker has no record of it): the saved
   * card it charges, guarded before every send, and what the new payment inherits from it.
   */
  readonly parent?: Pick<PaymentSnapshot, 'registrationId' | 'card' | 'email' | 'metadata'>
}

type Repeat = OperationRecord<RepeatParams>

/** How long after its re-send was refused the first request is asked about once more (as a session's). */
const LAST_ASK_MS = 5 * 60_000

/** The answer (to the call, or to an inquiry about it) applied to the repeat. */
async function absorb(
  ctx: OperationContext,
  op: Repeat,
  outcome: Outcome<PaymentResponse>,
  fromInquiry: boolean,
): Promise<void> {
  const p = op.params
  // Settled already (a notification can come before the gateway's own answer): a later, older
  // answer changes neither the status nor what the merchant was told of it. One consistent answer.
  if (op.status !== 'processing' && op.status !== 'unknown' && op.status !== 'pending') return
  if ('response' in outcome && outcome.response) {
    const r = outcome.response
    // An answer about another order or sum is not this repeat's (R27).
    if (
      (r.merchantTransactionId && r.merchantTransactionId !== p.merchantTransactionId) ||
      (r.amount && r.amount !== p.amount) ||
      (r.currency && r.currency !== p.currency)
    ) {
      log.error('operation_answer_mismatch', { paymentId: r.paymentId })
      return ctx.keepAsking(op)
    }
    if (r.paymentId && (outcome.kind === 'succeeded' || outcome.kind === 'declined' || outcome.kind === 'pending'))
      op.paymentId ??= r.paymentId
  }
  switch (outcome.kind) {
    case 'succeeded':
    case 'declined':
    case 'pending':
      op.result = {
        paymentId: outcome.response.paymentId ?? op.paymentId ?? null,
        resultCode: outcome.code,
        resultDescription: outcome.description,
      }
      await ctx.change(op, outcome.kind)
      break
    case 'unknown':
      await ctx.change(op, 'unknown')
      break
    case 'not_found':
      // From an inquiry: the repeat never reached the gateway (still unknown until re-sent).
      // From the repeat itself: the payment to repeat does not exist.
      if (!fromInquiry) op.result = { resultCode: outcome.code, resultDescription: outcome.description }
      await ctx.change(op, fromInquiry ? 'unknown' : 'failed')
      break
    case 'unsent':
      op.result = { unsent: outcome.reason }
      await ctx.change(op, op.status === 'processing' ? 'failed' : op.status)
      break
    default:
      // A refusal settles only the first call; after it (an inquiry, the re-send) it says nothing.
      op.result =
        'code' in outcome
          ? { resultCode: outcome.code, resultDescription: outcome.description }
          : { fields: 'fields' in outcome ? outcome.fields : [] }
      await ctx.change(op, op.status === 'processing' ? 'failed' : op.status)
  }
  await ctx.keepAsking(op)
}

export const repeat: OperationFlow<RepeatParams> = {
  transitions: {
    processing: ['pending', 'unknown', 'succeeded', 'declined', 'failed'],
    unknown: ['pending', 'succeeded', 'declined', 'failed'],
    pending: ['succeeded', 'declined'],
    // A signed decline naming a charged repeat is a duplicate, not a second final event.
    succeeded: [],
    declined: [],
    // Failed after its last ask (`lastAsk`), its first request may still reach the gateway later:
    // money taken then ends as a charged repeat (as a session's verified success wins over failed).
    failed: ['succeeded'],
    paid: [],
    expired: [],
  },
  notified: { charged: 'succeeded', not_charged: 'declined', pending: 'pending' },
  eventType: (to) => `payment.repeat.${to as 'pending' | 'unknown' | 'succeeded' | 'declined' | 'failed'}`,
  attentionEvent: 'payment.repeat.needs_attention',
  expiresAt: () => undefined,
  expire: async () => {},
  // What the merchant asked, in the answer, the events and the listing: a refused or failed repeat
  // is matched to its request by the payment it repeats and the amount.
  describe: (p) => ({
    merchantTransactionId: p.merchantTransactionId,
    repeatOf: p.paymentId,
    amount: p.amount,
    currency: p.currency,
  }),

  async send(ctx, op) {
    const p = op.params
    // Before every send, the first and the one re-send: a card deleted meanwhile is never charged.
    const deleted = await ctx.registrationRefusal(p.parent?.registrationId)
    if (deleted) {
      // The re-send: the gateway did not find the first, which may still reach it (a request
      // lost on its way), and take money; asked about once more, minutes later, before it fails.
      if (op.status === 'unknown' && !op.lastAsk) {
        op.lastAsk = deleted.code
        return ctx.askAt(op, Date.now() + LAST_ASK_MS)
      }
      op.result = { ...op.result, error: deleted.code }
      await ctx.change(op, 'failed')
      return
    }
    const outcome = await ctx.client.repeat(p.paymentId, {
      amount: p.amount,
      currency: p.currency,
      paymentType: p.paymentType,
      merchantTransactionId: p.merchantTransactionId,
      notificationUrl: ctx.notificationUrl,
    })
    await absorb(ctx, op, outcome, false)
  },

  async settle(ctx, op) {
    const p = op.params
    const outcome = op.paymentId
      ? await ctx.client.inquiry(op.paymentId, 'PID')
      : await ctx.client.inquiry(p.merchantTransactionId, 'MID')
    log.info('operation_inquiry', { outcome: outcome.kind, tries: op.tries })
    // Asked once more after its re-send was refused (`send`), still not found: the first never
    // reached the gateway.
    if (outcome.kind === 'not_found' && op.lastAsk && op.status === 'unknown') {
      op.result = { ...op.result, error: op.lastAsk }
      return void (await ctx.change(op, 'failed'))
    }
    if (outcome.kind === 'not_found' && !op.resent && op.status === 'unknown') {
      // The gateway says it has no such transaction: the one re-send, with the same reference
      // (a late copy of the first would be refused by the gateway as a duplicate order).
      op.resent = true
      await ctx.save(op)
      return this.send(ctx, op)
    }
    await absorb(ctx, op, outcome, true)
  },

  foreign(op, n: Notification) {
    const p = op.params
    if (n.merchantTransactionId !== p.merchantTransactionId || n.amount !== p.amount || n.currency !== p.currency)
      return 'order'
    // The payment the gateway gave this repeat; before any answer, only while it is still open,
    // or failed on its last ask (its order is its own: the first request, landed after all).
    const open = op.status === 'processing' || op.status === 'unknown' || (op.status === 'failed' && !!op.lastAsk)
    if (op.paymentId ? n.paymentId !== op.paymentId : !open) return 'payment'
    return undefined
  },

  absorbNotification(op, n) {
    op.paymentId ??= n.paymentId
    op.result = {
      ...op.result,
      paymentId: n.paymentId,
      ...(n.resultCode ? { resultCode: n.resultCode, resultDescription: n.resultDescription ?? '' } : {}),
    }
  },

  jobs(op, to) {
    // A repeat that took money opens its payment's record (refunds of it), like a paid session.
    const paymentId = typeof op.result?.paymentId === 'string' ? op.result.paymentId : op.paymentId
    if (to !== 'succeeded' || !paymentId) return []
    const p = op.params
    // The same card and customer as the payment repeated, and its metadata (README: events about a
    // payment carry the metadata of the session or payment it came from).
    return openPayment({
      paymentId,
      merchantTransactionId: p.merchantTransactionId,
      amount: p.amount,
      currency: p.currency,
      paymentType: p.paymentType,
      source: 'repeat',
      recurring: 'REPEATED',
      registrationId: p.parent?.registrationId ?? null,
      card: p.parent?.card ?? null,
      email: p.parent?.email ?? null,
      metadata: p.parent?.metadata ?? {},
    })
  },
}
