/**
 * @module
 * One checkout session per Durable Object. Every state change happens here, one at a time, and is
 * written before any gateway call (an outbound fetch lets other requests in: SECURITY.md R14), so
 * concurrent submits make exactly one charge, a succeeded session is never charged again, and a
 * charge whose answer never came is resolved by status inquiry from the alarm, never re-sent.
 *
 * The state machine and who may move it are in `types.ts` (and the README's "States"). Each
 * change is written together with the merchant event that tells of it (`move`), so every change
 * is told exactly once, with an id that derives from the change.
 *
 * Card data passes through `pay` in memory only: it is not stored, logged or returned.
 */
import { BRAND_RULES, brandFromGateway, detectBrand, last4 as lastFour, type CardBrand } from '../../shared/card.ts'
import type { RequestFieldName } from '../../shared/fields.ts'
import { checkFormat } from '../../shared/formats.ts'
import type { Notification, PaymentResponse } from '../../shared/types.ts'
import { gatewayClient } from '../config.ts'
import { settlementOf, type Outcome, type PaymentOutcome } from '../gateway/outcome.ts'
import { callbackUrl, numberVar } from '../env-vars.ts'
import { log } from '../log.ts'
import { originRefused, secretMatches } from './access.ts'
import { breakerStub, sourceOf } from './decline-breaker.ts'
import { payInputOf, type Admission, type PayAnswer, type PayRequest } from './pay-request.ts'
import { done, fail, type Reply } from './reply.ts'
import { paymentOfSession } from '../payments/opening.ts'
import { registrationRefusal } from '../registrations/guard.ts'
import { sessionIndexJob } from '../search/rows.ts'
import { TaskedObject } from './tasked-object.ts'
import { registrationEvent, setupOnChange, setupUnsettled, SETUP_VOID_TASK, voidStep } from './setup.ts'
import {
  canMove,
  checkoutView,
  EVENT_OF,
  isFinal,
  isInFlight,
  merchantView,
  methodsOf,
  methodUnderWay,
  offers,
  receivedPaymentIds,
  type Flow,
  type CheckoutView,
  type MerchantView,
  attemptsRemaining,
  type Attempt,
  type PayResult,
  type SessionInput,
  type SessionRecord,
  type Status,
} from './types.ts'

export interface PayInput {
  /** Which card method the shopper pays with (a session may offer both). */
  readonly method: 'card' | 'saved-card'
  readonly idempotencyKey: string
  /** SHA-256 over the canonical request (card number as its HMAC): what a reused key must match. */
  readonly fingerprint: string
  /** Shopper fields by logical name; card data lives only in this object, only during the call. */
  readonly shopper: Partial<Record<RequestFieldName, string>>
  readonly ip: string
  /** The card's keyed hash, counted for velocity once the attempt really starts (R11). */
  readonly cardHash?: string
  /** Attempts allowed per card in ten minutes, across sessions. */
  readonly velocityLimit: number
  /** The page that started the payment, on an allowed origin: the result page's link back. */
  readonly returnPage?: string
}

interface IdemEntry {
  readonly fingerprint: string
  /** The attempt the key started (its `n`): a provisional answer replays as that attempt is now. */
  readonly attempt?: number
  reply?: Reply
}

/** What a replay says of an attempt whose first answer was provisional, by how the attempt stands now. */
const REPLAYED_AS: Partial<Record<Attempt['status'], PayResult['status']>> = {
  succeeded: 'succeeded',
  declined: 'declined',
  pending: 'pending',
  action_required: 'action_required',
  unknown: 'unknown',
  processing: 'unknown',
  // The gateway never saw it, or refused it: nothing was taken.
  not_found: 'failed',
  refused: 'failed',
}

/** What a verified notification did: applied, already known, or refused as not this session's. */
export type NotificationResult =
  | { readonly kind: 'applied'; readonly status: string }
  | { readonly kind: 'duplicate'; readonly status: string }
  | { readonly kind: 'refused'; readonly reason: string }

/** Shoppers learn that a card was declined, never why (SECURITY.md R12). */
const MESSAGES: Record<PayResult['status'], string> = {
  succeeded: 'Payment successful.',
  declined: 'Your card was declined.',
  failed: 'This payment could not be completed.',
  pending: 'Your payment is being processed.',
  action_required: 'Your bank needs you to confirm this payment.',
  unknown: 'We are confirming your payment.',
}

const MINUTE_MS = 60_000
const DAY_MS = 24 * 60 * MINUTE_MS
/**
 * Sessions and their idempotency keys are kept this long after creation, then deleted: the one
 * retention policy of personal data (PERSONAL_DATA_RETENTION_DAYS, default 7; worker/retention/sweep.ts).
 */
const retentionMs = (env: { PERSONAL_DATA_RETENTION_DAYS?: string }): number => numberVar(env.PERSONAL_DATA_RETENTION_DAYS, 7) * DAY_MS
/** Inquiries back off up to this interval. */
const MAX_INQUIRY_INTERVAL_MS = 60 * MINUTE_MS
/**
 * While the shopper is on the bank's page, the gateway is asked at least this often: an
 * authentication nobody finishes is ended by the gateway (its window; the sandbox's is 15
 * minutes) and the next inquiry sees it, so an abandoned 3-D Secure payment ends within the
 * gateway's window plus this interval.
 */
const ACTION_REQUIRED_POLL_MS = 5 * MINUTE_MS
/** Shopper returns from 3-D Secure ask the gateway at most this often (R28: no amplification). */
const RETURN_INQUIRY_MIN_MS = 2_000
/** Signed notifications that are not this session's: the last ones are kept for the operator. */
const KEEP_REFUSED = 20

export class CheckoutSession extends TaskedObject {
  private session?: SessionRecord
  /** The inquiry under way: at most one per session at a time. */
  private inquiring?: Promise<void>
  private lastReturnInquiry = 0
  /** The next return-triggered inquiry, shared by every return waiting for it. */
  private returnInquiry?: Promise<void>

  private async load(): Promise<SessionRecord | undefined> {
    this.session ??= await this.ctx.storage.get<SessionRecord>('session')
    return this.session
  }

  /** Writes the session without a change of state (ids, counters, details). */
  private async save(s: SessionRecord, also: Record<string, unknown> = {}): Promise<void> {
    s.updatedAt = Date.now()
    this.session = s
    await this.ctx.storage.put({ ...also, session: s })
  }

  /**
   * Moves the session if the state machine allows it, writing the event of the change in the same
   * batch. Moving to the state it is in changes nothing and tells nothing.
   */
  private async move(s: SessionRecord, to: Status, also: Record<string, unknown> = {}): Promise<boolean> {
    const from = s.status
    if (from === to || !canMove(from, to)) {
      if (from !== to) log.warn('transition_refused', { session: s.id, from, to })
      await this.save(s, also)
      return false
    }
    s.status = to
    s.seq += 1
    s.updatedAt = Date.now()
    this.session = s
    // With the change: its search index row, and on success the payment's own record (jobs). A
    // setup's success instead starts the void of its authorisation and tells its registration.
    const setupEvents = setupOnChange(s, to)
    if (to === 'succeeded' && s.setup) await this.schedule(SETUP_VOID_TASK, Date.now())
    const jobs = [sessionIndexJob(s), ...(to === 'succeeded' ? paymentOfSession(s) : [])]
    await this.commit(s.id, s.seq, { ...also, session: s }, [{ type: EVENT_OF[to], data: { ...merchantView(s), previousStatus: from, sequence: s.seq } }, ...setupEvents], jobs)
    if (!isInFlight(to)) {
      await this.cancel('inquiry')
      await this.cancel('watchdog')
    }
    if (isFinal(to)) await this.cancel('expire')
    return true
  }

  /**
   * Where an attempt that took no money leaves the session: expired past its time, failed with no
   * attempts left, else open for another try (`declined` when the gateway declined it).
   */
  private afterNoCharge(s: SessionRecord, declined: boolean): Status {
    if (Date.now() >= s.expiresAt) return 'expired'
    if (s.method !== 'invoice' && attemptsRemaining(s) === 0) return 'failed'
    return declined ? 'declined' : 'open'
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  async create(input: SessionInput & { id: string; clientSecretHash: string }): Promise<MerchantView> {
    const now = Date.now()
    const s: SessionRecord = { ...input, createdAt: now, updatedAt: now, status: 'open', attempts: [], inquiries: 0, seq: 0 }
    this.session = s
    await this.commit(s.id, s.seq, { session: s }, [], [sessionIndexJob(s)])
    await this.schedule('expire', s.expiresAt)
    await this.schedule('purge', now + retentionMs(this.env))
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
    return (await secretMatches(clientSecret, s.clientSecretHash)) ? { origins: s.allowedOrigins, view: checkoutView(s, Date.now()) } : { origins: s.allowedOrigins }
  }

  async merchantView(): Promise<MerchantView | undefined> {
    const s = await this.load()
    return s ? merchantView(s) : undefined
  }

  protected async runTask(name: string): Promise<void> {
    const s = await this.load()
    if (name === 'purge') {
      // A payment still in flight, or an invoice still payable, keeps its record: the money it may
      // take must still find its session. Asked again a day later.
      if (s && (isInFlight(s.status) || Date.now() < s.expiresAt || setupUnsettled(s))) return this.schedule('purge', Date.now() + DAY_MS)
      await this.ctx.storage.deleteAll()
      this.session = undefined
      return
    }
    if (!s) return
    if (name === 'expire') {
      // Expiry closes only a session with no payment in flight; one in flight settles first.
      if ((s.status === 'open' || s.status === 'declined') && Date.now() >= s.expiresAt) await this.move(s, 'expired')
    } else if (name === 'watchdog') {
      // The Worker went away mid-call: whatever happened upstream is unknown until asked.
      if (s.status === 'processing') await this.becomeUnknown(s)
    } else if (name === 'inquiry') {
      await this.inquire(s)
    } else if (name === 'regenerate') {
      if (s.regeneration?.status === 'unknown') await this.regenerate(s)
    } else if (name === SETUP_VOID_TASK) {
      await this.settleSetup(s)
    }
  }

  /**
   * A setup's authorisation is voided, from the alarm, until the gateway says it is (setup.ts);
   * a registrationId the success did not carry (a notification settled it) is asked for first.
   */
  private async settleSetup(s: SessionRecord): Promise<void> {
    if (!setupUnsettled(s)) return
    if (!s.registrationTold && !s.createdRegistrationId && s.paymentId) {
      const asked = await gatewayClient(this.env).inquiry(s.paymentId, 'PID')
      if (asked.kind === 'succeeded' && this.sameOrder(s, asked.response)) this.absorb(s, asked.response)
    }
    if (!s.registrationTold && s.createdRegistrationId) {
      s.seq += 1
      await this.commit(s.id, s.seq, { session: s }, registrationEvent(s))
    }
    const step = await voidStep(this.env, s, () => this.save(s))
    await this.save(s)
    if (!step.done) await this.schedule(SETUP_VOID_TASK, step.at)
  }

  // ---- the checks every attempt passes ------------------------------------------------------

  /**
   * The money rule across methods: once one method has a payment in flight or done (or an invoice
   * issued), every other method is refused, naming the one under way.
   */
  private otherMethod(s: SessionRecord, method: Flow): Reply | undefined {
    const busy = methodUnderWay(s)
    if (!busy || busy === method) return undefined
    const message = s.status === 'succeeded' ? `This checkout was already paid (${busy}).` : `A ${busy} payment is under way for this checkout.`
    return { ok: false, error: { code: 'method_in_progress', message, method: busy } }
  }

  /** Refuses an attempt the session cannot take; otherwise undefined. */
  private async gate(s: SessionRecord): Promise<Reply | undefined> {
    if (s.status === 'succeeded') return fail('session_completed', 'This checkout is already paid.')
    if (s.status === 'failed') return fail('too_many_attempts', 'This checkout can no longer be paid.')
    if (s.status === 'expired' || (!isInFlight(s.status) && Date.now() >= s.expiresAt)) {
      await this.move(s, 'expired')
      return fail('session_expired', 'This checkout has expired.')
    }
    if (isInFlight(s.status)) return fail('payment_in_progress', 'A payment for this checkout is already in progress.')
    if (attemptsRemaining(s) === 0) return fail('too_many_attempts', 'Too many attempts for this checkout.')
    return undefined
  }

  /** Replays a completed key, refuses a reused key with other parameters or still running. */
  private async idempotent(key: string, fingerprint: string): Promise<Reply | undefined> {
    const entry = await this.ctx.storage.get<IdemEntry>(`idem:${key}`)
    if (!entry) return undefined
    if (entry.fingerprint !== fingerprint) return fail('idempotency_mismatch', 'This Idempotency-Key was used with different parameters.')
    if (!entry.reply) return fail('idempotency_in_progress', 'A request with this Idempotency-Key is in progress.')
    return { ...(await this.replayOf(entry, entry.reply)), replayed: true }
  }

  /**
   * A final first answer replays as it was. One that was provisional (the gateway had not said:
   * `unknown`, `pending`, `action_required`) replays as its attempt is now, so a retry after a lost
   * answer learns the outcome instead of "unknown" forever.
   */
  private async replayOf(entry: IdemEntry, first: Reply): Promise<Reply> {
    const said = first.ok ? (first.body as { status?: unknown }).status : undefined
    if (said !== 'unknown' && said !== 'pending' && said !== 'action_required') return first
    const s = await this.load()
    const attempt = s?.attempts.find((a) => a.n === entry.attempt)
    const now = attempt ? REPLAYED_AS[attempt.status] : undefined
    return s && now ? this.answer(s, now) : first
  }

  /** Starts an attempt: `processing` and the key are on disk before the caller goes upstream. */
  private async begin(s: SessionRecord, key: string, fingerprint: string, method: Flow, paymentId?: string, source?: string): Promise<void> {
    s.attempts.push({ n: s.attempts.length + 1, at: Date.now(), method, status: 'processing', ...(paymentId ? { paymentId } : {}), ...(source ? { source } : {}) })
    s.method = method
    // A QR code already shown is withdrawn when the shopper pays another way: it can no longer be
    // completed (its payment id stays this session's, so a notification about it is still heard).
    if (method !== 'qr' && s.qr && !s.qr.withdrawn) s.qr.withdrawn = true
    s.inquiries = 0
    delete s.lastError
    await this.move(s, 'processing', { [`idem:${key}`]: { fingerprint, attempt: s.attempts.length } satisfies IdemEntry })
    const timeout = numberVar(this.env.GATEWAY_TIMEOUT_MS, 15_000)
    await this.schedule('watchdog', Date.now() + timeout + 15_000)
  }

  private async finish(key: string, fingerprint: string, reply: Reply): Promise<Reply> {
    const started = await this.ctx.storage.get<IdemEntry>(`idem:${key}`)
    await this.ctx.storage.put(`idem:${key}`, { ...started, fingerprint, reply } satisfies IdemEntry)
    await this.cancel('watchdog')
    return reply
  }

  // ---- card and saved-card payments ---------------------------------------------------------

  /**
   * A browser's card or saved-card pay, whole, in one call: the Worker makes no other on this path.
   * Nothing is read or decided for a caller before its origin and then its client secret pass
   * (R21, R2); then the request's own checks, a replay of the key if it already ran (R16, even
   * when the breaker or Turnstile would refuse it now: its single-use token is spent by then), the
   * route's admission (R10, R12), and the attempt.
   */
  async pay(req: PayRequest & { readonly admission: Admission }): Promise<PayAnswer> {
    const s = await this.load()
    if (originRefused(req.origin, req.secFetchSite, s?.allowedOrigins ?? [], this.env)) return { access: 'origin_refused' }
    if (!s || !(await secretMatches(req.secret, s.clientSecretHash))) return { access: 'not_found' }
    const input = await payInputOf(checkoutView(s, Date.now()), s.allowedOrigins, req, this.env)
    if (!input.ok) return { access: 'granted', reply: input.error }
    const replay = await this.idempotent(input.value.idempotencyKey, input.value.fingerprint)
    if (replay) return { access: 'granted', reply: replay }
    if (!req.admission.ok) return { access: 'granted', reply: req.admission.reply, ...(req.admission.retryAfter ? { retryAfter: req.admission.retryAfter } : {}) }
    return { access: 'granted', reply: await this.charge(s, input.value) }
  }

  /** A card or saved-card attempt the request's checks and the admission let through. */
  private async charge(s: SessionRecord, input: PayInput): Promise<Reply> {
    if (!offers(s, input.method)) return fail('forbidden', `This checkout does not offer ${input.method} payments.`)
    const refused = this.otherMethod(s, input.method) ?? (await this.gate(s))
    if (refused) return refused
    // Counted only now, when the attempt really starts: replays and refusals never lock a card (R11).
    // The call to the velocity object would let other requests of this session in between the
    // gate and `begin`; blocking them keeps "one attempt at a time" (R14).
    if (input.cardHash) {
      const velocity = this.env.VELOCITY.get(this.env.VELOCITY.idFromName(input.cardHash))
      const { allowed } = await this.ctx.blockConcurrencyWhile(() => velocity.hit(input.velocityLimit, 10 * MINUTE_MS))
      if (!allowed) return fail('too_many_attempts', 'Too many attempts with this card. Please try later.')
    }
    // A saved card deleted after this session was created (or being deleted) is never charged.
    const deleted = input.method === 'saved-card' ? await this.ctx.blockConcurrencyWhile(() => registrationRefusal(this.env, s.registrationId)) : undefined
    if (deleted) return fail(deleted.code, deleted.message)
    if (input.returnPage) s.returnPage = input.returnPage
    await this.begin(s, input.idempotencyKey, input.fingerprint, input.method, undefined, await sourceOf(input.ip))

    const common = {
      amount: s.amount,
      currency: s.currency,
      paymentType: s.paymentType,
      merchantTransactionId: s.merchantTransactionId,
      ip: input.ip,
      notificationUrl: callbackUrl(this.env, 'notifications', s.id),
      merchantRedirectUrl: callbackUrl(this.env, 'return', s.id),
      // POST keeps the gateway's signed checksum out of URLs, browser history and access logs (R25).
      redirectMethod: 'POST',
    }
    const sh = input.shopper
    // What the payment's record will carry: the email the gateway is sent, wherever it came from.
    if (sh.email) s.payerEmail = sh.email
    let brand: CardBrand | undefined
    let outcome: PaymentOutcome
    if (input.method === 'card') {
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

  /** Turns the gateway's answer to an attempt into the session's next state and the browser's answer. */
  private async applyPaymentOutcome(s: SessionRecord, outcome: PaymentOutcome | Outcome<{ paymentId?: string | undefined }>): Promise<Reply> {
    const attempt = s.attempts[s.attempts.length - 1]
    if ('response' in outcome && outcome.response) this.absorb(s, outcome.response as Partial<PaymentResponse>)
    if ('code' in outcome) {
      s.resultCode = outcome.code
      s.resultDescription = outcome.description
      if (attempt) Object.assign(attempt, { code: outcome.code, description: outcome.description })
    }
    switch (outcome.kind) {
      case 'succeeded':
        if (attempt) attempt.status = 'succeeded'
        await this.move(s, 'succeeded')
        this.tally(s, false)
        return this.answer(s, 'succeeded')
      case 'declined':
        if (attempt) attempt.status = 'declined'
        await this.move(s, this.afterNoCharge(s, true))
        this.tally(s, true)
        return this.answer(s, 'declined')
      case 'pending':
      case 'action_required':
        if (attempt) attempt.status = outcome.kind
        if (outcome.kind === 'action_required') s.redirect = outcome.redirect
        await this.move(s, outcome.kind)
        // Settled by notification; the inquiry is the safety net if none comes.
        await this.schedule('inquiry', Date.now() + this.inquiryDelay(s))
        return this.answer(s, outcome.kind)
      case 'unknown':
        log.warn('payment_unknown', { session: s.id, reason: outcome.reason })
        await this.becomeUnknown(s)
        return this.answer(s, 'unknown')
      case 'unsent': {
        // Nothing left the Worker: the attempt did not happen.
        s.attempts.pop()
        const error =
          outcome.reason === 'token_refused'
            ? ({ code: 'gateway_auth_failed', message: 'The payment service refused our credentials (AuthToken). Nothing was charged.' } as const)
            : ({ code: 'gateway_unavailable', message: 'The payment service cannot be reached. Nothing was charged; please try again later.' } as const)
        s.lastError = error
        const reply = fail(error.code, error.message)
        log.error('gateway_unsent', { session: s.id, reason: outcome.reason })
        await this.move(s, this.afterNoCharge(s, false))
        return reply
      }
      default: {
        // Refused before processing (our request or the merchant's account): nothing was charged.
        if (attempt) attempt.status = 'refused'
        const code = 'code' in outcome ? outcome.code : undefined
        const description = 'code' in outcome ? outcome.description : undefined
        // The merchant's view (and its events) say what the gateway said; the browser gets our
        // closed code and a fixed sentence, never the gateway's code or words.
        const message = code ? `The payment service refused the request (${code}: ${description || 'no description'}). Nothing was charged.` : 'The payment request was not valid for the payment service. Nothing was charged.'
        s.lastError = { code: 'gateway_rejected', message, ...(code ? { gatewayCode: code } : {}) }
        log.error('gateway_refused', { session: s.id, kind: outcome.kind, code, fields: 'fields' in outcome ? outcome.fields : undefined })
        await this.move(s, this.afterNoCharge(s, false))
        return fail('gateway_rejected', 'This payment could not be completed. Nothing was charged.')
      }
    }
  }

  private answer(s: SessionRecord, status: PayResult['status']): Reply {
    return done({
      status,
      ...(s.paymentId ? { paymentId: s.paymentId } : {}),
      ...(s.card ? { card: s.card } : {}),
      ...(status === 'action_required' && s.redirect ? { redirect: s.redirect } : {}),
      attemptsRemaining: s.status === 'failed' ? 0 : attemptsRemaining(s),
      message: MESSAGES[status],
    } satisfies PayResult)
  }

  /**
   * Counts a settled card attempt for the deployment's decline breaker (R12), after the session's
   * own change is written and without holding the shopper's answer for it.
   */
  private tally(s: SessionRecord, declined: boolean): void {
    const method = s.method ?? s.flow
    if (method !== 'card' && method !== 'saved-card') return
    this.ctx.waitUntil(
      breakerStub(this.env)
        .count(declined, s.attempts[s.attempts.length - 1]?.source)
        .catch((e: unknown) => log.warn('breaker_count_failed', { error: e })),
    )
  }

  // ---- unknown outcomes: status inquiry with backoff ---------------------------------------

  private inquiryDelay(s: SessionRecord): number {
    const base = numberVar(this.env.INQUIRY_BASE_MS, 2_000)
    const backoff = Math.min(MAX_INQUIRY_INTERVAL_MS, base * 2 ** Math.min(s.inquiries, 16))
    return s.status === 'action_required' ? Math.min(ACTION_REQUIRED_POLL_MS, backoff) : backoff
  }

  private async becomeUnknown(s: SessionRecord): Promise<void> {
    const attempt = s.attempts[s.attempts.length - 1]
    if (attempt) attempt.status = 'unknown'
    s.inquiries = 0
    await this.move(s, 'unknown')
    await this.schedule('inquiry', Date.now() + this.inquiryDelay(s))
  }

  /** Asks the gateway what became of the payment in flight; one inquiry at a time. */
  private inquire(s: SessionRecord): Promise<void> {
    this.inquiring ??= this.runInquiry(s).finally(() => {
      this.inquiring = undefined
    })
    return this.inquiring
  }

  /** Never re-sends the charge: only asks, by payment id when the gateway gave one, else by order. */
  private async runInquiry(s: SessionRecord): Promise<void> {
    if (!isInFlight(s.status) || s.status === 'processing') return
    const attempt = s.attempts[s.attempts.length - 1]
    const paymentId = attempt?.paymentId ?? ((s.method ?? s.flow) === 'qr' ? s.qr?.paymentId : undefined)
    const client = gatewayClient(this.env)
    const outcome = paymentId ? await client.inquiry(paymentId, 'PID') : await client.inquiry(s.merchantTransactionId, 'MID')
    s.inquiries += 1
    log.info('inquiry', { session: s.id, outcome: outcome.kind, tries: s.inquiries })
    if (!isInFlight(s.status)) return // settled meanwhile (a notification came in during the call)
    if ((outcome.kind === 'succeeded' || outcome.kind === 'declined') && !this.sameOrder(s, outcome.response)) {
      log.error('inquiry_mismatch', { session: s.id, paymentId: outcome.response.paymentId })
    } else if (outcome.kind === 'succeeded' || outcome.kind === 'declined') {
      this.absorb(s, outcome.response)
      s.resultCode = outcome.code
      s.resultDescription = outcome.description
      if (attempt) Object.assign(attempt, { status: outcome.kind, code: outcome.code, description: outcome.description })
      await this.move(s, outcome.kind === 'succeeded' ? 'succeeded' : this.afterNoCharge(s, true))
      this.tally(s, outcome.kind === 'declined')
      return
    } else if (outcome.kind === 'not_found' && s.status === 'unknown') {
      // The gateway never saw the charge: nothing to settle, the shopper may try again.
      if (attempt) attempt.status = 'not_found'
      await this.move(s, this.afterNoCharge(s, false))
      return
    } else if (outcome.kind === 'pending' && s.status === 'unknown') {
      // Still waiting at the gateway (`P`, or `3D` without the bank page we never received).
      if (outcome.response.paymentId) this.absorb(s, outcome.response)
      if (attempt) attempt.status = 'pending'
      await this.move(s, 'pending')
    } else {
      await this.save(s)
    }
    await this.schedule('inquiry', Date.now() + this.inquiryDelay(s))
  }

  /** Whether a gateway answer is about this session's order, amount and currency. */
  private sameOrder(s: SessionRecord, r: Partial<PaymentResponse>): boolean {
    return (r.merchantTransactionId === undefined || r.merchantTransactionId === s.merchantTransactionId) && (r.amount === undefined || r.amount === s.amount) && (r.currency === undefined || r.currency === s.currency)
  }

  /** What a gateway answer tells about the session's payment (ids, status, card brand and last 4). */
  private absorb(s: SessionRecord, r: Partial<PaymentResponse>): void {
    const attempt = s.attempts[s.attempts.length - 1]
    if (r.paymentId) {
      s.paymentId = r.paymentId
      if (attempt && isInFlight(attempt.status as Status)) attempt.paymentId = r.paymentId
    }
    if (r.transactionStatus) s.transactionStatus = r.transactionStatus
    if (r.registrationId && s.createRegistration) s.createdRegistrationId = r.registrationId
    if (r.cardLast4) s.card = { brand: brandFromGateway(r.paymentBrand) ?? s.card?.brand, last4: r.cardLast4 }
  }

  /**
   * The shopper came back from 3-D Secure or a hosted page: ask the gateway (a browser return is
   * no proof). However often returns arrive, there is at most one inquiry in flight and one
   * return-triggered inquiry per interval (R28): a return inside the interval waits for the next
   * slot and shares it with every other return waiting, so a burst costs at most two inquiries.
   */
  async confirmReturn(): Promise<{ status: Status; returnUrl?: string; returnPage?: string; allowedOrigins: readonly string[] } | undefined> {
    const s = await this.load()
    if (!s) return undefined
    if (isInFlight(s.status)) {
      const wait = this.lastReturnInquiry + RETURN_INQUIRY_MIN_MS - Date.now()
      this.returnInquiry ??= (wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve())
        .then(() => {
          this.lastReturnInquiry = Date.now()
          return this.inquire(s)
        })
        .finally(() => {
          this.returnInquiry = undefined
        })
      await this.returnInquiry
    }
    return { status: checkoutView(s, Date.now()).status, ...(s.returnUrl ? { returnUrl: s.returnUrl } : {}), ...(s.returnPage ? { returnPage: s.returnPage } : {}), allowedOrigins: s.allowedOrigins }
  }

  // ---- notifications -------------------------------------------------------------------------

  /**
   * Why a verified notification is not this session's, or undefined when it is. It must name a
   * payment the gateway gave this session (or, before any answer, match the attempt in flight by
   * order, amount and currency); the checksum does not cover the currency, so it is compared too.
   */
  private foreign(s: SessionRecord, n: Notification): string | undefined {
    if (n.currency !== s.currency) return 'currency'
    const ids = receivedPaymentIds(s)
    if (this.aboutInvoice(s, n)) {
      if (!s.invoice) return 'no_invoice'
      if (n.merchantTransactionId !== s.invoice.merchantInvoiceId) return 'order'
      if (n.amount !== s.invoice.amount || n.amount !== s.amount) return 'amount'
      // Each try on the invoice's page is a payment of its own: a success of any of them is the
      // invoice paid (money taken must end as a paid session), even after a declined try's notice.
      if (settlementOf(n.transactionStatus) === 'charged') return undefined
      // The invoice's payment id comes with its first notification (older records kept it as paymentId).
      const known = s.invoicePaymentId ?? (methodsOf(s).length === 1 ? s.paymentId : undefined)
      return known === undefined || known === n.paymentId ? undefined : 'payment'
    }
    if (n.merchantTransactionId !== s.merchantTransactionId) return 'order'
    if (n.amount !== s.amount) return 'amount'
    if (ids.includes(n.paymentId)) return undefined
    const attempt = s.attempts[s.attempts.length - 1]
    if (attempt && !attempt.paymentId && (s.status === 'processing' || s.status === 'unknown')) return undefined
    return 'payment'
  }

  /**
   * Whether a notification is about the session's invoice: always for an invoice-only session; with
   * several methods, when it names the issued invoice's order and none of the other payments.
   */
  private aboutInvoice(s: SessionRecord, n: Notification): boolean {
    if (!offers(s, 'invoice')) return false
    if (methodsOf(s).length === 1) return true
    const others = s.attempts.map((a) => a.paymentId).concat(s.qr?.paymentId, s.withdrawnQr)
    return s.invoice !== undefined && n.merchantTransactionId === s.invoice.merchantInvoiceId && !others.includes(n.paymentId)
  }

  /** A notification whose checksum the route verified. Settles the session only if it is its own. */
  async settleFromNotification(n: Notification): Promise<NotificationResult> {
    const s = await this.load()
    if (!s) return { kind: 'refused', reason: 'no_session' }
    const reason = this.foreign(s, n)
    if (reason) {
      s.refusedNotifications = [...(s.refusedNotifications ?? []), { at: Date.now(), paymentId: n.paymentId, reason }].slice(-KEEP_REFUSED)
      await this.save(s)
      log.warn('notification_refused', { session: s.id, paymentId: n.paymentId, reason })
      return { kind: 'refused', reason }
    }
    const attempt = s.attempts[s.attempts.length - 1]
    // Only the attempt in flight may be declined or left pending; a success for any of this
    // session's payments wins (money taken at the gateway must end as a paid session).
    const invoice = this.aboutInvoice(s, n)
    // An attempt still without a payment id is named only by a payment id no other payment of the
    // session has: a late decline of an earlier attempt or of a QR code given up on says nothing
    // about the card payment now in flight, whose charge may still be taken.
    const earlier = s.attempts.slice(0, -1).map((a) => a.paymentId).concat(s.qr?.paymentId, s.withdrawnQr, s.invoicePaymentId)
    const current = invoice || (attempt?.paymentId ? attempt.paymentId === n.paymentId : !earlier.includes(n.paymentId))
    let to: Status | undefined
    const verdict = settlementOf(n.transactionStatus)
    if (verdict === 'charged') to = 'succeeded'
    else if (verdict === 'not_charged' && current && (isInFlight(s.status) || invoice)) to = this.afterNoCharge(s, true)
    else if (verdict === 'pending' && current && (s.status === 'processing' || s.status === 'unknown' || s.status === 'action_required')) to = 'pending'
    if (!to || !canMove(s.status, to)) return { kind: 'duplicate', status: s.status }
    s.paymentId = n.paymentId
    if (invoice) s.invoicePaymentId = n.paymentId
    s.transactionStatus = n.transactionStatus
    if (n.resultCode) s.resultCode = n.resultCode
    if (n.resultDescription) s.resultDescription = n.resultDescription
    if (n.cardLast4 ?? n.cardLastFourDigits) s.card = { brand: brandFromGateway(n.paymentBrand) ?? s.card?.brand, last4: n.cardLast4 ?? n.cardLastFourDigits }
    const settled = invoice ? undefined : (s.attempts.find((a) => a.paymentId === n.paymentId) ?? (current ? attempt : undefined))
    // A late success names the method that took the money (a withdrawn QR code, an earlier card).
    if (to === 'succeeded') s.method = invoice ? 'invoice' : (settled?.method ?? (s.qr?.paymentId === n.paymentId || s.withdrawnQr?.includes(n.paymentId) ? 'qr' : s.method))
    if (settled) Object.assign(settled, { paymentId: n.paymentId, status: to === 'succeeded' || to === 'pending' ? to : 'declined' })
    await this.move(s, to)
    if (to === 'pending') await this.schedule('inquiry', Date.now() + this.inquiryDelay(s))
    else this.tally(s, to !== 'succeeded')
    return { kind: 'applied', status: s.status }
  }

  // ---- QR wallet -----------------------------------------------------------------------------

  async qrVerify(shopper: { walletId: string; givenName: string; surname: string; email: string }): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    if (!offers(s, 'qr')) return fail('forbidden', `This checkout does not offer qr payments.`)
    const refused = this.otherMethod(s, 'qr') ?? (await this.gate(s))
    if (refused) return refused
    // Each code costs a gateway call: capped like attempts (R28).
    if ((s.qrVerifications ?? 0) >= s.maxAttempts) return fail('too_many_attempts', 'Too many QR codes requested for this checkout.')
    s.qrVerifications = (s.qrVerifications ?? 0) + 1
    s.payerEmail = shopper.email
    await this.save(s)
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
      if (outcome.kind === 'declined') return done({ status: 'declined', message: 'This wallet cannot pay this order.' })
      if (outcome.kind === 'unknown' || (outcome.kind === 'unsent' && outcome.reason === 'unreachable')) return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
      // The shopper gets our words; the gateway's code is kept for the merchant's view.
      const code = 'code' in outcome ? outcome.code : undefined
      if (code) {
        s.lastError = { code: 'gateway_rejected', message: `The payment service refused the wallet verification (${code}: ${('description' in outcome && outcome.description) || 'no description'}).`, gatewayCode: code }
        await this.save(s)
      }
      return fail('gateway_rejected', 'The wallet payment could not be started.')
    }
    // Another method may have begun while the gateway answered: that code is withdrawn at once.
    const busy = this.otherMethod(s, 'qr')
    if (s.qr?.withdrawn) (s.withdrawnQr ??= []).push(s.qr.paymentId)
    const ttl = numberVar(this.env.QR_TTL_MS, 10 * MINUTE_MS)
    s.qr = {
      paymentId: outcome.response.paymentId,
      merchantWalletId: outcome.response.merchantWalletId,
      expiresAt: Math.min(Date.now() + ttl, s.expiresAt),
      customer: { givenName: shopper.givenName, surname: shopper.surname, email: shopper.email },
    }
    if (busy) s.qr.withdrawn = true
    await this.save(s)
    if (busy) return busy
    return done({ status: 'verified', merchantWalletId: s.qr.merchantWalletId, expiresAt: new Date(s.qr.expiresAt).toISOString() })
  }

  async qrComplete(idempotencyKey: string): Promise<Reply> {
    const s = await this.load()
    if (!s) return fail('not_found', 'No such checkout.')
    const fingerprint = `qr-complete:${s.qr?.paymentId ?? ''}`
    const replay = await this.idempotent(idempotencyKey, fingerprint)
    if (replay) return replay
    if (!offers(s, 'qr')) return fail('forbidden', `This checkout does not offer qr payments.`)
    const refused = this.otherMethod(s, 'qr') ?? (await this.gate(s))
    if (refused) return refused
    if (!s.qr) return fail('invalid_request', 'Verify the wallet first.', [{ field: 'qr', code: 'required', expected: 'a wallet verified first (POST /v1/checkout/{id}/qr/verify)' }])
    if (s.qr.withdrawn) return fail('qr_withdrawn', 'This QR code was withdrawn when a card payment started. Request a new one.')
    if (Date.now() >= s.qr.expiresAt) return fail('session_expired', 'The QR code has expired. Start again.')
    // The gateway gave this payment id at verification: the attempt carries it from the start.
    await this.begin(s, idempotencyKey, fingerprint, 'qr', s.qr.paymentId)
    const outcome = await gatewayClient(this.env).qrComplete({
      qrPaymentId: s.qr.paymentId,
      amount: s.amount,
      currency: s.currency,
      paymentType: 'PA',
      merchantTransactionId: s.merchantTransactionId,
      notificationUrl: callbackUrl(this.env, 'notifications', s.id),
      ...(s.qr.customer ? { qrGivenName: s.qr.customer.givenName, surname: s.qr.customer.surname, email: s.qr.customer.email } : {}),
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
    if (!offers(s, 'invoice')) return fail('forbidden', `This checkout does not offer invoice payments.`)
    if (s.invoice) return { ...done({ status: 'regenerated', invoice: s.invoice }), replayed: true }
    const refused = this.otherMethod(s, 'invoice') ?? (await this.gate(s))
    if (refused) return refused
    // One regeneration at a time (R28); one whose answer was lost may be asked again (it
    // creates no charge: the same merchantInvoiceId answers the same invoice).
    const stale = Date.now() - (s.regeneration?.at ?? 0) > numberVar(this.env.GATEWAY_TIMEOUT_MS, 15_000) + 15_000
    if (s.regeneration?.status === 'processing' && !stale) return fail('payment_in_progress', 'The invoice is being prepared.')
    return this.regenerate(s)
  }

  private async regenerate(s: SessionRecord): Promise<Reply> {
    s.regeneration = { status: 'processing', at: Date.now() }
    await this.save(s)
    const outcome = await gatewayClient(this.env).regenerateInvoice({
      invoiceId: s.invoiceId ?? '',
      merchantInvoiceId: s.merchantInvoiceId ?? '',
      invoiceExpirationPeriod: s.invoiceExpirationPeriod ?? '24',
      merchantRedirectUrl: s.returnUrl ?? callbackUrl(this.env, 'return', s.id),
      notificationUrl: callbackUrl(this.env, 'notifications', s.id),
    })
    if (outcome.kind === 'unknown') {
      s.regeneration = { status: 'unknown', at: Date.now() }
      await this.save(s)
      await this.schedule('regenerate', Date.now() + this.inquiryDelay(s))
      return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
    }
    delete s.regeneration
    await this.cancel('regenerate')
    if (outcome.kind !== 'succeeded') {
      // The gateway's code is the merchant's to read (logged, and on the session's merchant view),
      // not the shopper's.
      const code = outcome.kind !== 'not_found' && outcome.kind !== 'unsent' && 'code' in outcome ? outcome.code : undefined
      if (code) s.lastError = { code: 'gateway_rejected', message: `The payment service refused the invoice regeneration (${code}: ${('description' in outcome && outcome.description) || 'no description'}).`, gatewayCode: code }
      await this.save(s)
      if (outcome.kind === 'not_found') return fail('not_found', 'The invoice to regenerate does not exist.')
      if (outcome.kind === 'unsent') return fail(outcome.reason === 'token_refused' ? 'gateway_auth_failed' : 'gateway_unavailable', 'The invoice could not be prepared.')
      log.error('invoice_regenerate_refused', { session: s.id, code })
      return fail('gateway_rejected', 'The invoice could not be regenerated.')
    }
    const r = outcome.response
    const amount = r.amount ?? s.amount
    const currency = r.currency ?? s.currency
    if (amount !== s.amount || currency !== s.currency) {
      // The invoice named by the merchant is for another sum: offering it would settle the session
      // at the wrong amount. Nothing can be paid here; the merchant is told.
      s.lastError = { code: 'invoice_mismatch', message: 'The invoice amount or currency differs from the session.' }
      log.error('invoice_mismatch', { session: s.id })
      await this.move(s, 'failed')
      return fail('invoice_mismatch', 'This invoice cannot be paid here. Please contact the shop.')
    }
    const url = r.transactionUrl
    s.method = 'invoice'
    s.invoice = {
      systemInvoiceId: r.systemInvoiceId ?? '',
      merchantInvoiceId: r.merchantInvoiceId ?? s.merchantInvoiceId ?? '',
      amount,
      currency,
      ...(r.createdDate ? { createdDate: r.createdDate } : {}),
      ...(r.createdTime ? { createdTime: r.createdTime.trim().replace(/\.$/, '') } : {}),
      ...(r.invoiceExpirationPeriod ? { invoiceExpirationPeriod: r.invoiceExpirationPeriod } : {}),
      // Only an https address (or the local sandbox) is offered to the shopper as a pay link.
      ...(url && checkFormat('url', url) === null ? { transactionUrl: url } : {}),
    }
    // The session lives as long as its invoice: a shopper paying on the gateway's page late in
    // the invoice's life must find the session open.
    const hours = Number(r.invoiceExpirationPeriod ?? s.invoiceExpirationPeriod ?? '24')
    if (Number.isFinite(hours) && hours > 0) s.expiresAt = Math.max(s.expiresAt, Date.now() + hours * 60 * MINUTE_MS)
    s.seq += 1
    s.updatedAt = Date.now()
    await this.commit(s.id, s.seq, { session: s }, [{ type: 'invoice.regenerated', data: { sessionId: s.id, merchantTransactionId: s.merchantTransactionId, invoice: s.invoice, metadata: s.metadata ?? {}, sequence: s.seq } }], [sessionIndexJob(s)])
    await this.schedule('expire', s.expiresAt)
    return done({ status: 'regenerated', invoice: s.invoice })
  }
}

