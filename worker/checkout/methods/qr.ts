/**
 * @module
 * The QR wallet: the shopper's wallet is verified (the gateway's STATIC request, which gives a
 * code and its payment id), then the payment completed (the DYNAMIC one). A code is withdrawn
 * when the shopper pays another way (its row in table.ts).
 */
import { gatewayClient } from '../../config.ts'
import { callbackUrl, numberVar } from '../../env-vars.ts'
import { log } from '../../log.ts'
import { done, fail, type Reply } from '../../reply.ts'
import {
  codeAskAt,
  codesAfterEnd,
  codesUnasked,
  nextCodeAsk,
  offers,
  type SessionRecord,
} from '../../sessions/types.ts'
import { applyOutcome, begin, finish, gate, otherMethod, refusal, replay } from '../attempt.ts'
import { MINUTE_MS, type AtExpiry, type SessionCore } from '../core.ts'
import { settleFromInquiry } from '../notifications.ts'

/**
 * Verifications whose answer never came that are not counted against `maxAttempts`: a network
 * blip does not lock the shopper out of a session (with one try, at once), and a gateway that
 * does not answer still costs a session at most `maxAttempts` + this many calls (R28).
 */
const QR_UNANSWERED_GIVEN_BACK = 3

export async function verify(
  core: SessionCore,
  shopper: { walletId: string; givenName: string; surname: string; email: string },
): Promise<Reply> {
  const s = await core.load()
  if (!s) return fail('not_found', 'No such checkout.')
  if (!offers(s, 'qr')) return fail('forbidden', `This checkout does not offer qr payments.`)
  const refused = await refusal(core, s, 'qr')
  if (refused) return refused
  // Each code costs a gateway call: capped like attempts (R28).
  if ((s.qrVerifications ?? 0) >= s.maxAttempts)
    return fail('too_many_attempts', 'Too many QR codes requested for this checkout.')
  s.qrVerifications = (s.qrVerifications ?? 0) + 1
  s.payerEmail = shopper.email
  await core.save(s)
  // Step 1 is the spec's STATIC request (paymentType DB); step 2 the DYNAMIC one (PA).
  const outcome = await gatewayClient(core.env).qrVerify({
    merchantTransactionId: s.merchantTransactionId,
    paymentType: 'DB',
    qrGivenName: shopper.givenName,
    surname: shopper.surname,
    email: shopper.email,
    walletId: shopper.walletId,
    walletAmount: s.amount,
    walletCurrency: s.currency,
  })
  const ttl = numberVar(core.env.QR_TTL_MS, 10 * MINUTE_MS)
  if (outcome.kind === 'succeeded' && outcome.response.paymentId && !outcome.response.merchantWalletId) {
    // A code issued without the wallet id a shopper pays it to: it cannot be shown, but it is the
    // session's (the wallet it verified may be asked to pay it): kept as withdrawn, so that its
    // notification settles the session and its expiry asks about it once it cannot be paid.
    const issued = outcome.response.paymentId
    ;(s.codeAsks ??= {})[issued] = { at: Date.now() + ttl + CODE_GRACE_MS }
    ;(s.withdrawnQr ??= []).push(issued)
    log.error('qr_verify_incomplete', { session: s.id, paymentId: issued })
    await core.save(s)
    await askWhenSpent(core, s, issued)
    return fail('gateway_rejected', 'The wallet payment could not be started.')
  }
  if (outcome.kind !== 'succeeded' || !outcome.response.paymentId || !outcome.response.merchantWalletId) {
    if (outcome.kind === 'declined') return done({ status: 'declined', message: 'This wallet cannot pay this order.' })
    if (outcome.kind === 'unknown' || (outcome.kind === 'unsent' && outcome.reason === 'unreachable')) {
      if ((s.qrUnanswered ?? 0) < QR_UNANSWERED_GIVEN_BACK) {
        s.qrUnanswered = (s.qrUnanswered ?? 0) + 1
        s.qrVerifications = (s.qrVerifications ?? 1) - 1
        await core.save(s)
      }
      return fail('gateway_unavailable', 'The payment service did not answer. Please try again.')
    }
    // The shopper gets our words; the gateway's code is kept for the merchant's view.
    const code = 'code' in outcome ? outcome.code : undefined
    if (code) {
      s.lastError = {
        code: 'gateway_rejected',
        message: `The payment service refused the wallet verification (${code}: ${('description' in outcome && outcome.description) || 'no description'}).`,
        gatewayCode: code,
      }
      await core.save(s)
    }
    return fail('gateway_rejected', 'The wallet payment could not be started.')
  }
  // Every code the gateway issued stays this session's: a wallet may still pay one no longer
  // shown, and its notification must settle the session, not be refused.
  const issued = outcome.response.paymentId
  // Asked about, if it comes to that, only once a wallet can no longer pay it (`codesAtExpiry`).
  ;(s.codeAsks ??= {})[issued] = { at: Date.now() + ttl + CODE_GRACE_MS }
  // Another method may have begun while the gateway answered: that code is withdrawn at once.
  const busy = otherMethod(s, 'qr')
  // A QR payment begun meanwhile (another tab), or the session settled: the code being paid stays
  // the one shown, and this one is only kept as the session's.
  const late = busy ? undefined : await gate(core, s)
  if (late) {
    ;(s.withdrawnQr ??= []).push(issued)
    await core.save(s)
    await askWhenSpent(core, s, issued)
    return late
  }
  if (s.qr) (s.withdrawnQr ??= []).push(s.qr.paymentId)
  s.qr = {
    paymentId: issued,
    merchantWalletId: outcome.response.merchantWalletId,
    expiresAt: Math.min(Date.now() + ttl, s.expiresAt),
    customer: { givenName: shopper.givenName, surname: shopper.surname, email: shopper.email },
  }
  if (busy) s.qr.withdrawn = true
  await core.save(s)
  if (busy) {
    await askWhenSpent(core, s, issued)
    return busy
  }
  return done({
    status: 'verified',
    merchantWalletId: s.qr.merchantWalletId,
    expiresAt: new Date(s.qr.expiresAt).toISOString(),
  })
}

/**
 * A code the gateway issued after its session ended (paid, failed or expired while the request was
 * answered) is never shown, but the wallet it verified may still pay it: the session's expiry asks
 * about it once it cannot be paid any more (`codesAtExpiry`), unless the expiry is due sooner for
 * another.
 */
async function askWhenSpent(core: SessionCore, s: SessionRecord, code: string): Promise<void> {
  if (codesAfterEnd(s)) await core.schedule('expire', codeAskAt(s, code), true)
}

export async function complete(core: SessionCore, idempotencyKey: string): Promise<Reply> {
  const s = await core.load()
  if (!s) return fail('not_found', 'No such checkout.')
  const fingerprint = `qr-complete:${s.qr?.paymentId ?? ''}`
  const replayed = await replay(core, idempotencyKey, fingerprint)
  if (replayed) return replayed
  if (!offers(s, 'qr')) return fail('forbidden', `This checkout does not offer qr payments.`)
  const refused = await refusal(core, s, 'qr')
  if (refused) return refused
  if (!s.qr)
    return fail('invalid_request', 'Verify the wallet first.', [
      { field: 'qr', code: 'required', expected: 'a wallet verified first (POST /v1/checkout/{id}/qr/verify)' },
    ])
  if (s.qr.withdrawn)
    return fail('qr_withdrawn', 'This QR code was withdrawn when a card payment started. Request a new one.')
  if (Date.now() >= s.qr.expiresAt) return fail('session_expired', 'The QR code has expired. Start again.')
  // A code whose payment the gateway declined or refused is spent: sent again it is refused again
  // (each time a gateway call and two events), so a new code is asked for.
  const qrPaymentId = s.qr.paymentId
  if (s.attempts.some((a) => a.paymentId === qrPaymentId && (a.status === 'declined' || a.status === 'refused')))
    return fail('qr_withdrawn', 'This QR code can no longer be paid. Request a new one.')
  // The gateway gave this payment id at verification: the attempt carries it from the start. It is
  // read once: a verification answered meanwhile (another tab) must not rename this payment.
  const code = s.qr
  const attempt = await begin(core, s, idempotencyKey, fingerprint, 'qr', code.paymentId)
  const outcome = await gatewayClient(core.env).qrComplete({
    qrPaymentId: code.paymentId,
    amount: s.amount,
    currency: s.currency,
    paymentType: 'PA',
    merchantTransactionId: s.merchantTransactionId,
    notificationUrl: callbackUrl(core.env, 'notifications', s.id),
    ...(code.customer
      ? { qrGivenName: code.customer.givenName, surname: code.customer.surname, email: code.customer.email }
      : {}),
  })
  // begin() named the code's payment the session's; a payment that settled the session while the
  // gateway answered keeps that place (applyOutcome tells of this one if it took money too).
  const reply = await applyOutcome(core, s, outcome, attempt)
  return finish(core, s, attempt, idempotencyKey, fingerprint, reply)
}

/**
 * How long after a code's lifetime (`QR_TTL_MS` from its issue) the session waits to ask about it:
 * a wallet's payment begun in its last moment, and a gateway clock a little behind ours, have
 * finished by then.
 */
const CODE_GRACE_MS = MINUTE_MS
/**
 * How long a session whose QR code the gateway could not say about waits to ask again, and how
 * often it asks about each code.
 */
const CODE_ASK_AGAIN_MS = 5 * MINUTE_MS
const CODE_ASKS_MAX = 12

/**
 * The QR codes' part of the expiry of a session that showed codes no completion carried
 * (`codesUnasked`), or that ended paid, failed or expired with such codes (`codesAfterEnd`). Each
 * is asked about, by its payment id, as an issued invoice is (methods/invoice.ts), since money
 * taken must end as a paid session, told once; but not before a wallet can no longer pay it
 * (`codeAsks`): a code shown in a session's last minutes, or issued after it ended, is asked
 * about at its own time, and until then an open session waits for it as for any payment that may
 * still take money (`ask_later`). One paid settles the session as its notification would (on a
 * paid session, money taken again: charged-again.ts), and the others are still asked about (a
 * wallet may have paid two). A code the gateway says nothing final of (no answer, still pending)
 * is asked about again, at most `CODE_ASKS_MAX` times, after which it is taken as unpaid all the
 * same, logged for the operator (a verified notification still settles it while the session's
 * record is kept). `unpaid` (or no code to ask about): an open session may expire.
 */
export async function codesAtExpiry(core: SessionCore, s: SessionRecord): Promise<AtExpiry> {
  const now = Date.now()
  const asks = (s.codeAsks ??= {})
  const due = codesUnasked(s).filter((code) => codeAskAt(s, code) <= now)
  // Asked as often as allowed with no final word (or the asks failed before one): given up.
  const asked = due.filter((code) => (asks[code]?.asked ?? 0) >= CODE_ASKS_MAX)
  for (const code of asked) log.error('qr_code_unconfirmed', { session: s.id, asks: asks[code]?.asked })
  const codes = due.filter((code) => !asked.includes(code))
  // Each code's next ask is set before this one is made: a move of the session meanwhile (a code
  // found paid) sets the expiry's time from it, and an object stopped mid-way asks again then.
  for (const code of codes) asks[code] = { at: now + CODE_ASK_AGAIN_MS, asked: (asks[code]?.asked ?? 0) + 1 }
  if (codes.length > 0) {
    await core.save(s)
    await core.schedule('expire', now + CODE_ASK_AGAIN_MS, true)
  }
  const client = gatewayClient(core.env)
  let paid = false
  for (const code of codes) {
    const outcome = await client.inquiry(code, 'PID')
    log.info('qr_code_inquiry', { session: s.id, outcome: outcome.kind })
    const said =
      outcome.kind === 'succeeded'
        ? await settleFromInquiry(core, outcome.response, outcome)
        : outcome.kind === 'not_found' || outcome.kind === 'declined'
          ? 'unpaid'
          : 'ask_later'
    if (said === 'paid') paid = true
    // No final word: asked again at its next time (given up there, before an ask, after the last).
    if (said !== 'ask_later') asked.push(code)
  }
  // A code is asked about again only while the gateway has not said: a session that ended stays
  // as it is, and is forgotten in time, once every code is asked about.
  if (asked.length > 0) {
    s.codesAsked = [...(s.codesAsked ?? []), ...asked]
    await core.save(s)
  }
  const next = nextCodeAsk(s)
  if (Number.isFinite(next)) await core.schedule('expire', next, true)
  if (paid) return 'paid'
  // An open session waits while a code it showed may still be paid, or is to be asked again.
  return Number.isFinite(next) ? 'ask_later' : 'unpaid'
}
