/**
 * An answer about an earlier attempt that arrives after the session moved on. A notification can
 * settle an attempt while the Worker's own call about it (its charge, or a status inquiry) is
 * still on its way, and the shopper may then start a new attempt. The late answer belongs to the
 * attempt that made the call: it never renames or settles the newer one, whose own payment must
 * still pay the session. Found by an attacker's review (helper 48).
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { checksum } from '../../shared/gateway/checksum.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { describe, expect, it, vi } from 'vitest'
import {
  browser,
  createSession,
  deliverNotification,
  notificationSentFor,
  pay,
  sessionState,
  webhooksAbout,
  type Session,
} from './api.ts'
import { gatewayCallsWhile, settles, timePasses } from './clock.ts'
import { client, injectFault, uniqueId } from './helpers.ts'
import { PENDING, sandboxInvoice, THREE_DS } from './outcome-support.ts'

type Attempt = { method?: string; status: string; paymentId?: string }

async function until(done: () => boolean | Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Holds the Worker's requests to the gateway that `matches` picks until `release` is called; with
 * `lose`, the requests then reach the gateway (`sent`) or not, and the Worker gets no answer, as
 * a reset connection loses it.
 */
function holdGatewayCalls(matches: (request: Request, body: string) => boolean) {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  let lost: { sent: boolean } | undefined
  const seen: string[] = []
  const real = globalThis.fetch
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (request.method === 'POST' && matches(request, await request.clone().text())) {
      seen.push(request.url)
      await held
      if (lost) {
        if (lost.sent) await (await real(request)).text()
        throw new TypeError('the connection was reset')
      }
    }
    return real(request)
  })
  const lose = (sent: boolean) => {
    lost = { sent }
    release()
  }
  return { seen, release, lose, restore: () => spy.mockRestore() }
}

/** A signed notification that `paymentId`, of `s`'s order and amount, is `status` (N: declined, P: pending). */
async function noticeOf(s: Session, paymentId: string, status: 'N' | 'P'): Promise<string> {
  const sum = await checksum('notification', {
    paymentId,
    merchantTransactionId: s.mtid,
    amount: '100.00',
    transactionStatus: status,
    secureKey: SANDBOX.secureKey,
  })
  if (!sum.ok) throw new Error('no checksum')
  return JSON.stringify({
    paymentId,
    merchantTransactionId: s.mtid,
    amount: '100.00',
    currency: 'EUR',
    transactionStatus: status,
    checksum: sum.value,
    result: status === 'N' ? { code: '10001', description: 'Declined' } : { code: '00002', description: 'Pending' },
  })
}
const declineNotice = (s: Session, paymentId: string) => noticeOf(s, paymentId, 'N')

/**
 * A charge given up before it reached the gateway: held on its way there while its watchdog makes
 * it unknown and an inquiry by order (the gateway has no such payment yet) opens the session
 * again; then it reaches the gateway after all and is answered late, or (`lose`) reaches it, or
 * not (`sent: false`), with its answer lost. The pay's answer.
 */
async function givenUp(s: Session, number: string, lose?: { sent: boolean }): ReturnType<typeof pay> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
  const hold = holdGatewayCalls((r) => r.url.endsWith('/transactionServices/REST/v1/payments'))
  try {
    const answer = pay(s, number)
    await until(() => hold.seen.length > 0)
    await timePasses(stub)
    await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    if (lose) hold.lose(lose.sent)
    else hold.release()
    return await answer
  } finally {
    hold.release()
    hold.restore()
  }
}

/** `givenUp`, then its attempt as the session has it. */
async function givenUpThenCharged(s: Session, number: string, lose?: { sent: boolean }): Promise<Attempt | undefined> {
  await givenUp(s, number, lose)
  return ((await sessionState(s.id)).attempts as Attempt[])[0]
}

/** A pay whose charge reaches the gateway (`sent`) or not, and whose answer is lost on the way. */
async function answerLost(s: Session, number: string, sent: boolean, key?: string): ReturnType<typeof pay> {
  const hold = holdGatewayCalls((r) => r.url.endsWith('/transactionServices/REST/v1/payments'))
  try {
    const answer = pay(s, number, key)
    await until(() => hold.seen.length > 0)
    hold.lose(sent)
    return await answer
  } finally {
    hold.release()
    hold.restore()
  }
}

/**
 * A session offering a card and an invoice for another amount than the session's: a card charge
 * given up as never reaching the gateway (which it `reached` or not, its answer lost), then the
 * invoice asked for and refused (409 invoice_mismatch).
 */
async function invoiceRefusedWhileChargeUnsettled(reached: boolean): Promise<{ s: Session; stub: DurableObjectStub }> {
  const s = await createSession({
    methods: ['card', 'invoice'],
    amount: '120.00',
    invoiceId: await sandboxInvoice('1.00'),
    merchantInvoiceId: uniqueId('inv'),
    invoiceExpirationPeriod: '24',
  })
  expect(await givenUpThenCharged(s, '4111111111111111', { sent: reached })).toMatchObject({ status: 'not_found' })
  expect((await browser(s, 'POST', '/invoice/regenerate', {})).body).toMatchObject({
    error: { code: 'invoice_mismatch' },
  })
  return { s, stub: env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub }
}

describe('an answer about an earlier attempt, arriving after a new one began', () => {
  it('a status inquiry about a payment declined meanwhile settles only it: the new attempt keeps its payment, whose success pays the session', async () => {
    const s = await createSession()
    const first = await pay(s, THREE_DS)
    expect(first.body.status).toBe('action_required')
    const earlier = first.body.paymentId ?? ''
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    // The session's safety-net inquiry about it leaves, and its answer is slow.
    const hold = holdGatewayCalls(
      (r, body) => r.url.endsWith(`/payments/${earlier}`) && body.includes('paymentType=IN'),
    )
    try {
      const inquiry = timePasses(stub)
      await until(() => hold.seen.length > 0)
      // Meanwhile the shopper fails the bank's step: the gateway declines it and says so.
      const bank = await fetch(`${env.GATEWAY_BASE_URL}/acs/${earlier}/complete`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'outcome=failed',
        redirect: 'manual',
      })
      expect(bank.status).toBeLessThan(400)
      const declined = await notificationSentFor(s.id, 8_000, earlier)
      expect((await deliverNotification(s.id, declined)).body).toMatchObject({ applied: true, status: 'declined' })
      // The shopper tries another card, which the gateway settles later.
      const second = await pay(s, PENDING)
      expect(second.body.status).toBe('pending')
      const later = second.body.paymentId ?? ''
      expect(later).not.toBe(earlier)
      // Now the inquiry's answer (about the declined payment) arrives.
      hold.release()
      await inquiry
      const state = await sessionState(s.id)
      expect(state).toMatchObject({ status: 'pending', paymentId: later })
      expect((state.attempts as Attempt[]).map((a) => [a.status, a.paymentId])).toEqual([
        ['declined', earlier],
        ['pending', later],
      ])
      // The new payment's success is this session's and pays it.
      const paid = await notificationSentFor(s.id, 8_000, later)
      expect((await deliverNotification(s.id, paid)).body).toMatchObject({ applied: true, status: 'succeeded' })
      expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: later })
    } finally {
      hold.release()
      hold.restore()
    }
  })

  it('a charge given up as never reaching the gateway, declined there after all: its late decline, come while a new attempt waits for its answer, declines neither the new attempt nor the session, whose payment then pays it', async () => {
    const s = await createSession()
    // The first charge reaches the gateway after the inquiry that did not find it; declined there,
    // its answer lost. Its notification names a payment no answer gave this session.
    expect(await givenUpThenCharged(s, '4000000000000002', { sent: true })).toMatchObject({
      status: 'not_found',
      recheck: true,
    })
    // The sandbox tells a decline by its answer alone; this gateway also notifies it, signed.
    const asked = await client().inquiry(s.mtid, 'MID')
    const late = await declineNotice(s, asked.kind === 'declined' ? (asked.response.paymentId ?? '') : '')
    // The shopper pays again; this charge's answer is on its way when the late decline comes.
    const hold = holdGatewayCalls((r) => r.url.endsWith('/transactionServices/REST/v1/payments'))
    try {
      const second = pay(s, '4111111111111111')
      await until(() => hold.seen.length > 0)
      await deliverNotification(s.id, late)
      const meanwhile = await sessionState(s.id)
      expect(meanwhile).toMatchObject({ status: 'processing' })
      expect((meanwhile.attempts as Attempt[])[1]).toMatchObject({ status: 'processing' })
      expect((meanwhile.attempts as Attempt[])[1]?.paymentId).toBeUndefined()
      // Not a payment the shopper may start again over: the pay in flight holds the session.
      expect((await pay(s, '4111111111111111')).status).toBe(409)
      hold.release()
      expect((await second).body.status).toBe('succeeded')
    } finally {
      hold.release()
      hold.restore()
    }
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded' })
    expect((state.attempts as Attempt[])[1]).toMatchObject({ status: 'succeeded', paymentId: state.paymentId })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.attempt.declined')).toHaveLength(0)
  })

  it('the same late decline, and the new attempt’s charge lost before the gateway: asked by order, the gateway names the earlier attempt’s declined payment, which declines neither the new attempt nor the session', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    expect(await givenUpThenCharged(s, '4000000000000002', { sent: true })).toMatchObject({
      status: 'not_found',
      recheck: true,
    })
    // The first charge's payment, declined at the gateway: the latest of the order there.
    const asked = await client().inquiry(s.mtid, 'MID')
    const earlier = asked.kind === 'declined' ? (asked.response.paymentId ?? '') : ''
    expect(earlier).toMatch(/^\d+$/)
    const hold = holdGatewayCalls((r) => r.url.endsWith('/transactionServices/REST/v1/payments'))
    try {
      const second = pay(s, '4111111111111111')
      await until(() => hold.seen.length > 0)
      await deliverNotification(s.id, await declineNotice(s, earlier))
      // The new charge never reaches the gateway, and no answer comes back.
      hold.lose(false)
      await second
    } finally {
      hold.release()
      hold.restore()
    }
    expect(await sessionState(s.id)).toMatchObject({ status: 'unknown' })
    await timePasses(stub)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'open' })
    expect((state.attempts as Attempt[]).map((a) => [a.status, a.paymentId])).toEqual([
      ['not_found', undefined],
      ['not_found', undefined],
    ])
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.attempt.declined')).toHaveLength(0)
  })

  it('a charge given up as never reaching the gateway, and the new attempt’s answer lost: its own pending payment, told before its inquiry, is still its own, asked about by its id, and its success pays the session', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    expect(await givenUpThenCharged(s, '4111111111111111', { sent: false })).toMatchObject({
      status: 'not_found',
      recheck: true,
    })
    // It reaches the gateway (pending there); its answer is lost.
    await answerLost(s, PENDING, true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'unknown' })
    const asked = await client().inquiry(s.mtid, 'MID')
    const own = asked.kind === 'pending' ? (asked.response.paymentId ?? '') : ''
    expect(own).toMatch(/^\d+$/)
    // The gateway tells it pending; then the session's inquiry by order names it.
    await deliverNotification(s.id, await noticeOf(s, own, 'P'))
    await timePasses(stub)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'pending', paymentId: own })
    expect((state.attempts as Attempt[]).map((a) => [a.status, a.paymentId])).toEqual([
      ['not_found', undefined],
      ['pending', own],
    ])
    const paid = await notificationSentFor(s.id, 8_000, own)
    expect((await deliverNotification(s.id, paid)).body).toMatchObject({ applied: true, status: 'succeeded' })
  })

  it('a QR completion answered late, after its decline was told and a card payment began, leaves the card payment as it is: its success pays the session', async () => {
    const s = await createSession({
      flow: 'qr',
      methods: ['qr', 'card'],
      amount: '12.00',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    expect((await browser(s, 'POST', '/qr/verify', { walletId: 'wallet-declined' })).status).toBe(200)
    // The gateway declines the wallet's payment and notifies at once; its own answer comes a
    // second later, still saying "pending".
    await injectFault({ op: 'qrComplete', fault: 'late_pending', field: 'merchantTransactionId', value: s.mtid })
    const completion = browser<{ status: string }>(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': uniqueId('q') })
    const declined = await notificationSentFor(s.id)
    const qrPayment = (JSON.parse(declined) as { paymentId: string }).paymentId
    expect((await deliverNotification(s.id, declined)).body).toMatchObject({ applied: true, status: 'declined' })
    const card = await pay(s, PENDING)
    expect(card.body.status).toBe('pending')
    const cardPayment = card.body.paymentId ?? ''
    await completion
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'pending', paymentId: cardPayment, method: 'card' })
    expect((state.attempts as Attempt[]).map((a) => [a.method, a.status, a.paymentId])).toEqual([
      ['qr', 'declined', qrPayment],
      ['card', 'pending', cardPayment],
    ])
    const paid = await notificationSentFor(s.id, 8_000, cardPayment)
    // Applied, or already known: on a busy machine the session's own inquiry about the pending
    // payment may have found it paid first.
    expect((await deliverNotification(s.id, paid)).body).toMatchObject({ status: 'succeeded' })
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: cardPayment })
  })

  it('a charge that reached the gateway after its watchdog and an inquiry by order reopened the session: the payment its answer names is the session’s, and its success pays it', async () => {
    const s = await createSession()
    // The charge arrives after all: the gateway takes it, to settle later.
    const taken = (await givenUpThenCharged(s, PENDING))?.paymentId ?? ''
    expect(taken).toMatch(/^\d+$/)
    const paid = await notificationSentFor(s.id, 8_000, taken)
    expect((await deliverNotification(s.id, paid)).body).toMatchObject({ applied: true, status: 'succeeded' })
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: taken })
  })

  it('a charge given up as never reaching the gateway, whose late answer says pending and whose notification is lost: the session asks about it, and the money it took pays the session', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    // The charge arrives after all, and the gateway answers "pending".
    const attempt = await givenUpThenCharged(s, PENDING)
    const taken = attempt?.paymentId ?? ''
    expect(attempt).toMatchObject({ status: 'pending', paymentId: expect.stringMatching(/^\d+$/) })
    // While it may take money, the session does not expire, nor send its order for another charge.
    await timePasses(stub, true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    const again = await pay(s, '4111111111111111')
    expect(again.status).toBe(409)
    expect(again.body.error?.code).toBe('payment_in_progress')
    // The gateway takes the money; its notification is lost.
    await notificationSentFor(s.id, 10_000, taken)
    await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: taken, method: 'card' })
    const paid = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(paid[0]?.body ?? '{}')).toMatchObject({ data: { paymentId: taken } })
    // One final event: the session never said it expired.
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('a bank step given up as never reaching the gateway, whose late answer names it: the session waits past its time, and ends expired, told once, when the bank fails it', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    const attempt = await givenUpThenCharged(s, THREE_DS)
    const bankStep = attempt?.paymentId ?? ''
    expect(attempt).toMatchObject({ status: 'action_required', paymentId: expect.stringMatching(/^\d+$/) })
    // Its time runs out while the shopper may still finish the bank's step: the session waits.
    await timePasses(stub, true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    // The bank fails it; its notification is lost. Asked about, it took nothing: the session ends.
    const bank = await fetch(`${env.GATEWAY_BASE_URL}/acs/${bankStep}/complete`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'outcome=failed',
      redirect: 'manual',
    })
    expect(bank.status).toBeLessThan(400)
    await timePasses(stub)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'expired' })
    expect((state.attempts as Attempt[])[0]).toMatchObject({ status: 'declined', paymentId: bankStep })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.expired')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.succeeded')).toHaveLength(0)
  })

  it('a charge given up as never reaching the gateway that reaches it after all, its answer lost, as the session’s time runs out: the session asks about it once more before it ends, and the money pays it, told once', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    const attempt = await givenUpThenCharged(s, '4111111111111111', { sent: true })
    expect(attempt).toMatchObject({ status: 'not_found' })
    // The gateway took the money; neither its answer nor (here) its notification reaches the Worker.
    await timePasses(stub, true)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded', method: 'card', paymentId: expect.stringMatching(/^\d+$/) })
    expect((state.attempts as Attempt[])[0]).toMatchObject({ status: 'succeeded', paymentId: state.paymentId })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    // One final event: the session never said it expired.
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('an invoice for another amount, asked for while a card charge given up may still have taken money: the session is not failed, and the charge, found at its time, pays it, told once', async () => {
    const { s, stub } = await invoiceRefusedWhileChargeUnsettled(true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open', lastError: { code: 'invoice_mismatch' } })
    await timePasses(stub, true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'card' })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.failed')).toHaveLength(0)
  })

  it('an invoice for another amount, asked for while a card charge given up might have taken money, which it had not: the invoice is not asked for again, and once the charge is found not taken the session fails, told once', async () => {
    const { s, stub } = await invoiceRefusedWhileChargeUnsettled(false)
    const again = await gatewayCallsWhile(() => browser(s, 'POST', '/invoice/regenerate', {}))
    expect(again).toEqual([])
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    for (let i = 0; i < 5 && (await sessionState(s.id)).status === 'open'; i++) await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'failed', lastError: { code: 'invoice_mismatch' } })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.failed')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.succeeded')).toHaveLength(0)
  })

  it('a charge given up as never reaching the gateway whose notification comes after all: it pays the session, and the merchant’s view no longer says the attempt is to be asked about again', async () => {
    const s = await createSession()
    const attempt = await givenUpThenCharged(s, '4111111111111111', { sent: true })
    expect(attempt).toMatchObject({ status: 'not_found', recheck: true })
    const note = await notificationSentFor(s.id)
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
    const [settled] = (await sessionState(s.id)).attempts as Attempt[]
    expect(settled).toMatchObject({ status: 'succeeded' })
    expect(settled).not.toHaveProperty('recheck')
  })

  it('a charge that never reached the gateway: the shopper may try again meanwhile, but not past the session’s time; asked about once more and still not found, the session ends expired, told once', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    expect(await givenUpThenCharged(s, '4111111111111111', { sent: false })).toMatchObject({ status: 'not_found' })
    // Not a payment in progress: the shopper may try another card, which the gateway declines.
    expect((await pay(s, '4000000000000002')).body.status).toBe('declined')
    // The session's time runs out before the first attempt is asked about again: no new charge.
    await runInDurableObject(stub, async (instance, state) => {
      const record =
        (instance as unknown as { session?: { expiresAt: number } }).session ??
        (await state.storage.get<{ expiresAt: number }>('session'))
      if (record) {
        record.expiresAt = Date.now() - 1
        await state.storage.put('session', record)
      }
    })
    const late = await pay(s, '4111111111111111')
    expect(late.body.error?.code).toBe('session_expired')
    expect((await sessionState(s.id)).attempts).toHaveLength(2)
    // Asked about once more, it is still not found: the session ends.
    const asked = await gatewayCallsWhile(() => settles(stub))
    expect(asked.filter((url) => url.includes('/payments/'))).not.toHaveLength(0)
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'expired' })
    expect((state.attempts as Attempt[]).map((a) => a.status)).toEqual(['not_found', 'declined'])
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.expired')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.succeeded')).toHaveLength(0)
  })

  it('a charge given up as never reaching the gateway that reached it after all, its answer lost: the pay is answered "being confirmed", never that nothing was charged', async () => {
    const s = await createSession()
    const answered = await givenUp(s, '4111111111111111', { sent: true })
    expect(answered.status).toBe(200)
    expect(answered.body.status).toBe('unknown')
  })

  it('a charge lost before the gateway, found so by its inquiry, sent again with its key: answered as being confirmed while it is still to be asked about once more (never as a declined card, nor as nothing charged), and the next key pays', async () => {
    const s = await createSession()
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    const key = uniqueId('key')
    expect((await answerLost(s, '4111111111111111', false, key)).body.status).toBe('unknown')
    await timePasses(stub)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    // The page that lost the first answer sends the pay again with its key.
    const again = await pay(s, '4111111111111111', key)
    expect(again.status).toBe(200)
    expect(again.body.status).toBe('unknown')
    expect(again.text).not.toContain('Nothing was charged')
    // The page, reading the session, finds it open and pays again with a key of its own.
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.attempt.declined')).toHaveLength(0)
  })

  it('asked by order about a charge lost before the gateway, the gateway names an earlier attempt’s declined payment: not this attempt’s, so the session opens again instead of failing', async () => {
    const s = await createSession({ maxAttempts: 2 })
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
    const first = await pay(s, '4000000000000002')
    expect(first.body.status).toBe('declined')
    const declined = first.body.paymentId ?? ''
    // The second charge's connection fails on its way: the Worker cannot tell whether it arrived.
    const real = globalThis.fetch
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      if (request.url.endsWith('/transactionServices/REST/v1/payments')) throw new TypeError('connection reset')
      return real(request)
    })
    try {
      expect((await pay(s, '4111111111111111')).body.status).toBe('unknown')
    } finally {
      spy.mockRestore()
    }
    await timePasses(stub)
    const state = await sessionState(s.id)
    expect(state.status).toBe('open')
    expect((state.attempts as Attempt[]).map((a) => [a.status, a.paymentId])).toEqual([
      ['declined', declined],
      ['not_found', undefined],
    ])
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
  })
})
