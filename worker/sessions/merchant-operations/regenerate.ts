/**
 * @module
 * An invoice regeneration through the merchant route: the gateway makes a new invoice from an
 * expired one, under the merchant's new reference. It moves no money itself, so an answer that
 * never came is settled by asking again for the same reference (the gateway returns the invoice it
 * made). The regenerated invoice then ends `paid` by its notification; a declined try on its page
 * may be followed by one that pays.
 */
import { checkFormat } from '../../../shared/formats.ts'
import type { InvoiceResponse } from '../../../shared/types.ts'
import { settlementOf, type Outcome } from '../../gateway/outcome.ts'
import { gatewayTime, hoursMs } from '../../gateway/units.ts'
import { openPayment } from '../../payments/opening.ts'
import type { Metadata } from '../metadata.ts'
import { CLAIM_KEPT_MS } from '../../guards/order-registry.ts'
import { log } from '../../log.ts'
import type { OperationContext, OperationFlow, OperationRecord } from './flow.ts'

const DAY_MS = 24 * 60 * 60_000

export interface RegenerateParams {
  readonly kind: 'regenerate'
  readonly invoiceId: string
  readonly merchantInvoiceId: string
  readonly invoiceExpirationPeriod: string
  readonly merchantRedirectUrl: string
  /** The merchant's pairs for the payment the invoice becomes (like a session's). */
  readonly metadata?: Metadata
}

type Regeneration = OperationRecord<RegenerateParams>

async function absorb(ctx: OperationContext, op: Regeneration, outcome: Outcome<InvoiceResponse>): Promise<void> {
  if (outcome.kind === 'succeeded') {
    const r = outcome.response
    op.invoice = {
      merchantInvoiceId: r.merchantInvoiceId ?? op.params.merchantInvoiceId,
      amount: r.amount ?? '',
      currency: r.currency ?? '',
      at: Date.now(),
    }
    // The pay link goes to shoppers: only an https address (or the local sandbox) is passed on.
    // The customer's email and the order's free text are the shopper's personal data, which the
    // merchant gave the gateway: not kept here, where events and the search index would hold them
    // past the retention.
    const { transactionUrl, createdTime, customerEmail: _email, merchantOrderDescription: _text, ...rest } = r
    const invoice = {
      ...rest,
      ...(createdTime ? { createdTime: gatewayTime(createdTime) } : {}),
      ...(transactionUrl !== undefined && checkFormat('url', transactionUrl) === null ? { transactionUrl } : {}),
    }
    op.result = { invoice, resultCode: outcome.code }
    await ctx.change(op, 'succeeded')
  } else if (outcome.kind === 'unknown') {
    await ctx.change(op, 'unknown')
  } else {
    op.result =
      'code' in outcome
        ? { resultCode: outcome.code, resultDescription: outcome.description }
        : outcome.kind === 'unsent'
          ? { unsent: outcome.reason }
          : {}
    // A refusal, or a call that never left, settles only the first call. Asked again after an
    // answer that never came, the invoice may exist (and be paid) all the same: still unknown,
    // asked again, and the merchant told it needs attention after a while, never `failed`.
    await ctx.change(op, op.status === 'processing' ? 'failed' : op.status)
  }
  await ctx.keepAsking(op)
}

/**
 * The asking ends a day before the reference's claim does (its period and 30 days): after that
 * the reference may be another checkout's, whose invoice or payment is never taken for this one's.
 */
const asksEnd = (op: Regeneration): number =>
  op.createdAt + hoursMs(op.params.invoiceExpirationPeriod) + CLAIM_KEPT_MS - DAY_MS

/**
 * A payment of this invoice: its reference (this operation's own while claimed), and its sum,
 * where the regeneration's answer said it (the gateway's answer may leave it out: the reference
 * alone then names the invoice, and its payment tells the sum: `learnSum`).
 */
const isOurs = (
  invoice: NonNullable<Regeneration['invoice']>,
  n: { merchantTransactionId?: string; amount?: string; currency?: string },
): boolean =>
  n.merchantTransactionId === invoice.merchantInvoiceId &&
  (invoice.amount === '' || n.amount === invoice.amount) &&
  (invoice.currency === '' || n.currency === invoice.currency)

/**
 * The sum the regeneration's answer did not say, from the payment that paid it (for its record):
 * only a payment that took money, with both parts (a notification's checksum does not cover the
 * currency, and a decline, learned, would have the payment that follows it refused).
 */
function learnSum(op: Regeneration, amount: string | undefined, currency: string | undefined): void {
  if (!op.invoice || !amount || !currency) return
  if (op.invoice.amount === '') op.invoice.amount = amount
  if (op.invoice.currency === '') op.invoice.currency = currency
}

export const regenerate: OperationFlow<RegenerateParams> = {
  transitions: {
    processing: ['unknown', 'succeeded', 'failed'],
    unknown: ['succeeded', 'failed'],
    pending: [],
    succeeded: ['paid', 'declined', 'expired'],
    // Another try on the invoice's page may still pay it: money taken always reaches the merchant.
    declined: ['paid', 'expired'],
    failed: [],
    paid: [],
    expired: [],
  },
  notified: { charged: 'paid', not_charged: 'declined', pending: undefined },
  eventType: (to) =>
    to === 'paid' || to === 'declined' || to === 'expired'
      ? `invoice.${to}`
      : `invoice.regenerate.${to as 'succeeded' | 'unknown' | 'failed'}`,
  attentionEvent: 'invoice.regenerate.needs_attention',
  // Payable until its expiry period (hours) has passed since it was regenerated; never paid, it
  // then ends with one final event (invoice.expired). A notification of a payment still wins
  // until then (declined -> paid). Dated from the answer that named it, not from the request: an
  // answer that never came is asked for again, up to an hour later, and the gateway makes the
  // invoice (and starts its period) when a call reaches it, which may be the later one.
  expiresAt(op) {
    if (op.status !== 'succeeded' && op.status !== 'declined') return undefined
    const period = hoursMs(op.params.invoiceExpirationPeriod)
    return period > 0 ? (op.invoice?.at ?? op.createdAt) + period : undefined
  },

  // Before it ends unpaid, the gateway is asked whether it was paid after all (a notification can
  // be lost): money taken on the invoice ends as `paid`, never as `expired`. Only the gateway's
  // word that it took nothing (no payment found, or one declined) ends it unpaid; anything else
  // (no answer, a refusal such as its token refused, a payment still at the bank, a success that
  // does not name its payment and sum) is asked again in an hour, while its reference is its own.
  async expire(ctx, op) {
    const invoice = op.invoice
    if (!invoice) return void (await ctx.change(op, 'expired'))
    const outcome = await ctx.client.inquiry(invoice.merchantInvoiceId, 'MID')
    const r = outcome.kind === 'succeeded' ? outcome.response : undefined
    if (outcome.kind === 'succeeded' && r?.paymentId && r.amount) {
      const paid = { merchantTransactionId: r.merchantTransactionId ?? invoice.merchantInvoiceId, amount: r.amount }
      if (!isOurs(invoice, { ...paid, currency: r.currency ?? invoice.currency })) {
        log.error('inquiry_mismatch', { invoice: invoice.merchantInvoiceId, paymentId: r.paymentId })
        return void (await ctx.change(op, 'expired'))
      }
      learnSum(op, r.amount, r.currency ?? invoice.currency)
      op.paymentId = r.paymentId
      op.result = {
        ...op.result,
        paymentId: r.paymentId,
        resultCode: outcome.code,
        resultDescription: outcome.description,
      }
      await ctx.change(op, 'paid')
    } else if (outcome.kind === 'not_found' || outcome.kind === 'declined') {
      await ctx.change(op, 'expired')
    } else if (Date.now() < asksEnd(op)) {
      // Said for the operator each time: an answer that never says may be a misconfiguration.
      log.warn('invoice_expiry_unconfirmed', { invoice: invoice.merchantInvoiceId, outcome: outcome.kind })
      await ctx.expireLater(Date.now() + 60 * 60_000)
    } else {
      // Its reference may be another checkout's from now on: unpaid, for the operator to look at.
      log.error('invoice_unconfirmed', { invoice: invoice.merchantInvoiceId })
      await ctx.change(op, 'expired')
    }
  },
  describe: () => ({}),

  async send(ctx, op) {
    const p = op.params
    const outcome = await ctx.client.regenerateInvoice({
      invoiceId: p.invoiceId,
      merchantInvoiceId: p.merchantInvoiceId,
      invoiceExpirationPeriod: p.invoiceExpirationPeriod,
      merchantRedirectUrl: p.merchantRedirectUrl,
      notificationUrl: ctx.notificationUrl,
    })
    await absorb(ctx, op, outcome)
  },

  // Regeneration creates no charge; asking again for the same merchantInvoiceId is safe. Refused
  // or never sent again, the invoice the first call may have made (and the gateway sent the
  // shopper) is asked about by its reference: paid, it was regenerated and is paid, told so. Only
  // while the reference is this operation's (its claim: the period and 30 days, a day's margin):
  // after that it may be another checkout's, whose invoice or payment is never taken for this
  // one's. It is sent again only while an invoice it makes would expire before the asking ends.
  // The operation then stays unknown, unasked; the merchant was told it needs attention.
  async settle(ctx, op) {
    const period = hoursMs(op.params.invoiceExpirationPeriod)
    if (Date.now() > asksEnd(op)) return
    if (Date.now() <= asksEnd(op) - period) await this.send(ctx, op)
    else await ctx.keepAsking(op)
    if (op.status !== 'unknown') return
    const ref = op.params.merchantInvoiceId
    const outcome = await ctx.client.inquiry(ref, 'MID')
    if (outcome.kind !== 'succeeded') return
    const r = outcome.response
    if (!r.paymentId || r.merchantTransactionId !== ref || !r.amount || !r.currency) return
    op.invoice = { merchantInvoiceId: ref, amount: r.amount, currency: r.currency, at: Date.now() }
    op.paymentId = r.paymentId
    op.result = {
      invoice: { merchantInvoiceId: ref, amount: r.amount, currency: r.currency },
      paymentId: r.paymentId,
      resultCode: outcome.code,
    }
    await ctx.change(op, 'succeeded')
    // Should the object go away before `paid` is written: its expiry asks again now, and finds it paid.
    await ctx.expireLater(Date.now())
    await ctx.change(op, 'paid')
  },

  foreign: (op, n) => (op.invoice && isOurs(op.invoice, n) ? undefined : 'invoice'),

  absorbNotification(op, n) {
    if (settlementOf(n.transactionStatus) === 'charged') learnSum(op, n.amount, n.currency)
    op.paymentId = n.paymentId
    op.result = { ...op.result, paymentId: n.paymentId }
  },

  jobs(op, to) {
    // The invoice paid is a payment like any other: found, listed, refundable, with its metadata.
    if (to !== 'paid' || !op.paymentId || !op.invoice) return []
    return openPayment({
      paymentId: op.paymentId,
      merchantTransactionId: op.invoice.merchantInvoiceId,
      amount: op.invoice.amount,
      currency: op.invoice.currency,
      paymentType: 'DB',
      source: 'invoice',
      recurring: null,
      metadata: op.params.metadata ?? {},
    })
  },
}
