/**
 * @module
 * One checkout session per Durable Object. Every state change happens here, one at a time, and is
 * written before any gateway call (an outbound fetch lets other requests in: SECURITY.md R14), so
 * concurrent submits make exactly one charge, a succeeded session is never charged again, and a
 * charge whose answer never came is resolved by status inquiry from the alarm, never re-sent.
 *
 * Card data passes through `pay` in memory only: it is not stored, logged or returned.
 */
import { BRAND_RULES, brandFromGateway, detectBrand, last4 as lastFour, type CardBrand } from '../../shared/card.ts'
import type { RequestFieldName } from '../../shared/fields.ts'
import { checkFormat } from '../../shared/formats.ts'
import type { Notification, PaymentResponse } from '../../shared/types.ts'
import { gatewayClient } from '../config.ts'
import { timingSafeEqualText } from '../gateway/checksum.ts'
import type { Outcome, PaymentOutcome } from '../gateway/outcome.ts'
import { sha256Hex } from '../ids.ts'
import { log } from '../log.ts'
import { fail, type Reply } from './reply.ts'
import { TaskedObject } from './tasked-object.ts'
import { canMove, checkoutView, IN_FLIGHT, merchantView, type CheckoutView, type MerchantView, type PayResult, type SessionInput, type SessionRecord, type Status } from './types.ts'

export interface PayInput {
  readonly idempotencyKey: string
  /** SHA-256 over the canonical request (card number as its HMAC): what a reused key must match. */
  readonly fingerprint: string
  /** Shopper fields by logical name; card data lives only in this object, only during the call. */
  readonly shopper: Partial<Record<RequestFieldName, string>>
  readonly ip: string
}

interface IdemEntry {
  readonly fingerprint: string
  reply?: Reply
}



/** Shoppers learn that a card was declined, never why (SECURITY.md R12). */
const MESSAGES: Record<PayResult['status'], string> = {
  succeeded: 'Payment successful.',
  declined: 'Your card was declined.',
  pending: 'Your payment is being processed.',
  action_required: 'Your bank needs you to confirm this payment.',
  unknown: 'We are confirming your payment.',
}

const DAY_MS = 24 * 60 * 60_000
/** Sessions and their idempotency keys are kept this long after creation, then deleted. */
const RETENTION_MS = 7 * DAY_MS
const MAX_INQUIRIES = 12

export class CheckoutSession extends TaskedObject {
  private session?: SessionRecord

  private async load(): Promise<SessionRecord | undefined> {
    this.session ??= await this.ctx.storage.get<SessionRecord>('session')
    return this.session
  }

  private async save(s: SessionRecord): Promise<void> {
    s.updatedAt = Date.now()
    this.session = s
    await this.ctx.storage.put('session', s)
  }

  /** Moves the session if the state machine allows it; sends the merchant webhook of final states. */
  private async move(s: SessionRecord, to: Status): Promise<boolean> {
    if (!canMove(s.status, to)) {
      log.warn('transition_refused', { session: s.id, from: s.status, to })
      return false
    }
    const changed = s.status !== to
    s.status = to
    await this.save(s)
    if (changed && (to === 'succeeded' || to === 'declined' || to === 'expired')) {
      await this.enqueueWebhook(`checkout.session.${to}`, { ...merchantView(s) })
    }
    if (to === 'succeeded' || to === 'declined' || to === 'open') await this.cancel('inquiry')
    return true
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  async create(input: SessionInput & { id: string; clientSecretHash: string }): Promise<MerchantView> {
    const now = Date.now()
    const s: SessionRecord = { ...input, createdAt: now, updatedAt: now, status: 'open', attempts: [], inquiries: 0 }
    await this.save(s)
    await this.schedule('expire', s.expiresAt)
    await this.schedule('purge', now + RETENTION_MS)
    return merchantView(s)
  }

  /**
   * Everything a browser request needs in one round trip: the allowed origins (for the CORS
   * decision, which comes first), and the checkout view only when the client secret matches
   * (constant-time, against the stored hash: SECURITY.md R2). Undefined: no such session.
   */
  async access(clientSecret: string | undefined): Promise<{ origins: readonly string[]; view?: CheckoutView } | undefined> {
    const s = await this.load()
    if (!s) return undefined
    const ok = clientSecret !== undefined && (await timingSafeEqualText(await sha256Hex(clientSecret), s.clientSecretHash))
    return ok ? { origins: s.allowedOrigins, view: checkoutView(s, Date.now()) } : { origins: s.allowedOrigins }
  }

  async merchantView(): Promise<MerchantView | undefined> {
    const s = await this.load()
    return s ? merchantView(s) : undefined
  }

  protected async runTask(name: string): Promise<void> {
    const s = await this.load()
    if (name === 'purge') {
      await this.ctx.storage.deleteAll()
      this.session = undefined
      return
    }
    if (!s) return
    if (name === 'expire') {
      if (!IN_FLIGHT.includes(s.status)) await this.move(s, 'expired')
    } else if (name === 'watchdog') {
      // The Worker went away mid-call: whatever happened upstream is unknown until asked.
      if (s.status === 'processing') await this.becomeUnknown(s)
    } else if (name === 'inquiry') {
      await this.inquire(s)
    }
  }

  // ---- the checks every attempt passes ------------------------------------------------------

  /** Refuses an attempt the session cannot take; otherwise undefined. */
  private async gate(s: SessionRecord): Promise<Reply | undefined> {
    if (s.status === 'succeeded') return fail('session_completed', 'This checkout is already paid.')
    if (s.status === 'expired' || (Date.now() >= s.expiresAt && !IN_FLIGHT.includes(s.status))) {
      if (s.status !== 'expired') await this.move(s, 'expired')
      return fail('session_expired', 'This checkout has expired.')
    }
    if (s.status !== 'open' && s.status !== 'declined') return fail('payment_in_progress', 'A payment for this checkout is already in progress.')
    if (s.attempts.length >= s.maxAttempts) return fail('too_many_attempts', 'Too many attempts for this checkout.')
    return undefined
  }

  /** Replays a completed key, refuses a reused key with other parameters or still running. */
  private async idempotent(key: string, fingerprint: string): Promise<Reply | undefined> {
    const entry = await this.ctx.storage.get<IdemEntry>(`idem:${key}`)
    if (!entry) return undefined
    if (entry.fingerprint !== fingerprint) return fail('idempotency_mismatch', 'This Idempotency-Key was used with different parameters.')
    if (!entry.reply) return fail('idempotency_in_progress', 'A request with this Idempotency-Key is in progress.')
    return { ...entry.reply, replayed: true }
  }

  /** Starts an attempt: `processing` is on disk before the caller goes upstream. */
  private async begin(s: SessionRecord, key: string, fingerprint: string): Promise<void> {
    s.attempts.push({ n: s.attempts.length + 1, at: Date.now(), status: 'processing' })
    s.status = 'processing'
    await this.ctx.storage.put(`idem:${key}`, { fingerprint } satisfies IdemEntry)
    await this.save(s)
    const timeout = Number(this.env.GATEWAY_TIMEOUT_MS ?? '') || 15_000
    await this.schedule('watchdog', Date.now() + timeout + 15_000)
  }

  private async finish(key: string, fingerprint: string, reply: Reply): Promise<Reply> {
    await this.ctx.storage.put(`idem:${key}`, { fingerprint, reply } satisfies IdemEntry)
    await this.cancel('watchdog')
    return reply
  }

  // ---- card and saved-card payments ---------------------------------------------------------

  async pay(input: PayInput): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    const replay = await this.idempotent(input.idempotencyKey, input.fingerprint)
    if (replay) return replay
    const refused = await this.gate(s)
    if (refused) return refused
    if (s.flow !== 'card' && s.flow !== 'saved-card') return fail('forbidden', `This checkout is a ${s.flow} checkout.`)
    await this.begin(s, input.idempotencyKey, input.fingerprint)

    const base = this.env.PUBLIC_BASE_URL.replace(/\/$/, '')
    const common = {
      amount: s.amount,
      currency: s.currency,
      paymentType: s.paymentType,
      merchantTransactionId: s.merchantTransactionId,
      ip: input.ip,
      notificationUrl: `${base}/v1/notifications/${s.id}`,
      merchantRedirectUrl: `${base}/v1/return/${s.id}`,
      redirectMethod: 'GET',
    }
    const sh = input.shopper
    let brand: CardBrand | undefined
    let outcome: PaymentOutcome
    if (s.flow === 'card') {
      brand = detectBrand(sh.cardNumber ?? '')
      s.card = { ...(brand ? { brand } : {}), last4: lastFour(sh.cardNumber ?? '') }
      outcome = await gatewayClient(this.env).payment({
        ...common,
        ...sh,
        paymentBrand: brand ? BRAND_RULES[brand].gateway : '',
        ...(s.recurring ? { recurringType: 'INITIAL' } : {}),
        ...(s.createRegistration ? { createRegistration: 'true' } : {}),
      } as never)
    } else {
      s.card = s.savedCard ? { ...s.savedCard } : {}
      outcome = await gatewayClient(this.env).payWithToken(s.registrationId ?? '', s.recurringType ?? 'REPEATED', { ...common, cvv: sh.cvv ?? '' } as never)
    }
    const reply = await this.applyPaymentOutcome(s, outcome)
    return this.finish(input.idempotencyKey, input.fingerprint, reply)
  }

  /** Turns a gateway outcome into the session's next state and the browser's answer. */
  private async applyPaymentOutcome(s: SessionRecord, outcome: PaymentOutcome | Outcome<{ paymentId?: string | undefined }>): Promise<Reply> {
    const attempt = s.attempts[s.attempts.length - 1]
    if ('response' in outcome && outcome.response) this.absorb(s, outcome.response as Partial<PaymentResponse>)
    if ('code' in outcome) {
      s.resultCode = outcome.code
      s.resultDescription = outcome.description
    }
    let status: Status
    switch (outcome.kind) {
      case 'succeeded':
      case 'declined':
      case 'pending':
        status = outcome.kind
        break
      case 'action_required':
        status = 'action_required'
        s.redirect = outcome.redirect
        break
      case 'unknown':
        status = 'unknown'
        break
      default: {
        // Refused before processing (our request or the merchant's account): nothing was charged.
        log.error('gateway_refused', { session: s.id, kind: outcome.kind, code: 'code' in outcome ? outcome.code : undefined, fields: 'fields' in outcome ? outcome.fields : undefined })
        if (attempt) attempt.status = 'open'
        await this.move(s, 'open')
        return fail('gateway_error', 'The payment could not be processed. Please try again later.')
      }
    }
    if (attempt) {
      attempt.status = status
      if (s.resultCode) attempt.code = s.resultCode
      if (s.resultDescription) attempt.description = s.resultDescription
      if (s.paymentId) attempt.paymentId = s.paymentId
    }
    if (status === 'unknown') await this.becomeUnknown(s)
    else await this.move(s, status)
    // A pending payment is settled by notification; the inquiry is the safety net if none comes.
    if (status === 'pending' || status === 'action_required') await this.schedule('inquiry', Date.now() + this.inquiryDelay(3))
    return { status: 200, body: this.result(s, status) }
  }

  private result(s: SessionRecord, status: PayResult['status']): PayResult {
    return {
      status,
      ...(s.paymentId ? { paymentId: s.paymentId } : {}),
      ...(s.card ? { card: s.card } : {}),
      ...(status === 'action_required' && s.redirect ? { redirect: s.redirect } : {}),
      attemptsRemaining: Math.max(0, s.maxAttempts - s.attempts.length),
      message: MESSAGES[status],
    }
  }

  // ---- unknown outcomes: status inquiry with backoff ---------------------------------------

  private inquiryDelay(tries: number): number {
    const base = Number(this.env.INQUIRY_BASE_MS ?? '') || 2_000
    return Math.min(60 * 60_000, base * 2 ** Math.min(tries, 16))
  }

  private async becomeUnknown(s: SessionRecord): Promise<void> {
    await this.move(s, 'unknown')
    s.inquiries = 0
    await this.save(s)
    await this.schedule('inquiry', Date.now() + this.inquiryDelay(0))
  }

  /** Asks the gateway what became of the payment. Never re-sends the charge. */
  private async inquire(s: SessionRecord): Promise<void> {
    if (s.status !== 'unknown' && s.status !== 'pending' && s.status !== 'action_required') return
    const client = gatewayClient(this.env)
    const outcome = s.flow === 'qr' && s.qr ? await client.inquiry(s.qr.paymentId, 'PID') : s.paymentId ? await client.inquiry(s.paymentId, 'PID') : await client.inquiry(s.merchantTransactionId, 'MID')
    s.inquiries += 1
    await this.save(s)
    log.info('inquiry', { session: s.id, outcome: outcome.kind, tries: s.inquiries })
    if (outcome.kind === 'succeeded' || outcome.kind === 'declined') {
      this.absorb(s, outcome.response)
      s.resultCode = outcome.code
      s.resultDescription = outcome.description
      const attempt = s.attempts[s.attempts.length - 1]
      if (attempt) attempt.status = outcome.kind
      await this.move(s, outcome.kind)
      return
    }
    if (outcome.kind === 'not_found' && s.status === 'unknown') {
      // The gateway never saw the charge: nothing to settle, the shopper may try again.
      const attempt = s.attempts[s.attempts.length - 1]
      if (attempt) attempt.status = 'open'
      await this.move(s, 'open')
      return
    }
    if (outcome.kind === 'pending' && s.status === 'unknown') await this.move(s, 'pending')
    if (s.inquiries < MAX_INQUIRIES || Date.now() - s.createdAt < DAY_MS) await this.schedule('inquiry', Date.now() + this.inquiryDelay(s.inquiries))
  }

  /** What a gateway answer tells about the session's payment (ids, status, card brand and last 4). */
  private absorb(s: SessionRecord, r: Partial<PaymentResponse>): void {
    if (r.paymentId) s.paymentId = r.paymentId
    if (r.transactionStatus) s.transactionStatus = r.transactionStatus
    if (r.registrationId && s.createRegistration) s.createdRegistrationId = r.registrationId
    if (r.cardLast4) s.card = { brand: brandFromGateway(r.paymentBrand) ?? s.card?.brand, last4: r.cardLast4 }
  }

  /** The shopper came back from 3-D Secure: ask the gateway (a browser return is no proof). */
  async confirmReturn(): Promise<{ status: Status; returnUrl?: string } | undefined> {
    const s = await this.load()
    if (!s) return undefined
    if (s.status === 'action_required' || s.status === 'pending' || s.status === 'unknown') await this.inquire(s)
    return { status: s.status, ...(s.returnUrl ? { returnUrl: s.returnUrl } : {}) }
  }

  // ---- notifications -------------------------------------------------------------------------

  /** A notification whose checksum the route verified. Settles the session if it is about it. */
  async settleFromNotification(n: Notification): Promise<{ applied: boolean; status?: Status }> {
    const s = await this.load()
    if (!s) return { applied: false }
    const samePayment = s.paymentId ? n.paymentId === s.paymentId : true
    const qrPayment = s.qr?.paymentId === n.paymentId
    const invoicePayment = s.flow === 'invoice' && s.invoice !== undefined && n.merchantTransactionId === s.invoice.merchantInvoiceId
    const mine = invoicePayment || qrPayment || (samePayment && n.merchantTransactionId === s.merchantTransactionId)
    if (!mine || n.amount !== (invoicePayment ? s.invoice?.amount : s.amount)) return { applied: false, status: s.status }
    const to: Status | undefined = n.transactionStatus === 'Y' ? 'succeeded' : n.transactionStatus === 'N' || n.transactionStatus === 'C' ? 'declined' : n.transactionStatus === 'P' ? 'pending' : undefined
    if (!to || !canMove(s.status, to)) return { applied: false, status: s.status }
    s.paymentId = n.paymentId
    s.transactionStatus = n.transactionStatus
    if (n.resultCode) s.resultCode = n.resultCode
    if (n.resultDescription) s.resultDescription = n.resultDescription
    if (n.cardLast4 ?? n.cardLastFourDigits) s.card = { brand: brandFromGateway(n.paymentBrand) ?? s.card?.brand, last4: n.cardLast4 ?? n.cardLastFourDigits }
    const attempt = s.attempts[s.attempts.length - 1]
    if (attempt && IN_FLIGHT.concat('action_required').includes(attempt.status)) attempt.status = to
    await this.move(s, to)
    return { applied: true, status: s.status }
  }

  // ---- QR wallet -----------------------------------------------------------------------------

  async qrVerify(shopper: { walletId: string; givenName: string; surname: string; email: string }): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    if (s.flow !== 'qr') return fail('forbidden', `This checkout is a ${s.flow} checkout.`)
    const refused = await this.gate(s)
    if (refused) return refused
    // Step 1 is the spec's STATIC request (paymentType DB); step 2 the DYNAMIC one (PA).
    const outcome = await gatewayClient(this.env).qrVerify({
      merchantTransactionId: s.merchantTransactionId,
      paymentType: 'DB',
      qrGivenName: shopper.givenName,
      surname: shopper.surname,
      email: shopper.email,
      walletId: shopper.walletId,
      walletAmount: s.amount,
      walletCurrency: s.currency,
    })
    if (outcome.kind !== 'succeeded' || !outcome.response.paymentId || !outcome.response.merchantWalletId) {
      if (outcome.kind === 'declined') return { status: 200, body: { status: 'declined', message: 'This wallet cannot pay this order.' } }
      if (outcome.kind === 'unknown') return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
      return fail('gateway_error', 'The wallet payment could not be started.')
    }
    const ttl = Number(this.env.QR_TTL_MS ?? '') || 10 * 60_000
    s.qr = { paymentId: outcome.response.paymentId, merchantWalletId: outcome.response.merchantWalletId, expiresAt: Math.min(Date.now() + ttl, s.expiresAt) }
    await this.save(s)
    return { status: 200, body: { status: 'verified', merchantWalletId: s.qr.merchantWalletId, expiresAt: new Date(s.qr.expiresAt).toISOString() } }
  }

  async qrComplete(idempotencyKey: string): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    const fingerprint = `qr-complete:${s.qr?.paymentId ?? ''}`
    const replay = await this.idempotent(idempotencyKey, fingerprint)
    if (replay) return replay
    if (s.flow !== 'qr') return fail('forbidden', `This checkout is a ${s.flow} checkout.`)
    const refused = await this.gate(s)
    if (refused) return refused
    if (!s.qr) return fail('invalid_request', 'Verify the wallet first.', [{ field: 'qr', code: 'required' }])
    if (Date.now() >= s.qr.expiresAt) return fail('session_expired', 'The QR code has expired. Start again.')
    await this.begin(s, idempotencyKey, fingerprint)
    const base = this.env.PUBLIC_BASE_URL.replace(/\/$/, '')
    const outcome = await gatewayClient(this.env).qrComplete({
      qrPaymentId: s.qr.paymentId,
      amount: s.amount,
      currency: s.currency,
      paymentType: 'PA',
      merchantTransactionId: s.merchantTransactionId,
      notificationUrl: `${base}/v1/notifications/${s.id}`,
    })
    s.paymentId = s.qr.paymentId
    const reply = await this.applyPaymentOutcome(s, outcome)
    return this.finish(idempotencyKey, fingerprint, reply)
  }

  // ---- invoices ------------------------------------------------------------------------------

  /** Regenerates the session's invoice once; a second call answers the same invoice. */
  async regenerateInvoice(): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    if (s.flow !== 'invoice') return fail('forbidden', `This checkout is a ${s.flow} checkout.`)
    if (s.invoice) return { status: 200, body: { status: 'regenerated', invoice: s.invoice }, replayed: true }
    if (s.status === 'succeeded') return fail('session_completed', 'This invoice is already paid.')
    if (Date.now() >= s.expiresAt) return fail('session_expired', 'This checkout has expired.')
    const base = this.env.PUBLIC_BASE_URL.replace(/\/$/, '')
    const outcome = await gatewayClient(this.env).regenerateInvoice({
      invoiceId: s.invoiceId ?? '',
      merchantInvoiceId: s.merchantInvoiceId ?? '',
      invoiceExpirationPeriod: s.invoiceExpirationPeriod ?? '24',
      merchantRedirectUrl: s.returnUrl ?? `${base}/v1/return/${s.id}`,
      notificationUrl: `${base}/v1/notifications/${s.id}`,
    })
    if (outcome.kind === 'succeeded') {
      const r = outcome.response
      const url = r.transactionUrl
      s.invoice = {
        systemInvoiceId: r.systemInvoiceId ?? '',
        merchantInvoiceId: r.merchantInvoiceId ?? s.merchantInvoiceId ?? '',
        amount: r.amount ?? s.amount,
        currency: r.currency ?? s.currency,
        ...(r.createdDate ? { createdDate: r.createdDate } : {}),
        ...(r.createdTime ? { createdTime: r.createdTime.trim().replace(/\.$/, '') } : {}),
        ...(r.invoiceExpirationPeriod ? { invoiceExpirationPeriod: r.invoiceExpirationPeriod } : {}),
        // Only an https address (or the local sandbox) is offered to the shopper as a pay link.
        ...(url && checkFormat('url', url) === null ? { transactionUrl: url } : {}),
      }
      await this.save(s)
      await this.enqueueWebhook('invoice.regenerated', { sessionId: s.id, invoice: s.invoice })
      return { status: 200, body: { status: 'regenerated', invoice: s.invoice } }
    }
    if (outcome.kind === 'unknown') return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
    if (outcome.kind === 'not_found') return fail('not_found', 'The invoice to regenerate does not exist.')
    return fail('gateway_error', 'The invoice could not be regenerated.')
  }
}

