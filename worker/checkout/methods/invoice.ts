/**
 * @module
 * Invoices: the merchant's invoice is regenerated at the gateway once, and the shopper pays it on
 * the gateway's page (each try there is a payment of its own: see its row in table.ts for which
 * notifications it answers for). The session lives as long as its invoice.
 */
import { checkFormat } from '../../../shared/formats.ts'
import { gatewayClient } from '../../config.ts'
import { gatewayTime, hoursMs } from '../../gateway/units.ts'
import { callbackUrl, callWindowMs } from '../../env-vars.ts'
import { log } from '../../log.ts'
import { sessionIndexJob } from '../../search/rows.ts'
import { done, fail, type Reply } from '../../reply.ts'
import { moneyMayMove, offers, type SessionRecord } from '../../sessions/types.ts'
import { refusal, withdrawOthers } from '../attempt.ts'
import { MINUTE_MS, type AtExpiry, type SessionCore } from '../core.ts'
import { inquiryDelay } from '../inquiry.ts'
import { settleFromInquiry } from '../notifications.ts'

/**
 * Regenerates the session's invoice once; a second call answers the same invoice. `returnPage`:
 * the page that asked for it (checked by the route), where the result page after the invoice's
 * page links back when the session has no `returnUrl`.
 */
export async function regenerateInvoice(core: SessionCore, returnPage?: string): Promise<Reply> {
  const s = await core.load()
  if (!s) return fail('not_found', 'No such checkout.')
  if (!offers(s, 'invoice')) return fail('forbidden', `This checkout does not offer invoice payments.`)
  if (s.invoice) return { ...done({ status: 'regenerated', invoice: s.invoice }), replayed: true }
  const refused = await refusal(core, s, 'invoice')
  if (refused) return refused
  // Refused once for another amount (the session kept open while a charge settles): the gateway
  // is not asked again.
  if (s.invoiceMismatch) return fail('invoice_mismatch', 'This invoice cannot be paid here. Please contact the shop.')
  // One regeneration at a time (R28); one whose answer was lost may be asked again (it
  // creates no charge: the same merchantInvoiceId answers the same invoice).
  if (s.regeneration?.status === 'processing' && !regenerationStale(core, s))
    return fail('payment_in_progress', 'The invoice is being prepared.')
  if (returnPage) s.returnPage = returnPage
  return regenerate(core, s)
}

const regenerationStaleMs = (core: SessionCore): number => callWindowMs(core.env)

/** A regeneration whose answer is lost (`unknown`), or still `processing` long after any answer could come. */
const regenerationStale = (core: SessionCore, s: SessionRecord): boolean =>
  Date.now() - (s.regeneration?.at ?? 0) > regenerationStaleMs(core)

/**
 * The alarm's regeneration: one whose answer was lost, or whose Worker went away before it came,
 * is asked again while the session has not ended.
 */
export async function regenerateAgain(core: SessionCore, s: SessionRecord): Promise<void> {
  const r = s.regeneration
  if (!r || s.invoice || (s.status !== 'open' && s.status !== 'declined')) return
  if (r.status === 'unknown' || regenerationStale(core, s)) await regenerate(core, s)
}

export async function regenerate(core: SessionCore, s: SessionRecord): Promise<Reply> {
  // Asked before, its answer lost (or its Worker gone): the invoice may exist at the gateway.
  const askedBefore = s.regeneration !== undefined
  s.regeneration = { status: 'processing', at: Date.now() }
  await core.save(s)
  // Its watchdog: should the Worker go away before the answer, the alarm asks again (a
  // regeneration creates no charge; the same reference answers the same invoice).
  await core.schedule('regenerate', Date.now() + regenerationStaleMs(core))
  const outcome = await gatewayClient(core.env).regenerateInvoice({
    invoiceId: s.invoiceId ?? '',
    merchantInvoiceId: s.merchantInvoiceId ?? '',
    invoiceExpirationPeriod: s.invoiceExpirationPeriod ?? '24',
    // The gateway's page sends the shopper back to the Worker's return, which asks the gateway
    // (a return is no proof) and then goes on to the merchant's `returnUrl` with the session and
    // its status, as after 3-D Secure (the gateway's own query would name neither).
    merchantRedirectUrl: callbackUrl(core.env, 'return', s.id),
    notificationUrl: callbackUrl(core.env, 'notifications', s.id),
  })
  // Paid meanwhile (its invoice asked about by its reference on the shopper's return or at the
  // expiry, and found paid): the session is over, and this answer changes nothing of it.
  if (s.status === 'succeeded') return fail('session_completed', 'This checkout is already paid.')
  // Asked again, a refusal or a call that never left says nothing of the invoice the first call
  // may have made (and the gateway sent the shopper): still unknown, asked again, and asked about
  // by its reference at the session's expiry, so a payment on it is never lost. Only "no such
  // invoice to regenerate" is final: that one never changes.
  if (outcome.kind === 'unknown' || (askedBefore && outcome.kind !== 'succeeded' && outcome.kind !== 'not_found')) {
    s.regeneration = { status: 'unknown', at: Date.now() }
    // A refusal of the ask again is the merchant's to read, as the first call's would be.
    const refused = outcome.kind !== 'unknown' && 'code' in outcome ? outcome.code : undefined
    if (refused)
      s.lastError = {
        code: 'gateway_rejected',
        message: `The payment service refused the invoice regeneration asked again (${refused}); asked again, as the invoice of the first ask, whose answer was lost, may exist.`,
        gatewayCode: refused,
      }
    // Asked again with the inquiries' backoff, up to an hour apart.
    s.inquiries += 1
    await core.save(s)
    await core.schedule('regenerate', Date.now() + inquiryDelay(core.env, s))
    return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
  }
  delete s.regeneration
  await core.cancel('regenerate')
  if (outcome.kind !== 'succeeded') {
    // Nothing was issued: a session whose time ran out while it waited for this answer expires now.
    await core.schedule('expire', s.expiresAt)
    // The gateway's code is the merchant's to read (logged, and on the session's merchant view),
    // not the shopper's.
    const code =
      outcome.kind !== 'not_found' && outcome.kind !== 'unsent' && 'code' in outcome ? outcome.code : undefined
    if (code)
      s.lastError = {
        code: 'gateway_rejected',
        message: `The payment service refused the invoice regeneration (${code}: ${('description' in outcome && outcome.description) || 'no description'}).`,
        gatewayCode: code,
      }
    // The session names an invoice the gateway does not have: the merchant's to mend.
    if (outcome.kind === 'not_found')
      s.lastError = {
        code: 'not_found',
        message: `The payment service has no invoice ${s.invoiceId ?? ''} to regenerate (the session's invoiceId).`,
      }
    await core.save(s)
    if (outcome.kind === 'not_found') return fail('not_found', 'The invoice to regenerate does not exist.')
    if (outcome.kind === 'unsent')
      return fail(
        outcome.reason === 'token_refused' ? 'gateway_auth_failed' : 'gateway_unavailable',
        'The invoice could not be prepared.',
      )
    log.error('invoice_regenerate_refused', { session: s.id, code })
    return fail('gateway_rejected', 'The invoice could not be regenerated.')
  }
  const r = outcome.response
  const amount = r.amount ?? s.amount
  const currency = r.currency ?? s.currency
  if (amount !== s.amount || currency !== s.currency) {
    // The invoice named by the merchant is for another sum: offering it would settle the session
    // at the wrong amount. Nothing can be paid here; the merchant is told. Not while a payment it
    // moved on from may still take money (a card's answer lost): that one settles first, and the
    // session ends as its answer says (strays.ts), with one final event.
    s.lastError = { code: 'invoice_mismatch', message: 'The invoice amount or currency differs from the session.' }
    s.invoiceMismatch = true
    log.error('invoice_mismatch', { session: s.id })
    await core.move(s, moneyMayMove(s) ? s.status : 'failed')
    return fail('invoice_mismatch', 'This invoice cannot be paid here. Please contact the shop.')
  }
  const url = r.transactionUrl
  s.method = 'invoice'
  // Nor is a card declined before it the invoice's: its notification names the card that pays it.
  delete s.card
  // Issued, the invoice is the session's way to pay: a QR code shown beside it is withdrawn.
  withdrawOthers(s, 'invoice')
  s.invoice = {
    systemInvoiceId: r.systemInvoiceId ?? '',
    merchantInvoiceId: r.merchantInvoiceId ?? s.merchantInvoiceId ?? '',
    amount,
    currency,
    ...(r.createdDate ? { createdDate: r.createdDate } : {}),
    ...(r.createdTime ? { createdTime: gatewayTime(r.createdTime) } : {}),
    ...(r.invoiceExpirationPeriod ? { invoiceExpirationPeriod: r.invoiceExpirationPeriod } : {}),
    // Only an https address (or the local sandbox) is offered to the shopper as a pay link.
    ...(url && checkFormat('url', url) === null ? { transactionUrl: url } : {}),
  }
  // The session lives as long as its invoice: a shopper paying on the gateway's page late in
  // the invoice's life must find the session open.
  const period = hoursMs(r.invoiceExpirationPeriod ?? s.invoiceExpirationPeriod ?? '24')
  if (period > 0) s.expiresAt = Math.max(s.expiresAt, Date.now() + period)
  s.seq += 1
  s.updatedAt = Date.now()
  await core.commit(
    s.id,
    s.seq,
    { session: s },
    [
      {
        type: 'invoice.regenerated',
        data: {
          sessionId: s.id,
          merchantTransactionId: s.merchantTransactionId,
          invoice: s.invoice,
          metadata: s.metadata ?? {},
          sequence: s.seq,
        },
      },
    ],
    [sessionIndexJob(s)],
  )
  await core.schedule('expire', s.expiresAt)
  return done({ status: 'regenerated', invoice: s.invoice })
}

/** How long a session whose invoice the gateway could not say about waits to ask again. */
const ASK_AGAIN_MS = 60 * MINUTE_MS
/**
 * How often it asks (three days, hourly) before it takes the invoice as unpaid all the same,
 * logged for the operator: a verified notification of the payment still ends it paid (R3) while
 * its record is kept.
 */
const ASKS_MAX = 72

/**
 * The invoice's part of the expiry of a session that issued one, or is issuing one. An invoice
 * being issued is a payment under way: the session waits for the gateway's answer (an invoice
 * issued extends its life; one refused lets it expire), at most `ASKS_MAX` hours. Of an issued
 * invoice the gateway is asked first whether it was paid after all (its notification can be
 * lost), as money taken must end as a paid session. Paid, the answer settles it; no answer, it
 * stays open and asks again, at most `ASKS_MAX` times. `unpaid` (or no invoice): the session may
 * expire, once the other ways to pay have said the same (checkout-session.ts).
 */
export async function invoiceAtExpiry(core: SessionCore, s: SessionRecord): Promise<AtExpiry> {
  if (!s.invoice && !s.regeneration) return 'unpaid'
  if (!s.invoice && s.regeneration) {
    // Its answer lost, the invoice may exist, and be paid: asked about by its reference first.
    if ((await askAboutInvoice(core, s)) === 'paid') return 'paid'
    if (Date.now() < s.expiresAt + ASKS_MAX * ASK_AGAIN_MS) {
      await core.schedule('expire', Date.now() + ASK_AGAIN_MS, true)
      return 'ask_later'
    }
    log.error('invoice_regeneration_unconfirmed', { session: s.id })
    delete s.regeneration
    await core.cancel('regenerate')
  }
  const said = await askAboutInvoice(core, s)
  if (said !== 'ask_later') return said
  // No final word: asked again in an hour, at most `ASKS_MAX` times; then unpaid all the same,
  // logged for the operator (a verified notification still ends it paid while its record is kept).
  const asks = (s.invoiceAsks ?? 0) + 1
  s.invoiceAsks = asks
  if (asks < ASKS_MAX) {
    await core.save(s)
    // Sooner if the expiry is due sooner for a QR code's own time.
    await core.schedule('expire', Date.now() + ASK_AGAIN_MS, true)
    return 'ask_later'
  }
  log.error('invoice_unconfirmed', { session: s.id, asks })
  return 'unpaid'
}

/**
 * What the gateway says of the invoice, asked by its own reference (at the session's expiry, and
 * when the shopper comes back from the invoice's page). Paid, its answer settles the
 * session as the invoice's notification would (the same checks of order, amount and currency:
 * notifications.ts), so an answer without its order or currency is not taken as paid. Anything
 * but a payment found or none found (no answer, a refusal, a payment still at the bank) is asked
 * again.
 */
export async function askAboutInvoice(
  core: SessionCore,
  s: SessionRecord,
  // Being issued, its answer lost: by the reference it is issued under.
  ref = s.invoice?.merchantInvoiceId ?? (s.regeneration ? s.merchantInvoiceId : undefined),
): Promise<AtExpiry> {
  if (!ref) return 'unpaid'
  const outcome = await gatewayClient(core.env).inquiry(ref, 'MID')
  log.info('invoice_inquiry', { session: s.id, outcome: outcome.kind })
  if (outcome.kind === 'not_found' || outcome.kind === 'declined') return 'unpaid'
  if (outcome.kind !== 'succeeded') return 'ask_later'
  const r = outcome.response
  // Paid on an invoice whose regeneration's answer never came (the gateway made it and sent the
  // shopper its page): known now by the payment, for the session's own sum only.
  if (
    !s.invoice &&
    r.paymentId &&
    r.merchantTransactionId === ref &&
    r.amount === s.amount &&
    r.currency === s.currency
  ) {
    s.invoice = { systemInvoiceId: '', merchantInvoiceId: ref, amount: s.amount, currency: s.currency }
    delete s.regeneration
    await core.cancel('regenerate')
  }
  return settleFromInquiry(core, r, outcome)
}

/** An invoice issued or being issued whose session has not ended: the gateway is still to be asked about it. */
export const invoiceUnasked = (s: SessionRecord): boolean =>
  (s.invoice !== undefined || s.regeneration !== undefined) && (s.status === 'open' || s.status === 'declined')
