/**
 * A session offering several ways to pay, through the public routes against the sandbox: how
 * `flow` and `methods` are validated, and the money rule across methods (once one method has a
 * payment in flight or done, the others are refused with 409 `method_in_progress`; a QR code
 * already shown is withdrawn when the shopper pays by card).
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { luhnCheckDigit } from '../../shared/card.ts'
import {
  browser,
  createSession,
  deliverNotification,
  merchant,
  notificationSentFor,
  pay,
  sessionState,
  webhooksAbout,
  type Session,
} from './api.ts'
import { gatewayCallsWhile, retentionEnds, timePasses } from './clock.ts'
import { chargesFor, client, injectFault, uniqueId } from './helpers.ts'
import { sandboxInvoice } from './outcome-support.ts'

const THREE_DS = '4000000000003220'
const DECLINE = '4000000000000002'
const shopper = { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' }
const stubOf = (s: Session) => env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub

const create = (body: Record<string, unknown>) =>
  merchant<{ error?: { code: string; fields: { field: string; code: string }[] } }>('POST', '/v1/sessions', {
    amount: '100.00',
    currency: 'EUR',
    merchantTransactionId: uniqueId('order'),
    ...body,
  })
const verifyQr = (s: Session) =>
  browser<{ status: string; merchantWalletId?: string; error?: { code: string; method?: string } }>(
    s,
    'POST',
    '/qr/verify',
    { walletId: 'wallet-ok', customer: shopper },
  )
const completeQr = (s: Session) =>
  browser<{ status: string; error?: { code: string; method?: string } }>(
    s,
    'POST',
    '/qr/complete',
    {},
    { 'Idempotency-Key': uniqueId('q') },
  )
/** The payment id of the QR code the session shows (the gateway gave it at verification; never the browser's). */
const shownCode = (s: Session) =>
  runInDurableObject(
    stubOf(s),
    async (_, state) => (await state.storage.get<{ qr?: { paymentId: string } }>('session'))?.qr?.paymentId ?? '',
  )

/** A wallet pays a QR code of the session at the gateway (the gateway then notifies the session). */
const walletPays = (s: Session, qrPaymentId: string) =>
  client().qrComplete({
    qrPaymentId,
    amount: '100.00',
    currency: 'EUR',
    paymentType: 'PA',
    merchantTransactionId: s.mtid,
    notificationUrl: `${env.PUBLIC_BASE_URL}/v1/notifications/${s.id}`,
  })

/**
 * The card's charge reaches the gateway, which takes it, and its answer is held on the way back
 * while the wallet pays the session's withdrawn QR code, whose notification pays the session;
 * then the card's answer arrives, or (`lose`) is lost, as a reset connection loses it.
 */
async function cardChargedWhileCodePaid(s: Session, code: string, lose = false) {
  const realFetch = globalThis.fetch
  let release = () => {}
  const gate = new Promise<void>((r) => (release = r))
  let charged = false
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (request.method !== 'POST' || !request.url.endsWith('/transactionServices/REST/v1/payments'))
      return realFetch(request)
    const answer = await realFetch(request)
    charged = true
    await gate
    if (lose) throw new TypeError('the connection was reset')
    return answer
  })
  try {
    const paying = pay(s, '4111111111111111')
    await vi.waitFor(() => expect(charged).toBe(true), { timeout: 10_000 })
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    const note = await notificationSentFor(s.id, 8_000, code)
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
    release()
    return await paying
  } finally {
    release()
    spy.mockRestore()
  }
}

/** The payment record of a QR payment taken again for `s` opens (an authorisation, for the merchant to void). */
const recordOpens = (code: string, s: Session) =>
  vi.waitFor(
    async () =>
      expect((await merchant('GET', `/v1/payments/${code}`)).body).toMatchObject({
        status: 'authorized',
        sessionId: s.id,
      }),
    { timeout: 10_000, interval: 100 },
  )

/** A session offering a card and a QR wallet: a QR code shown, then a card paid with `number` (its answer `status`). */
async function codeWithdrawnByCard(
  number: string,
  status: string,
  over: Record<string, unknown> = {},
): Promise<{ s: Session; code: string }> {
  const s = await createSession({ methods: ['card', 'qr'], ...over })
  expect((await verifyQr(s)).body.status).toBe('verified')
  const code = await shownCode(s)
  expect((await pay(s, number)).body.status).toBe(status)
  return { s, code }
}

/**
 * A wallet pays `code` (its notification never arrives), then the session's time and the code's
 * pass: the session asks the gateway about that code exactly once.
 */
async function walletPaysThenAskedOnce(s: Session, code: string): Promise<void> {
  expect((await walletPays(s, code)).kind).toBe('succeeded')
  const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), 'clock'))
  expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
}

/** A session offering a QR wallet and an invoice, with a QR code shown (the invoice not yet issued). */
async function codeShownBesideAnInvoice(): Promise<{ s: Session; code: string; invoice: string }> {
  const invoiceId = await sandboxInvoice('100.00')
  const invoice = uniqueId('new')
  const s = await createSession({
    flow: 'qr',
    methods: ['qr', 'invoice'],
    invoiceId,
    merchantInvoiceId: invoice,
    invoiceExpirationPeriod: '24',
  })
  expect((await verifyQr(s)).body.status).toBe('verified')
  return { s, code: await shownCode(s), invoice }
}

/**
 * The session's record as an object that stopped, or an earlier release, left it (its time up,
 * `changes` made, no task set), with `code` paid by a wallet: at the end of its retention it is
 * kept and asks about the code, whose money ends it paid, told once.
 */
async function askedAtRetentionEndAndPaid(s: Session, code: string, changes: Record<string, unknown>) {
  await runInDurableObject(stubOf(s), async (instance, state) => {
    const record = (instance as unknown as { session?: Record<string, unknown> }).session
    // Days later: the session's time, and its codes' (a wallet can no longer pay them), long over.
    if (record) Object.assign(record, changes, { expiresAt: Date.now() - 1 })
    for (const code of Object.values((record?.codeAsks ?? {}) as Record<string, { at: number }>))
      code.at = Date.now() - 1
    await state.storage.put('session', record)
    await state.storage.put('tasks', {})
  })
  expect(await retentionEnds(stubOf(s))).toBe(false)
  const asked = await gatewayCallsAsTimePasses(s)
  expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
  expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
  expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
}

/**
 * A QR code asked for while `meanwhile` ends the session: the gateway's answer comes after, and
 * the request is refused (`refused`); a wallet pays that code all the same, its notification lost,
 * and the session's time passes (only the tasks it set): the code is asked about once. Its id.
 */
async function lateCodePaidThenAsked(s: Session, refused: string, meanwhile: () => Promise<void>): Promise<string> {
  const { held, restore } = holdQrCalls()
  try {
    const verifying = verifyQr(s)
    await vi.waitFor(() => expect(held.verify.seen).toBe(true), { timeout: 10_000 })
    await meanwhile()
    held.verify.release()
    expect((await verifying).body.error?.code).toBe(refused)
  } finally {
    restore()
  }
  const [late = ''] = await codesOf(s)
  await walletPaysThenAskedOnce(s, late)
  return late
}

/** Every QR code the gateway issued for the session: the one shown, then those withdrawn. */
const codesOf = (s: Session) =>
  runInDurableObject(stubOf(s), async (_, state) => {
    const record = await state.storage.get<{ qr?: { paymentId: string }; withdrawnQr?: string[] }>('session')
    return [record?.qr?.paymentId, ...(record?.withdrawnQr ?? [])].filter((id): id is string => id !== undefined)
  })

/** When the session's expiry task is due, and when it may ask about `code` (a minute after a wallet can no longer pay it). */
const expiryAndCodeAsk = (s: Session, code: string) =>
  runInDurableObject(stubOf(s), async (_, state) => ({
    expire: (await state.storage.get<Record<string, number>>('tasks'))?.expire,
    code: (await state.storage.get<{ codeAsks?: Record<string, { at: number }> }>('session'))?.codeAsks?.[code]?.at,
  }))

/** The gateway addresses the Worker calls while time passes for the session (its due tasks run). */
const gatewayCallsAsTimePasses = (s: Session) => gatewayCallsWhile(() => timePasses(stubOf(s)))

/** Holds the Worker's first QR verification, and its first completion's answer, until released. */
function holdQrCalls() {
  const realFetch = globalThis.fetch
  const held: Record<'verify' | 'complete', { seen: boolean; release: () => void; gate: Promise<void> }> = {
    verify: gateOf(),
    complete: gateOf(),
  }
  function gateOf() {
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    return { seen: false, release, gate }
  }
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input)
    if (!url.endsWith('/QRPayments')) return realFetch.call(globalThis, input, init)
    const step = String(init?.body ?? '').includes('paymentId=') ? held.complete : held.verify
    // Only the first of each is held (a wallet's own payment, through the same fetch, goes on).
    if (step.seen) return realFetch.call(globalThis, input, init)
    step.seen = true
    if (step === held.verify) await step.gate
    const res = await realFetch.call(globalThis, input, init)
    if (step === held.complete) await step.gate
    return res
  })
  return { held, restore: () => spy.mockRestore() }
}

const view = async (s: Session) =>
  (
    await browser<{
      methods: string[]
      method: string | null
      flow: string
      qr: { withdrawn: boolean } | null
      status: string
    }>(s, 'GET', '')
  ).body

describe('creating a session with several methods', () => {
  it('offers every listed method, the first shown first, and none under way yet', async () => {
    const s = await createSession({ flow: undefined, methods: ['card', 'qr'] })
    expect(await view(s)).toMatchObject({ flow: 'card', methods: ['card', 'qr'], method: null, status: 'open' })
    expect(await sessionState(s.id)).toMatchObject({ flow: 'card', methods: ['card', 'qr'], method: null })
  })

  it('flow alone still offers one method; flow with methods must be one of them and goes first', async () => {
    const one = await createSession({ flow: 'qr' })
    expect(await view(one)).toMatchObject({ flow: 'qr', methods: ['qr'] })
    const both = await createSession({ flow: 'qr', methods: ['card', 'qr'] })
    expect(await view(both)).toMatchObject({ flow: 'qr', methods: ['qr', 'card'] })
    const contradiction = await create({ flow: 'invoice', methods: ['card', 'qr'] })
    expect(contradiction.status).toBe(400)
    expect(contradiction.body.error).toMatchObject({
      code: 'invalid_request',
      fields: [expect.objectContaining({ field: 'flow', code: 'mismatch' })],
    })
  })

  it('refuses an empty, repeated or unknown list of methods, naming the field', async () => {
    for (const [methods, code] of [
      [[], 'required'],
      [['card', 'card'], 'invalid_value'],
      [['card', 'cash'], 'invalid_value'],
      ['card', 'format'],
    ] as const) {
      const res = await create({ methods })
      expect(res.status).toBe(400)
      expect(res.body.error?.fields).toEqual([expect.objectContaining({ field: 'methods', code })])
    }
    const neither = await create({})
    expect(neither.body.error?.fields).toEqual([expect.objectContaining({ field: 'flow', code: 'required' })])
  })

  it("needs each listed method's own fields, and refuses fields of a method not listed", async () => {
    const invoice = await create({ methods: ['card', 'invoice'] })
    expect(invoice.status).toBe(400)
    expect(invoice.body.error?.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'invoiceId', code: 'required' }),
        expect.objectContaining({ field: 'merchantInvoiceId', code: 'required' }),
      ]),
    )
    const saved = await create({ methods: ['card', 'qr'], registrationId: 'R123' })
    expect(saved.body.error?.fields).toEqual([
      expect.objectContaining({ field: 'registrationId', code: 'not_allowed' }),
    ])
    const ok = await create({
      methods: ['saved-card', 'card'],
      registrationId: 'R123',
      savedCard: { brand: 'visa', last4: '1111' },
    })
    expect(ok.status).toBe(201)
  })

  it("with another method beside it, an invoice's order reference must differ from the session's (notifications are told apart by it)", async () => {
    const order = uniqueId('same')
    const body = {
      merchantTransactionId: order,
      invoiceId: 'INV1',
      merchantInvoiceId: order,
      invoiceExpirationPeriod: '24',
    }
    const both = await create({ methods: ['card', 'invoice'], ...body })
    expect(both.status).toBe(400)
    expect(both.body.error?.fields).toEqual([
      expect.objectContaining({
        field: 'merchantInvoiceId',
        code: 'invalid_value',
        expected: expect.stringContaining('merchantTransactionId'),
      }),
    ])
    expect(JSON.stringify(both.body)).not.toContain(order)
    // An invoice alone has nothing to be told apart from.
    expect((await create({ methods: ['invoice'], ...body })).status).toBe(201)
  })

  it('a browser may not set the methods of a payment', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    const res = await browser(
      s,
      'POST',
      '/pay',
      {
        methods: ['card'],
        card: { number: '4111111111111111', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
        customer: shopper,
      },
      { 'Idempotency-Key': uniqueId('k') },
    )
    expect(res.body).toMatchObject({
      error: { code: 'param_mismatch', fields: [expect.objectContaining({ field: 'methods', code: 'mismatch' })] },
    })
  })
})

describe('the money rule across methods', () => {
  it('a wallet id that is a card number of a known brand is refused, naming the field, before the gateway; a phone number that happens to pass Luhn is a wallet id', async () => {
    const s = await createSession({ flow: 'qr' })
    const asked = await gatewayCallsWhile(async () => {
      const card = await browser<{ error?: { fields: { field: string; code: string }[] } }>(s, 'POST', '/qr/verify', {
        walletId: '4111111111111111',
        customer: shopper,
      })
      expect(card.status).toBe(400)
      expect(card.body.error?.fields).toEqual([expect.objectContaining({ field: 'walletId', code: 'not_allowed' })])
      expect(card.text).not.toMatch(/4111.?1111/)
    })
    expect(asked).toEqual([])
    const phone = `628123456789${luhnCheckDigit('628123456789')}`
    const wallet = await browser<{ status?: string }>(s, 'POST', '/qr/verify', { walletId: phone, customer: shopper })
    // Taken, and verified by the gateway (the sandbox's wallets verify any id but its own refusals).
    expect(wallet.status).toBe(200)
    expect(wallet.body.status).toBe('verified')
  })

  it('card paid -> QR verify and QR complete are refused with 409 method_in_progress naming card', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    for (const res of [await verifyQr(s), await completeQr(s)]) {
      expect(res.status).toBe(409)
      expect(res.body.error).toMatchObject({ code: 'method_in_progress', method: 'card' })
    }
    expect(await view(s)).toMatchObject({ status: 'succeeded', method: 'card' })
    expect(await chargesFor(s.mtid)).toBe(1)
  })

  it('a QR code already shown is withdrawn when the shopper pays by card: the view says so and it cannot be completed', async () => {
    const s = await createSession({ methods: ['qr', 'card'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    expect((await view(s)).qr).toMatchObject({ withdrawn: false })
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    expect((await view(s)).qr).toMatchObject({ withdrawn: true })
    const complete = await completeQr(s)
    expect(complete.status).toBe(409)
    expect(complete.body.error).toMatchObject({ code: 'method_in_progress', method: 'card' })
    expect(await chargesFor(s.mtid)).toBe(1)
    expect(await sessionState(s.id)).toMatchObject({
      status: 'succeeded',
      method: 'card',
      attempts: [{ n: 1, method: 'card', status: 'succeeded' }],
    })
  })

  it('a withdrawn QR code stays withdrawn after the card is declined; a new code pays', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    expect((await pay(s, DECLINE)).body.status).toBe('declined')
    expect(await view(s)).toMatchObject({ status: 'declined', method: null, qr: { withdrawn: true } })
    const stale = await completeQr(s)
    expect(stale.status).toBe(409)
    expect(stale.body.error?.code).toBe('qr_withdrawn')
    expect((await verifyQr(s)).body.status).toBe('verified')
    expect((await completeQr(s)).body.status).toBe('succeeded')
    expect(await view(s)).toMatchObject({ status: 'succeeded', method: 'qr' })
  })

  it('a QR code paid after a card was declined names no card: not in the answer, the session, the payment’s record nor the final event', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await pay(s, DECLINE)).body).toMatchObject({ status: 'declined', card: { brand: 'visa', last4: '0002' } })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const paid = await completeQr(s)
    expect(paid.body.status).toBe('succeeded')
    expect(paid.body).not.toHaveProperty('card')
    const read = await browser<{ result: { paymentId: string; card: unknown } | null }>(s, 'GET', '')
    expect(read.body.result).toMatchObject({ card: null })
    const session = await merchant<{ method: string; paymentId: string; card: unknown }>('GET', `/v1/sessions/${s.id}`)
    expect(session.body).toMatchObject({ method: 'qr', card: null })
    await vi.waitFor(
      async () =>
        expect((await merchant('GET', `/v1/payments/${session.body.paymentId}`)).body).toMatchObject({
          source: 'qr',
          card: null,
        }),
      { timeout: 10_000, interval: 100 },
    )
    const [event] = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(event?.body ?? '{}').data).toMatchObject({ method: 'qr', card: null })
  })

  it('a QR code a wallet paid after a card was declined, told by its notification (the page never completed it): the session names no card', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await pay(s, DECLINE)).body.status).toBe('declined')
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).status).toBe(200)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'qr', paymentId: code, card: null })
  })

  it('a QR code replaced by a newer one (another tab) stays the session’s: paid after all, its money ends the session paid', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const first = await shownCode(s)
    expect((await verifyQr(s)).body.status).toBe('verified')
    expect(await shownCode(s)).not.toBe(first)
    // The wallet pays the first code anyway; the gateway notifies the session.
    expect((await walletPays(s, first)).kind).toBe('succeeded')
    expect((await deliverNotification(s.id, await notificationSentFor(s.id))).status).toBe(200)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: first })
  })

  it('a QR code the wallet paid while the shopper’s page was closed, its notification lost: at its time the session asks about the code, and the money pays it, told once (never expired)', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // No completion of ours: the wallet pays the code at the gateway; its notification never arrives.
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    await timePasses(stubOf(s), true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'qr', paymentId: code })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('a QR code the gateway issued without the wallet id to show is not shown but stays the session’s: the wallet pays it, its notification lost, and at its time the session asks about it and ends paid, told once', async () => {
    const s = await createSession({ flow: 'qr' })
    // The gateway answers the verification without the merchant wallet id (the sandbox's fault).
    await injectFault({ op: 'qrVerify', fault: 'incomplete', field: 'merchantTransactionId', value: s.mtid })
    const verified = await verifyQr(s)
    expect(verified.status).toBe(502)
    // Not shown, but kept: the code the gateway issued (the wallet's payment below proves it is).
    const shown = await sessionState(s.id)
    expect(shown.status).toBe('open')
    expect(shown.qr ?? null).toBeNull()
    const [issued = ''] = await codesOf(s)
    expect(issued).toMatch(/^\d+$/)
    // No completion of ours: the wallet pays the code at the gateway; its notification never arrives.
    expect((await walletPays(s, issued)).kind).toBe('succeeded')
    await timePasses(stubOf(s), true)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'qr', paymentId: issued })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('at its time, a session asks about the QR codes it showed, withdrawn ones too: none paid, it ends expired, told once', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const withdrawn = await shownCode(s)
    expect((await pay(s, DECLINE)).body.status).toBe('declined')
    expect((await verifyQr(s)).body.status).toBe('verified')
    const shown = await shownCode(s)
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), true))
    expect(await sessionState(s.id)).toMatchObject({ status: 'expired' })
    for (const code of [withdrawn, shown]) expect(asked.some((url) => url.endsWith(`/payments/${code}`))).toBe(true)
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.expired')).toHaveLength(1)
  })

  it('a session that failed on its card’s declines asks, at its time, about the QR code its card withdrew: the wallet paid it, its notification lost, and the session ends paid by it, told once', async () => {
    const { s, code: withdrawn } = await codeWithdrawnByCard(DECLINE, 'declined', { maxAttempts: 1 })
    expect(await sessionState(s.id)).toMatchObject({ status: 'failed' })
    // A wallet pays the code the card withdrew; the gateway's notification never arrives.
    await walletPaysThenAskedOnce(s, withdrawn)
    // Paid by the wallet: the declined card is no card of its payment.
    expect(await sessionState(s.id)).toMatchObject({
      status: 'succeeded',
      method: 'qr',
      paymentId: withdrawn,
      card: null,
    })
    const [paid] = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(paid?.body ?? '{}').data).toMatchObject({ method: 'qr', card: null })
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.failed')).toHaveLength(1)
  })

  it('a session that failed with a QR code no wallet paid asks about it once, at its time, stays failed, and is forgotten at the end of its retention', async () => {
    const { s, code: withdrawn } = await codeWithdrawnByCard(DECLINE, 'declined', { maxAttempts: 1 })
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), 'clock'))
    expect(asked.filter((url) => url.endsWith(`/payments/${withdrawn}`))).toHaveLength(1)
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await sessionState(s.id)).toMatchObject({ status: 'failed' })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.failed')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.succeeded')).toHaveLength(0)
    expect(await retentionEnds(stubOf(s))).toBe(true)
  })

  it('a session that failed keeps its record past its retention until its QR code is asked about: the wallet paid it, and the session ends paid', async () => {
    const { s, code: withdrawn } = await codeWithdrawnByCard(DECLINE, 'declined', { maxAttempts: 1 })
    expect((await walletPays(s, withdrawn)).kind).toBe('succeeded')
    // Its retention ends before its expiry has asked (an object that stopped, a record from
    // before the expiry asked about codes of a session that ended).
    await askedAtRetentionEndAndPaid(s, withdrawn, {})
  })

  it('a QR code the gateway issued after the session’s time ran out (its request answered late) is asked about once it can no longer be paid: the wallet paid it, and the expired session ends paid', async () => {
    const s = await createSession({ flow: 'qr' })
    const late = await lateCodePaidThenAsked(s, 'session_expired', async () => {
      await timePasses(stubOf(s), true)
      expect(await sessionState(s.id)).toMatchObject({ status: 'expired' })
    })
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: late })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
  })

  it('a QR code the gateway issued after the card paid (its request answered late) is asked about at the session’s time: the wallet paid it too, and the merchant is told of the money taken again, once', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    const late = await lateCodePaidThenAsked(s, 'method_in_progress', async () => {
      expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    })
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told).toHaveLength(1)
    expect(JSON.parse(told[0]?.body ?? '{}')).toMatchObject({ data: { paymentId: late, method: 'qr' } })
  })

  it('a QR code shown in the session’s last minutes keeps it open past its time until a wallet can no longer pay it: asked about then, paid, its notification lost, the session ends paid, told once, never expired', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // The session's time runs out while its code can still be paid: nothing is asked yet.
    const early = await gatewayCallsWhile(() => timePasses(stubOf(s), true, { codesPayable: true }))
    expect(early.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(0)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    // Its expiry comes back at the code's own time.
    const times = await expiryAndCodeAsk(s, code)
    expect(times.expire).toBeDefined()
    expect(times.expire).toBe(times.code)
    // The wallet pays in the code's last minutes; the gateway's notification never arrives.
    await walletPaysThenAskedOnce(s, code)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'qr', paymentId: code })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('a session kept open past its time by a QR code a wallet can still pay is not forgotten when its retention ends: the code is asked about at its time, paid, and the session ends paid', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    await timePasses(stubOf(s), true, { codesPayable: true })
    expect(await retentionEnds(stubOf(s))).toBe(false)
    await walletPaysThenAskedOnce(s, code)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
  })

  it('a QR code shown in the session’s last minutes that no wallet paid is asked about once a wallet can no longer pay it, and the session then expires, told once', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    expect(await gatewayCallsWhile(() => timePasses(stubOf(s), true, { codesPayable: true }))).toEqual([])
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), 'clock'))
    expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
    expect(await sessionState(s.id)).toMatchObject({ status: 'expired' })
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.expired')).toHaveLength(1)
  })

  it('a session paid by card whose withdrawn QR code outlives the session’s time asks about it only once a wallet can no longer pay it: paid in its last minutes, the merchant is told of the money taken again, once', async () => {
    const { s, code } = await codeWithdrawnByCard('4111111111111111', 'succeeded')
    // Its paid session's expiry is set for the code's own time.
    const times = await expiryAndCodeAsk(s, code)
    expect(times.expire).toBeDefined()
    expect(times.expire).toBe(times.code)
    // The session's time is up before the code's: nothing is asked yet.
    expect(await gatewayCallsWhile(() => timePasses(stubOf(s), 'clock', { codesPayable: true }))).toEqual([])
    await walletPaysThenAskedOnce(s, code)
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told).toHaveLength(1)
    expect(JSON.parse(told[0]?.body ?? '{}')).toMatchObject({ data: { paymentId: code, method: 'qr' } })
  })

  it('a QR code the gateway does not answer about at the session’s time is asked again later, the session open meanwhile: the wallet had paid it, and the session ends paid, told once', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    // The gateway fails its answer about this code once (the sandbox's fault, over HTTP).
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: code })
    const failed = await gatewayCallsWhile(() => timePasses(stubOf(s), true))
    expect(failed.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), 'clock'))
    expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('a QR code the gateway never answers about is asked twelve times, then given up: the session ends expired, told once, asks nothing more and is forgotten at the end of its retention', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // The gateway fails every answer about this code (the sandbox's fault, over HTTP), more
    // times than the Worker asks.
    await injectFault({ op: 'inquiry', fault: 'http500', field: 'id', value: code, times: 20 })
    const asked = await gatewayCallsWhile(async () => {
      // Its time and its code's are up; each time the next ask is due, the gateway fails again.
      await timePasses(stubOf(s), true)
      for (let i = 0; i < 20 && (await sessionState(s.id)).status === 'open'; i++) await timePasses(stubOf(s), 'clock')
    })
    expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(12)
    expect(await sessionState(s.id)).toMatchObject({ status: 'expired' })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.expired')).toHaveLength(1)
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await retentionEnds(stubOf(s))).toBe(true)
  })

  it('a QR code asked for in another tab while this one is being paid: the payment keeps its code, the new one is refused', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const paying = await shownCode(s)
    const { held, restore } = holdQrCalls()
    try {
      // Tab B asks for a code; the gateway's answer is on its way while tab A completes its own.
      const second = verifyQr(s)
      await vi.waitFor(() => expect(held.verify.seen).toBe(true), { timeout: 10_000 })
      const completing = completeQr(s)
      await vi.waitFor(() => expect(held.complete.seen).toBe(true), { timeout: 10_000 })
      held.verify.release()
      expect((await second).body.error?.code).toBe('payment_in_progress')
      held.complete.release()
      expect((await completing).body.status).toBe('succeeded')
    } finally {
      restore()
    }
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: paying })
    // Its payment record (opened just after, by the outbox) is that code's.
    await vi.waitFor(async () => expect((await merchant('GET', `/v1/payments/${paying}`)).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    })
  })

  it('a QR code whose payment was declined is spent: completed again it is refused before the gateway (409), and a new code pays', async () => {
    const s = await createSession({ flow: 'qr' })
    const declined = await browser(s, 'POST', '/qr/verify', { walletId: 'wallet-declined', customer: shopper })
    expect(declined.body).toMatchObject({ status: 'verified' })
    expect((await completeQr(s)).body.status).toBe('declined')
    // The gateway calls about this order (other tests' objects may call it meanwhile).
    const spy = vi.spyOn(globalThis, 'fetch')
    let again: Awaited<ReturnType<typeof completeQr>>
    let gatewayCalls: unknown[]
    try {
      again = await completeQr(s)
      gatewayCalls = spy.mock.calls.filter(
        (c) =>
          String(c[0] instanceof Request ? c[0].url : c[0]).startsWith(env.GATEWAY_BASE_URL) &&
          String(c[1]?.body ?? '').includes(s.mtid),
      )
    } finally {
      spy.mockRestore()
    }
    expect(again.status).toBe(409)
    expect(again.body.error?.code).toBe('qr_withdrawn')
    expect(gatewayCalls).toEqual([])
    expect((await sessionState(s.id)).lastError ?? null).toBeNull()
    expect((await verifyQr(s)).body.status).toBe('verified')
    expect((await completeQr(s)).body.status).toBe('succeeded')
  })

  it('a second payment taken for a paid session (its withdrawn QR code paid after the card) is never dropped: its record opens and the merchant is told once', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const card = (await sessionState(s.id)).paymentId as string
    // The wallet pays the withdrawn code anyway: money taken a second time for this order.
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    // The gateway's notification about the code (the card's own came before it).
    const note = await notificationSentFor(s.id, 8_000, code)
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
    expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: false })
    // The session stays paid by the card; the second payment is the merchant's to refund or void.
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: card })
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told).toHaveLength(1)
    expect(JSON.parse(told[0]?.body ?? '{}')).toMatchObject({
      data: {
        sessionId: s.id,
        paymentId: code,
        method: 'qr',
        amount: '100.00',
        currency: 'EUR',
        sessionPaymentId: card,
      },
    })
    await recordOpens(code, s)
    await new Promise((r) => setTimeout(r, 300))
    expect(await webhooksAbout(s.mtid, 2, 300, 'checkout.session.charged_again')).toHaveLength(1)
  })

  it('a session paid by card asks, at its time, about the QR code its card withdrew: the wallet paid it too, its notification lost, and the merchant is told of the money taken again, once', async () => {
    const { s, code } = await codeWithdrawnByCard('4111111111111111', 'succeeded')
    const card = (await sessionState(s.id)).paymentId as string
    // The wallet pays the withdrawn code anyway; the gateway's notification never arrives.
    await walletPaysThenAskedOnce(s, code)
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: card })
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told).toHaveLength(1)
    expect(JSON.parse(told[0]?.body ?? '{}')).toMatchObject({
      data: { paymentId: code, method: 'qr', sessionPaymentId: card },
    })
    // Its record opens, for the merchant to void.
    await recordOpens(code, s)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.succeeded')).toHaveLength(1)
  })

  it('a session paid by its QR code asks nothing more at its time, and one paid by card whose withdrawn code no wallet paid asks about it once', async () => {
    const byCode = await createSession({ flow: 'qr' })
    expect((await verifyQr(byCode)).body.status).toBe('verified')
    expect((await completeQr(byCode)).body.status).toBe('succeeded')
    expect(await gatewayCallsWhile(() => timePasses(stubOf(byCode), 'clock'))).toEqual([])
    const { s: byCard, code } = await codeWithdrawnByCard('4111111111111111', 'succeeded')
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(byCard), 'clock'))
    expect(asked.filter((url) => url.endsWith(`/payments/${code}`))).toHaveLength(1)
    expect(await gatewayCallsAsTimePasses(byCard)).toEqual([])
    expect(await sessionState(byCard.id)).toMatchObject({ status: 'succeeded' })
    expect(await webhooksAbout(byCard.mtid, 1, 300, 'checkout.session.charged_again')).toHaveLength(0)
  })

  it('a card charge answered after the withdrawn QR code paid the session is money taken again, told once, though the card’s payment id came only with that answer', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // The card's charge reaches the gateway; its answer comes after the withdrawn code paid the
    // session. The shopper is told the checkout is paid.
    expect((await cardChargedWhileCodePaid(s, code)).body.status).toBe('succeeded')
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told.map((t) => (JSON.parse(t.body) as { data: { paymentId: string } }).data.paymentId)).toEqual([
      expect.stringMatching(/^\d+$/),
    ])
    const again = (JSON.parse(told[0]?.body ?? '{}') as { data: { paymentId: string; method: string } }).data
    expect(again).toMatchObject({ method: 'card', sessionPaymentId: code })
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${again.paymentId}`)).status, { timeout: 10_000 })
      .toBe(200)
  })

  it('a card charge whose answer was lost while the withdrawn QR code paid the session, and whose notification never comes, is asked about: the money it took is told as taken again', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // The card's charge reaches the gateway, which takes it; while the withdrawn code pays the
    // session, the card's answer is lost on the way back.
    await cardChargedWhileCodePaid(s, code, true)
    // Paid by the code: the card's attempt, whose answer was lost, is not credited with it.
    const paid = await sessionState(s.id)
    expect(paid).toMatchObject({ status: 'succeeded', paymentId: code, method: 'qr' })
    expect((paid.attempts as { status: string; paymentId?: string }[]).at(-1)).toMatchObject({ status: 'unknown' })
    // The card's notification never comes. Time passes: the session asks the gateway about it.
    await timePasses(stubOf(s))
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told).toHaveLength(1)
    const again = (JSON.parse(told[0]?.body ?? '{}') as { data: { paymentId: string } }).data
    expect(again).toMatchObject({ paymentId: expect.stringMatching(/^\d+$/), method: 'card', sessionPaymentId: code })
    expect(again.paymentId).not.toBe(code)
    // The session stays paid by the code; the card's payment is the merchant's to refund or void.
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded', paymentId: code, method: 'qr' })
    expect((state.attempts as { method?: string; status: string; paymentId?: string }[]).at(-1)).toMatchObject({
      method: 'card',
      status: 'succeeded',
      paymentId: again.paymentId,
    })
    await expect
      .poll(async () => (await merchant('GET', `/v1/payments/${again.paymentId}`)).status, { timeout: 10_000 })
      .toBe(200)
    // Settled: time passing again asks nothing more and tells nothing more.
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await webhooksAbout(s.mtid, 2, 300, 'checkout.session.charged_again')).toHaveLength(1)
  })

  it('a card’s bank step finished after the withdrawn QR code paid the session, its notification lost: the session asks about the card’s payment and tells the money taken again', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    const bank = await pay(s, THREE_DS)
    expect(bank.body.status).toBe('action_required')
    const card = bank.body.paymentId as string
    // The wallet pays the withdrawn code while the card is on the bank's page: it pays the session.
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    await deliverNotification(s.id, await notificationSentFor(s.id, 8_000, code))
    // Asked while the shopper is still on the bank's page: nothing is taken yet, nothing is told.
    await timePasses(stubOf(s))
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.charged_again')).toHaveLength(0)
    // Then the shopper finishes the bank's step: the card is charged. Its notification is lost.
    await fetch(`${bank.body.redirect?.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    await timePasses(stubOf(s))
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told.map((t) => (JSON.parse(t.body) as { data: Record<string, unknown> }).data)).toEqual([
      expect.objectContaining({ paymentId: card, method: 'card', sessionPaymentId: code }),
    ])
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
  })

  it('a card charge lost before the gateway while the wallet paid the withdrawn QR code, asked about by order: the code’s payment pays the session as the QR’s, and the card is found never charged', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    // The card's charge is lost on its way to the gateway: the attempt is unknown.
    const realFetch = globalThis.fetch
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      if (request.method === 'POST' && request.url.endsWith('/transactionServices/REST/v1/payments'))
        throw new TypeError('the connection was reset')
      return realFetch(request)
    })
    try {
      expect((await pay(s, '4111111111111111')).body.status).toBe('unknown')
    } finally {
      spy.mockRestore()
    }
    // The wallet pays the withdrawn code; its notification is lost too.
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    // Asked by order, the gateway names the code's payment, which took the money: it pays the
    // session, as the QR wallet's, not as the card's.
    await timePasses(stubOf(s))
    const paid = await sessionState(s.id)
    expect(paid).toMatchObject({ status: 'succeeded', paymentId: code, method: 'qr' })
    expect((paid.attempts as { method?: string; status: string; paymentId?: string }[]).at(-1)).toMatchObject({
      method: 'card',
      status: 'unknown',
    })
    const succeeded = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    expect(JSON.parse(succeeded[0]?.body ?? '{}')).toMatchObject({ data: { paymentId: code, method: 'qr' } })
    // The card's attempt is asked about in its turn: the gateway names the code's payment again,
    // so the card's charge never reached it. Nothing was taken twice, nothing is told.
    await timePasses(stubOf(s))
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded', paymentId: code, method: 'qr' })
    expect((state.attempts as { status: string; paymentId?: string }[]).at(-1)).toEqual(
      expect.objectContaining({ status: 'not_found' }),
    )
    expect((state.attempts as { paymentId?: string }[]).at(-1)?.paymentId).toBeUndefined()
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.charged_again')).toHaveLength(0)
  })

  it('a QR code completed twice, the first never reaching the gateway and the second’s answer lost while the wallet paid a withdrawn code: the second is told as money taken again, once, and asked about no more', async () => {
    const s = await createSession({ flow: 'qr', methods: ['qr', 'card'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const withdrawn = await shownCode(s)
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    const realFetch = globalThis.fetch
    const completes = async (r: Request) =>
      r.method === 'POST' && r.url.endsWith('/QRPayments') && (await r.clone().text()).includes(`paymentId=${code}`)
    // The first completion is lost before the gateway: asked by the code's id, the gateway has no
    // payment for it, and the session opens again.
    let spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      if (await completes(request)) throw new TypeError('the connection was reset')
      return realFetch(request)
    })
    try {
      expect((await completeQr(s)).body.status).toBe('unknown')
    } finally {
      spy.mockRestore()
    }
    await timePasses(stubOf(s))
    expect(await sessionState(s.id)).toMatchObject({ status: 'open' })
    // The second reaches the gateway, which takes it; its answer is lost while the wallet pays the
    // withdrawn code, whose notification pays the session.
    let release = () => {}
    const gate = new Promise<void>((r) => (release = r))
    let charged = false
    spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      if (!(await completes(request))) return realFetch(request)
      await realFetch(request)
      charged = true
      await gate
      throw new TypeError('the connection was reset')
    })
    try {
      const second = completeQr(s)
      await vi.waitFor(() => expect(charged).toBe(true), { timeout: 10_000 })
      expect((await walletPays(s, withdrawn)).kind).toBe('succeeded')
      const note = await notificationSentFor(s.id, 8_000, withdrawn)
      expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
      release()
      await second
    } finally {
      release()
      spy.mockRestore()
    }
    // Asked about, the second completion took money: told once, and settled as its own attempt's.
    await timePasses(stubOf(s))
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told.map((t) => (JSON.parse(t.body) as { data: Record<string, unknown> }).data)).toEqual([
      expect.objectContaining({ paymentId: code, method: 'qr', sessionPaymentId: withdrawn }),
    ])
    const state = await sessionState(s.id)
    expect(state).toMatchObject({ status: 'succeeded', paymentId: withdrawn })
    expect((state.attempts as { status: string; paymentId?: string }[]).map((a) => [a.status, a.paymentId])).toEqual([
      ['not_found', code],
      ['succeeded', code],
    ])
    // Nothing is left to ask about: time passing sends the gateway nothing more.
    expect(await gatewayCallsAsTimePasses(s)).toEqual([])
    expect(await webhooksAbout(s.mtid, 2, 300, 'checkout.session.charged_again')).toHaveLength(1)
  })

  it('a card payment that saved a card, taken after a QR code paid the session, is not repeated: its card is never known', async () => {
    const s = await createSession({ methods: ['card', 'qr'], createRegistration: true })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const code = await shownCode(s)
    const bank = await pay(s, '4000000000003220')
    expect(bank.body.status).toBe('action_required')
    const card = bank.body.paymentId as string
    // The wallet pays the withdrawn code while the card is on the bank's page: it pays the session.
    expect((await walletPays(s, code)).kind).toBe('succeeded')
    await deliverNotification(s.id, await notificationSentFor(s.id, 8_000, code))
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: code })
    // Then the shopper finishes the bank's step: the card is charged, and saved, a second time.
    await fetch(`${bank.body.redirect?.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    await deliverNotification(s.id, await notificationSentFor(s.id, 8_000, card))
    await expect.poll(async () => (await merchant('GET', `/v1/payments/${card}`)).status, { timeout: 10_000 }).toBe(200)
    const repeat = await merchant<{ error?: { code: string } }>(
      'POST',
      `/v1/payments/${card}/repeat`,
      { amount: '5.00', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('rk') },
    )
    expect(repeat.status).toBe(409)
    expect(repeat.body.error).toMatchObject({ code: 'payment_state' })
  })

  it('a QR code paid by the wallet while another code’s completion is answered: the first payment stays the session’s, the second is told as money taken again', async () => {
    const s = await createSession({ flow: 'qr' })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const replaced = await shownCode(s)
    expect((await verifyQr(s)).body.status).toBe('verified')
    const shown = await shownCode(s)
    const { held, restore } = holdQrCalls()
    held.verify.release()
    try {
      const completing = completeQr(s)
      await vi.waitFor(() => expect(held.complete.seen).toBe(true), { timeout: 10_000 })
      // While the completion's answer is on its way, the wallet pays the replaced code.
      expect((await walletPays(s, replaced)).kind).toBe('succeeded')
      const note = await notificationSentFor(s.id, 8_000, replaced)
      expect((await deliverNotification(s.id, note)).body).toMatchObject({ applied: true, status: 'succeeded' })
      held.complete.release()
      expect((await completing).body.status).toBe('succeeded')
    } finally {
      restore()
    }
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', paymentId: replaced })
    const told = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.charged_again')
    expect(told.map((t) => JSON.parse(t.body) as { data: unknown })).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ paymentId: shown, sessionPaymentId: replaced }) }),
    ])
  })

  it('QR in flight -> card pay is refused with 409 method_in_progress naming qr; the QR payment then settles by inquiry', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    await injectFault({ op: 'qrComplete', fault: 'http500', field: 'merchantTransactionId', value: s.mtid })
    expect((await completeQr(s)).body.status).toBe('unknown')
    expect(await view(s)).toMatchObject({ status: 'unknown', method: 'qr' })
    const card = await pay(s, '4111111111111111')
    expect(card.status).toBe(409)
    expect(card.body.error).toMatchObject({ code: 'method_in_progress', method: 'qr' })
    await timePasses(stubOf(s))
    expect((await sessionState(s.id)).status).not.toBe('unknown')
    // Whatever the inquiry found, the card was never charged.
    expect((await sessionState(s.id)).attempts).toEqual([expect.objectContaining({ method: 'qr' })])
  })

  it('a card pay and a QR complete sent at the same time: one payment starts, the other is refused with 409; one charge', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await verifyQr(s)).body.status).toBe('verified')
    const [card, qr] = await Promise.all([pay(s, '4111111111111111'), completeQr(s)])
    const answers = [card, qr]
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    const refused = answers.find((a) => a.status !== 200)
    expect(refused?.status).toBe(409)
    expect(['method_in_progress', 'qr_withdrawn']).toContain(
      (refused?.body as { error?: { code: string } }).error?.code,
    )
    const state = await sessionState(s.id)
    expect(state.status).toBe('succeeded')
    expect(state.attempts).toHaveLength(1)
    expect(await chargesFor(s.mtid)).toBe(1)
  })

  it('card in flight (on the bank page) -> QR verify is refused, naming card', async () => {
    const s = await createSession({ methods: ['card', 'qr'] })
    expect((await pay(s, THREE_DS)).body.status).toBe('action_required')
    const res = await verifyQr(s)
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'method_in_progress', method: 'card' })
  })

  it('an invoice under way -> card pay is refused, naming invoice', async () => {
    const invoiceId = await sandboxInvoice('100.00')
    const s = await createSession({
      methods: ['invoice', 'card'],
      invoiceId,
      merchantInvoiceId: uniqueId('new'),
      invoiceExpirationPeriod: '24',
    })
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    expect(await view(s)).toMatchObject({ method: 'invoice' })
    const card = await pay(s, '4111111111111111')
    expect(card.status).toBe(409)
    expect(card.body.error).toMatchObject({ code: 'method_in_progress', method: 'invoice' })
    expect(await chargesFor(s.mtid)).toBe(0)
  })

  it('a QR code already shown is withdrawn when an invoice is issued: the view says so and it cannot be completed', async () => {
    const { s } = await codeShownBesideAnInvoice()
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    expect(await view(s)).toMatchObject({ method: 'invoice', qr: { withdrawn: true } })
    const complete = await completeQr(s)
    expect(complete.status).toBe(409)
    expect(complete.body.error).toMatchObject({ code: 'method_in_progress', method: 'invoice' })
  })

  it('at its time, a session whose invoice was never paid asks about the QR code the invoice withdrew too: the wallet paid it, its notification lost, and the session ends paid by it, told once, never expired', async () => {
    const { s, code: withdrawn, invoice } = await codeShownBesideAnInvoice()
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    // A wallet pays the code the invoice withdrew; the gateway's notification never arrives.
    expect((await walletPays(s, withdrawn)).kind).toBe('succeeded')
    const asked = await gatewayCallsWhile(() => timePasses(stubOf(s), true))
    expect(asked.some((url) => url.endsWith(`/payments/${withdrawn}`))).toBe(true)
    // Its invoice is not asked about: the code paid the session.
    expect(asked.some((url) => url.endsWith(`/payments/${invoice}`))).toBe(false)
    expect(await sessionState(s.id)).toMatchObject({ status: 'succeeded', method: 'qr', paymentId: withdrawn })
    expect(await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')).toHaveLength(1)
    expect(await webhooksAbout(s.mtid, 1, 300, 'checkout.session.expired')).toHaveLength(0)
  })

  it('a session that an earlier release expired after asking only its invoice asks about its QR code at the end of its retention: the wallet paid it, and the session ends paid', async () => {
    const { s, code: withdrawn } = await codeShownBesideAnInvoice()
    expect((await browser(s, 'POST', '/invoice/regenerate', {})).status).toBe(200)
    expect((await walletPays(s, withdrawn)).kind).toBe('succeeded')
    // The record as that release's expiry left it: expired, its codes never asked about.
    await askedAtRetentionEndAndPaid(s, withdrawn, { status: 'expired' })
  })

  it('a session offering a saved card and a new card pays the saved one with the CVV alone, or a new card with its number', async () => {
    const first = await createSession({ recurring: 'INITIAL', createRegistration: true })
    expect((await pay(first, '4111111111111111')).body.status).toBe('succeeded')
    const registrationId = (await sessionState(first.id)).registrationId as string
    const saved = await createSession({
      methods: ['saved-card', 'card'],
      registrationId,
      savedCard: { brand: 'visa', last4: '1111' },
    })
    const res = await browser(saved, 'POST', '/pay', { card: { cvv: '123' } }, { 'Idempotency-Key': uniqueId('k') })
    expect(res.body).toMatchObject({ status: 'succeeded', card: { last4: '1111' } })
    expect(await sessionState(saved.id)).toMatchObject({ method: 'saved-card' })
    const fresh = await createSession({
      methods: ['saved-card', 'card'],
      registrationId,
      savedCard: { brand: 'visa', last4: '1111' },
    })
    expect((await pay(fresh, '5555555555554444')).body).toMatchObject({ status: 'succeeded', card: { last4: '4444' } })
    expect(await sessionState(fresh.id)).toMatchObject({ method: 'card' })
  })
})
