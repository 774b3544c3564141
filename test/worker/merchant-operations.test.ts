/**
 * Merchant server operations that must happen once: repeat by payment id and invoice regeneration,
 * with Idempotency-Key replay, concurrency and the fault matrix; and the status inquiry route.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { verifyWebhook } from '../../shared/webhooks/sign.ts'
import {
  call,
  createSession,
  deliverNotification,
  distinctEvents,
  merchant,
  notificationSentFor,
  ORIGIN,
  pay,
  payInvoicePage,
  sessionState,
  webhooksAbout,
} from './api.ts'
import { chargesFor, injectFault, invoicePageFor, regenerationsRefused, uniqueId } from './helpers.ts'
import { gatewayCallsWhile, timePasses, timeStandsStill } from './clock.ts'
import { paymentEventually } from './money.ts'
import { sandboxInvoice } from './outcome-support.ts'

/** A paid INITIAL payment to repeat. */
async function initialPayment(): Promise<string> {
  const s = await createSession({ recurring: 'INITIAL', createRegistration: true })
  const res = await pay(s, '4111111111111111')
  if (res.body.status !== 'succeeded' || !res.body.paymentId) throw new Error(res.text)
  return res.body.paymentId
}

type RepeatAnswer = { status: string; merchantTransactionId: string; paymentId?: string; error?: { code: string } }
const repeat = (paymentId: string, key: string, body: Record<string, unknown> = { amount: '9.99', currency: 'EUR' }) =>
  merchant<RepeatAnswer>('POST', `/v1/payments/${paymentId}/repeat`, body, { 'Idempotency-Key': key })

/** An existing invoice in the sandbox (the merchant creates them in the gateway's dashboard). */
const existingInvoice = () => sandboxInvoice('250.00')

type RegenAnswer = {
  id: string
  status: string
  invoice?: { transactionUrl?: string; merchantInvoiceId?: string }
  error?: { code: string }
}
const regenerate = (invoiceId: string, key: string, merchantInvoiceId: string) =>
  merchant<RegenAnswer>(
    'POST',
    `/v1/invoices/${invoiceId}/regenerate`,
    { merchantInvoiceId, invoiceExpirationPeriod: '24', merchantRedirectUrl: 'https://shop.example/invoice/done' },
    { 'Idempotency-Key': key },
  )

/**
 * A regeneration whose first answer is lost (the sandbox made the invoice, answered 500): the
 * operation is unknown. Its invoice, reference, key and object.
 */
async function unansweredRegeneration(prefix: string) {
  const invoiceId = await existingInvoice()
  const ref = uniqueId(prefix)
  const key = uniqueId('ik')
  await injectFault({ op: 'invoiceRegenerate', fault: 'http500', field: 'merchantInvoiceId', value: ref })
  expect((await regenerate(invoiceId, key, ref)).body.status).toBe('unknown')
  const id = env.OPERATIONS.idFromName(`regenerate:${key}`)
  return { invoiceId, ref, stub: env.OPERATIONS.get(id) as unknown as DurableObjectStub, opId: id.toString() }
}

/** The operation was asked for `ms` ago (its clock for the reference's claim). */
const askedAgo = (stub: DurableObjectStub, ms: number) =>
  runInDurableObject(stub, async (instance, state) => {
    const op = (await state.storage.get<{ createdAt: number }>('op')) as { createdAt: number }
    op.createdAt = Date.now() - ms
    await state.storage.put('op', op)
    ;(instance as unknown as { op?: unknown }).op = undefined
  })

/** When the operation's task `name` is due (ms), if set. */
const taskTime = async (stub: DurableObjectStub, name: string) =>
  (await runInDurableObject(stub, (_, state) => state.storage.get<Record<string, number>>('tasks')))?.[name]

/** The operation's tasks still set. */
const tasksOf = async (stub: DurableObjectStub) =>
  Object.keys((await runInDurableObject(stub, (_, state) => state.storage.get<Record<string, number>>('tasks'))) ?? {})

/** The event types the merchant's endpoint took about the text `about` (an id, a reference), each once, once `type` is among them. */
async function typesTold(about: string, type: string): Promise<string[]> {
  const told = async () =>
    distinctEvents(
      ((await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as { body: string }[]).filter((h) =>
        h.body.includes(about),
      ),
    ).map((h) => (JSON.parse(h.body) as { type: string }).type)
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline && !(await told()).includes(type)) await new Promise((r) => setTimeout(r, 100))
  return told()
}

/**
 * A repeat of a saved card whose request is lost on its way (kept: `land` sends it to the gateway
 * later), then the card deleted: the operation is unknown, its tasks held until time passes.
 */
async function lostRepeatOfDeletedCard() {
  const s = await createSession({ recurring: 'INITIAL', createRegistration: true })
  const paymentId = (await pay(s, '4111111111111111')).body.paymentId ?? ''
  const registrationId = (await sessionState(s.id)).registrationId as string
  // Its record names the saved card, which the repeat's guard reads.
  expect(await paymentEventually(paymentId)).toMatchObject({ registrationId })
  // As plain values: a request made in the operation's object cannot be sent from the test's.
  const realFetch = globalThis.fetch
  let held: { url: string; headers: [string, string][]; body: string } | undefined
  const losing = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const req = new Request(input, init)
    const body = await req.clone().text()
    if (new URL(req.url).pathname.endsWith(`/payments/${paymentId}`) && !held && !body.includes('paymentType=IN')) {
      held = { url: req.url, headers: [...req.headers], body }
      throw new TypeError('connection reset')
    }
    return realFetch(req)
  })
  const key = uniqueId('rk')
  let answered: RepeatAnswer
  try {
    answered = (await repeat(paymentId, key)).body
  } finally {
    losing.mockRestore()
  }
  expect(answered.status).toBe('unknown')
  const id = env.OPERATIONS.idFromName(`repeat:${key}`)
  const stub = env.OPERATIONS.get(id) as unknown as DurableObjectStub
  await timeStandsStill(stub)
  const deletion = await merchant('DELETE', `/v1/registrations/${registrationId}`, undefined, {
    'Idempotency-Key': uniqueId('del'),
  })
  expect(deletion.status).toBe(200)
  return {
    answered,
    id,
    stub,
    status: async () => (await merchant<{ status: string }>('GET', `/v1/operations/op_${id}`)).body.status,
    land: () => realFetch(held?.url ?? '', { method: 'POST', headers: held?.headers, body: held?.body }),
  }
}

describe('POST /v1/payments/{paymentId}/repeat', () => {
  it('charges a REPEATED payment once; the same key replays the stored answer', async () => {
    const paymentId = await initialPayment()
    const key = uniqueId('rk')
    const first = await repeat(paymentId, key)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      status: 'succeeded',
      resultCode: '00001',
      repeatOf: paymentId,
      amount: '9.99',
      currency: 'EUR',
    })
    expect(first.body.paymentId).not.toBe(paymentId)
    const again = await repeat(paymentId, key)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(await chargesFor(first.body.merchantTransactionId)).toBe(1)
  })

  it('refuses the same key with another amount (422), a missing key (400), a bad amount (400)', async () => {
    const paymentId = await initialPayment()
    const key = uniqueId('rk')
    expect((await repeat(paymentId, key)).status).toBe(200)
    const other = await repeat(paymentId, key, { amount: '19.99', currency: 'EUR' })
    expect(other.status).toBe(422)
    expect(other.body.error?.code).toBe('idempotency_mismatch')
    const noKey = await merchant<RepeatAnswer>('POST', `/v1/payments/${paymentId}/repeat`, {
      amount: '1.00',
      currency: 'EUR',
    })
    expect(noKey.status).toBe(400)
    const bad = await repeat(paymentId, uniqueId('rk'), { amount: '1', currency: 'EUR', card: { cvv: '123' } })
    expect(bad.status).toBe(400)
  })

  it('50 concurrent repeats with one key make exactly one charge', async () => {
    const paymentId = await initialPayment()
    const key = uniqueId('rk')
    const results = await Promise.all(Array.from({ length: 50 }, () => repeat(paymentId, key)))
    const answered = results.filter((r) => r.status === 200)
    expect(answered.length).toBeGreaterThanOrEqual(1)
    for (const r of answered) expect(r.body.status).toBe('succeeded')
    for (const r of results.filter((r) => r.status !== 200)) expect(r.body.error?.code).toBe('idempotency_in_progress')
    expect(await chargesFor(answered[0]?.body.merchantTransactionId ?? '')).toBe(1)
  })

  it('a repeat’s order reference is the deployment’s, as a session’s: a session or invoice given it later is 409 duplicate_order, and the repeat replays as it was', async () => {
    const paymentId = await initialPayment()
    const key = uniqueId('rk')
    const first = await repeat(paymentId, key)
    expect(first.body.status).toBe('succeeded')
    const ref = first.body.merchantTransactionId
    expect(ref).toMatch(/^rp-/)
    const session = await merchant('POST', '/v1/sessions', {
      flow: 'card',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: ref,
      allowedOrigins: [ORIGIN],
    })
    expect(session.status).toBe(409)
    expect(session.body).toMatchObject({ error: { code: 'duplicate_order' } })
    const invoice = await merchant(
      'POST',
      `/v1/invoices/${await sandboxInvoice('1.00')}/regenerate`,
      {
        merchantInvoiceId: ref,
        invoiceExpirationPeriod: '24',
      },
      { 'Idempotency-Key': uniqueId('ik') },
    )
    expect(invoice.status).toBe(409)
    expect(invoice.body).toMatchObject({ error: { code: 'duplicate_order' } })
    const again = await repeat(paymentId, key)
    expect(again.text).toBe(first.text)
    expect(await chargesFor(ref)).toBe(1)
  })

  it('a repeat of a payment that began no recurring series is refused before the gateway: 409 payment_state naming recurring INITIAL', async () => {
    const s = await createSession({ createRegistration: true })
    const paid = await pay(s, '4111111111111111')
    const paymentId = paid.body.paymentId ?? ''
    // Its record says what it is (a moment after the session's success).
    await paymentEventually(paymentId)
    const gateway = vi.spyOn(globalThis, 'fetch')
    try {
      const res = await repeat(paymentId, uniqueId('rk'))
      expect(res.status).toBe(409)
      expect(res.body.error).toMatchObject({ code: 'payment_state' })
      expect(res.text).toContain('recurring')
      expect(
        gateway.mock.calls.filter(([input]) =>
          String(input instanceof Request ? input.url : input).includes(`/payments/${paymentId}`),
        ),
      ).toEqual([])
    } finally {
      gateway.mockRestore()
    }
  })

  it('a repeat whose request was lost and whose card was deleted before its one re-send: asked about once more, not failed while that request may still land; landed, it ends succeeded, told once', async () => {
    const { answered, stub, status, land } = await lostRepeatOfDeletedCard()
    // Not found: its re-send is refused (the card is deleted); the first may still land.
    await timePasses(stub)
    expect(await status()).toBe('unknown')
    expect(await tasksOf(stub)).toContain('settle')
    expect((await land()).status).toBe(200)
    await timePasses(stub)
    expect(await status()).toBe('succeeded')
    const told = await typesTold(answered.merchantTransactionId, 'payment.repeat.succeeded')
    expect(told.filter((t) => t === 'payment.repeat.succeeded')).toHaveLength(1)
    expect(told).not.toContain('payment.repeat.failed')
  })

  it('a repeat whose request was lost and whose card was deleted before its one re-send, never found when asked once more: failed, nothing charged; that request landing later after all, its notification makes it succeeded', async () => {
    const { answered, id, stub, status, land } = await lostRepeatOfDeletedCard()
    await timePasses(stub)
    expect(await status()).toBe('unknown')
    // Asked once more no sooner than five minutes on.
    expect(await taskTime(stub, 'settle')).toBeGreaterThan(Date.now() + 4 * 60_000)
    await timePasses(stub)
    expect(await status()).toBe('failed')
    expect((await merchant<{ error?: string }>('GET', `/v1/operations/op_${id}`)).body).toMatchObject({
      error: 'registration_deleted',
    })
    expect(await chargesFor(answered.merchantTransactionId)).toBe(0)
    // It lands after all: the gateway's notification of its charge settles the repeat.
    expect((await land()).status).toBe(200)
    const notified = await notificationSentFor(`op_${id}`)
    expect((await deliverNotification(`op_${id}`, notified)).body).toMatchObject({ applied: true, status: 'succeeded' })
    const told = await typesTold(answered.merchantTransactionId, 'payment.repeat.succeeded')
    expect(told.filter((t) => t.startsWith('payment.repeat.') && t !== 'payment.repeat.unknown')).toEqual([
      'payment.repeat.failed',
      'payment.repeat.succeeded',
    ])
  })

  it('a repeat of an unknown payment is 404', async () => {
    const res = await repeat('999999999999', uniqueId('rk'))
    expect(res.status).toBe(404)
  })

  it.each(['timeout', 'http500', 'unparseable'] as const)(
    '%s: unknown, settled by inquiry, one charge, a signed webhook',
    async (fault) => {
      const paymentId = await initialPayment()
      const key = uniqueId(`rf-${fault}`)
      // The Worker derives the repeat's merchantTransactionId from the key; learn it from a dry
      // answer of the same shape: the first answer carries it.
      const { sha256Hex } = await import('../../worker/ids.ts')
      const mtid = `rp-${(await sha256Hex(`repeat:${key}`)).slice(0, 24)}`
      await injectFault({ op: 'repeat', fault, field: 'merchantTransactionId', value: mtid })
      const first = await repeat(paymentId, key)
      expect(first.body).toMatchObject({ status: 'unknown', merchantTransactionId: mtid })
      const [hook] = await webhooksAbout(mtid, 1, 15_000, 'payment.repeat.succeeded')
      const verified = await verifyWebhook(hook?.body ?? '', hook?.signature, TEST_SECRETS.WEBHOOK_SECRET)
      expect(verified.ok && verified.event.type).toBe('payment.repeat.succeeded')
      const inquiry = await merchant('POST', `/v1/payments/${mtid}/inquiry`, { idType: 'MID' })
      expect(inquiry.body).toMatchObject({ status: 'succeeded', merchantTransactionId: mtid })
      expect(await chargesFor(mtid)).toBe(1)
    },
  )

  it('is server-only: 401 without the key, 403 with a browser Origin', async () => {
    const paymentId = await initialPayment()
    const anon = await call(`/v1/payments/${paymentId}/repeat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k1' },
      body: '{"amount":"1.00","currency":"EUR"}',
    })
    expect(anon.status).toBe(401)
    const fromPage = await merchant(
      'POST',
      `/v1/payments/${paymentId}/repeat`,
      { amount: '1.00', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('k'), Origin: ORIGIN },
    )
    expect(fromPage.status).toBe(403)
    expect(fromPage.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })
})

describe('POST /v1/payments/{paymentId}/inquiry', () => {
  it('reports a payment by id, and 404 for one the gateway never saw', async () => {
    const paymentId = await initialPayment()
    expect((await merchant('POST', `/v1/payments/${paymentId}/inquiry`, {})).body).toMatchObject({
      status: 'succeeded',
      paymentId,
      transactionStatus: 'Y',
    })
    expect((await merchant('POST', '/v1/payments/123123123/inquiry', {})).status).toBe(404)
  })
})

describe('POST /v1/invoices/{invoiceId}/regenerate', () => {
  it('regenerates once per key; replays; refuses other parameters with 422', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    const ref = uniqueId('inv-new')
    const first = await regenerate(invoiceId, key, ref)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      status: 'succeeded',
      invoice: {
        merchantInvoiceId: ref,
        transactionUrl: expect.stringContaining('/invoice/pay/'),
        // The gateway writes ` 15:56:45.`; the answer, as the session's view, a time.
        createdTime: expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      },
    })
    expect((await regenerate(invoiceId, key, ref)).text).toBe(first.text)
    expect((await regenerate(invoiceId, key, uniqueId('other'))).status).toBe(422)
  })

  it('keeps none of the shopper’s personal data the gateway’s answer carries (the customer’s email, the order’s text): not in the answer, the operation or its events', async () => {
    const email = `${uniqueId('inv')}@example.com`.toLowerCase()
    const invoiceId = await sandboxInvoice('30.00', email)
    const key = uniqueId('ik')
    const ref = uniqueId('inv-new')
    const first = await regenerate(invoiceId, key, ref)
    expect(first.body).toMatchObject({ status: 'succeeded', invoice: { merchantInvoiceId: ref } })
    const read = await merchant('GET', `/v1/operations/${first.body.id}`)
    let told: string[] = []
    for (let i = 0; i < 100 && told.length === 0; i++) {
      const hooks = (await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as { body: string }[]
      told = hooks.map((h) => h.body).filter((b) => b.includes(ref) && b.includes('invoice.regenerate.succeeded'))
      if (told.length === 0) await new Promise((r) => setTimeout(r, 100))
    }
    expect(told.length).toBeGreaterThan(0)
    for (const text of [first.text, read.text, ...told]) expect(text).not.toContain(email)
  })

  it('50 concurrent regenerations with one key create one invoice', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    const ref = uniqueId('inv-c')
    const results = await Promise.all(Array.from({ length: 50 }, () => regenerate(invoiceId, key, ref)))
    const urls = new Set(results.filter((r) => r.status === 200).map((r) => r.body.invoice?.transactionUrl))
    expect(urls.size).toBe(1)
    for (const r of results.filter((r) => r.status !== 200)) expect(r.body.error?.code).toBe('idempotency_in_progress')
  })

  it.each(['timeout', 'http500', 'unparseable'] as const)(
    '%s: unknown, then regenerated by asking again for the same reference',
    async (fault) => {
      const invoiceId = await existingInvoice()
      const ref = uniqueId(`inv-${fault}`)
      await injectFault({ op: 'invoiceRegenerate', fault, field: 'merchantInvoiceId', value: ref })
      const first = await regenerate(invoiceId, uniqueId('ik'), ref)
      expect(first.body.status).toBe('unknown')
      const deadline = Date.now() + 15_000
      let hooks: { body: string }[] = []
      while (Date.now() < deadline && !hooks.some((h) => h.body.includes('"invoice.regenerate.succeeded"'))) {
        hooks = (
          (await (await fetch(`${(await import('cloudflare:test')).env.CATCHER_URL}/webhooks`)).json()) as {
            body: string
          }[]
        ).filter((h) => h.body.includes(ref))
        await new Promise((r) => setTimeout(r, 100))
      }
      const succeeded = distinctEvents(hooks).filter(
        (h) => (JSON.parse(h.body) as { type: string }).type === 'invoice.regenerate.succeeded',
      )
      expect(succeeded).toHaveLength(1)
      expect(JSON.parse(succeeded[0]?.body ?? '{}')).toMatchObject({ data: { status: 'succeeded' } })
    },
  )

  it('an invoice whose first answer never came ends by time a whole period after the answer that named it, not after the first call', async () => {
    const { stub } = await unansweredRegeneration('inv-dated')
    const stored = () =>
      runInDurableObject(stub, async (_, state) => ({
        op: await state.storage.get<{ status: string; createdAt: number }>('op'),
        tasks: await state.storage.get<Record<string, number>>('tasks'),
      }))
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline && (await stored()).op?.status !== 'succeeded')
      await new Promise((r) => setTimeout(r, 100))
    const { op, tasks } = await stored()
    expect(op?.status).toBe('succeeded')
    // Asked again after the base interval (1 s here): the gateway's invoice may date from then.
    const day = 24 * 60 * 60_000
    expect((tasks?.expire ?? 0) - (op?.createdAt ?? 0) - day).toBeGreaterThanOrEqual(900)
  })

  it('its first answer lost, every ask again refused, the invoice paid on its page: asked about by its reference, the operation ends paid, with its payment’s record, told once', async () => {
    const { invoiceId, ref, stub, opId } = await unansweredRegeneration('inv-refused-again')
    // The gateway made it (the same reference answers the same invoice) and sent the shopper its page.
    await payInvoicePage(await invoicePageFor(invoiceId, ref))
    const refusing = regenerationsRefused()
    try {
      await timePasses(stub)
    } finally {
      refusing.restore()
    }
    const op = await merchant<{ status: string; paymentId?: string }>('GET', `/v1/operations/op_${opId}`)
    expect(op.body).toMatchObject({ status: 'paid', paymentId: expect.stringMatching(/^\d+$/) })
    expect(await paymentEventually(op.body.paymentId ?? '')).toMatchObject({ source: 'invoice' })
    expect((await typesTold(ref, 'invoice.paid')).filter((t) => t === 'invoice.paid')).toHaveLength(1)
  })

  it('its first answer lost and never settled, in the last period of its reference’s claim: not sent again (an invoice made now would outlive the asking), only asked about by its reference', async () => {
    const { ref, stub } = await unansweredRegeneration('inv-late-claim')
    // The asking ends a day before the claim (period + 30 days): twelve hours from now.
    await askedAgo(stub, (29 * 24 + 12) * 60 * 60_000)
    const asked = (await gatewayCallsWhile(() => timePasses(stub))).map((url) => new URL(url).pathname)
    expect(asked.some((path) => path.endsWith('/regenerate'))).toBe(false)
    expect(asked.some((path) => path.includes(`/payments/${ref}`))).toBe(true)
    expect(await tasksOf(stub)).toContain('settle')
  })

  it('its first answer lost and never settled, past its reference’s claim (its period and 30 days): neither sent again nor asked about, for the reference may be another checkout’s now; it stays unknown', async () => {
    const { stub, opId } = await unansweredRegeneration('inv-past-claim')
    await askedAgo(stub, (24 + 30 * 24) * 60 * 60_000)
    const asked = await gatewayCallsWhile(() => timePasses(stub))
    expect(asked).toEqual([])
    expect((await merchant<{ status: string }>('GET', `/v1/operations/op_${opId}`)).body.status).toBe('unknown')
    expect(await tasksOf(stub)).not.toContain('settle')
  })

  it('an invoice regenerated here and paid on its page after a declined try ends paid: invoice.declined, then invoice.paid', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    const ref = uniqueId('inv-retry')
    const regen = await regenerate(invoiceId, key, ref)
    expect(regen.body.status).toBe('succeeded')
    const opTag = `op_${env.OPERATIONS.idFromName(`regenerate:${key}`).toString()}`
    const notificationsTo = async () =>
      (await (await fetch(`${env.CATCHER_URL}/v1/notifications/${opTag}`)).json()) as string[]
    const payPage = (number: string) => payInvoicePage(regen.body.invoice?.transactionUrl ?? '', number)
    const relayNext = async (seen: number) => {
      const deadline = Date.now() + 8_000
      let bodies = await notificationsTo()
      while (bodies.length <= seen && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
        bodies = await notificationsTo()
      }
      return call<{ applied: boolean; status: string }>(`/v1/notifications/${opTag}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: bodies[seen] ?? '',
      })
    }
    await payPage('4000000000000002')
    expect((await relayNext(0)).body).toMatchObject({ applied: true, status: 'declined' })
    await payPage('4111111111111111')
    expect((await relayNext(1)).body).toMatchObject({ applied: true, status: 'paid' })
    const typesAbout = async () =>
      distinctEvents((await (await fetch(`${env.CATCHER_URL}/webhooks`)).json()) as { body: string }[])
        .filter((h) => h.body.includes(ref))
        .map((h) => (JSON.parse(h.body) as { type: string }).type)
    const deadline = Date.now() + 10_000
    while ((await typesAbout()).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(await typesAbout()).toEqual(['invoice.regenerate.succeeded', 'invoice.declined', 'invoice.paid'])
  })

  it('an invoice regenerated here and paid on its page, its notification lost, the gateway refusing to be asked at its expiry: asked again later, never told expired; it ends paid, told once', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    const ref = uniqueId('inv-unasked')
    const regen = await regenerate(invoiceId, key, ref)
    expect(regen.body.status).toBe('succeeded')
    // Paid; its notification (to the catcher) is never relayed: lost.
    await payInvoicePage(regen.body.invoice?.transactionUrl ?? '')
    const id = env.OPERATIONS.idFromName(`regenerate:${key}`)
    const stub = env.OPERATIONS.get(id) as unknown as DurableObjectStub
    const status = async () => (await merchant<{ status: string }>('GET', `/v1/operations/op_${id}`)).body.status
    // At its expiry the inquiry's token is refused, and refused again with a fresh one.
    await injectFault({ op: 'inquiry', fault: 'token_refused', field: 'id', value: ref, times: 2 })
    await timePasses(stub)
    expect(await status()).toBe('succeeded')
    // Asked again in an hour.
    expect(await taskTime(stub, 'expire')).toBeGreaterThan(Date.now() + 59 * 60_000)
    await timePasses(stub)
    expect(await status()).toBe('paid')
    const told = await typesTold(ref, 'invoice.paid')
    expect(told.filter((t) => t === 'invoice.paid')).toHaveLength(1)
    expect(told).not.toContain('invoice.expired')
  })

  it('an invoice regenerated here whose answer leaves out its sum: its reference names it, a decline teaches it nothing (its currency is not signed), and the notification of its payment pays it, recorded with the sum paid', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    const ref = uniqueId('inv-nosum')
    await injectFault({ op: 'invoiceRegenerate', fault: 'incomplete', field: 'merchantInvoiceId', value: ref })
    const regen = await regenerate(invoiceId, key, ref)
    expect(regen.body.status).toBe('succeeded')
    const opTag = `op_${env.OPERATIONS.idFromName(`regenerate:${key}`).toString()}`
    const sent = async () => (await (await fetch(`${env.CATCHER_URL}/v1/notifications/${opTag}`)).json()) as string[]
    const nth = async (n: number) => {
      const deadline = Date.now() + 8_000
      while ((await sent()).length <= n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      return (await sent())[n] ?? ''
    }
    const relay = (body: string) =>
      call<{ applied: boolean; status: string }>(`/v1/notifications/${opTag}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      })
    // A declined try, its notification relayed with another currency (the checksum does not cover it).
    await payInvoicePage(regen.body.invoice?.transactionUrl ?? '', '4000000000000002')
    const declined = JSON.parse(await nth(0)) as Record<string, unknown>
    expect((await relay(JSON.stringify({ ...declined, currency: 'USD' }))).body).toMatchObject({
      applied: true,
      status: 'declined',
    })
    await payInvoicePage(regen.body.invoice?.transactionUrl ?? '')
    expect((await relay(await nth(1))).body).toMatchObject({ applied: true, status: 'paid' })
    const op = await merchant<{ status: string; paymentId?: string }>('GET', `/v1/operations/${opTag}`)
    expect(op.body).toMatchObject({ status: 'paid', paymentId: expect.stringMatching(/^\d+$/) })
    expect(await paymentEventually(op.body.paymentId ?? '')).toMatchObject({
      source: 'invoice',
      amount: '250.00',
      currency: 'EUR',
    })
  })

  it('an invoice reference is one order: another key, or a checkout session, cannot take it again (409 duplicate_order)', async () => {
    const invoiceId = await existingInvoice()
    const ref = uniqueId('inv-once')
    expect((await regenerate(invoiceId, uniqueId('ik'), ref)).body.status).toBe('succeeded')
    const again = await regenerate(invoiceId, uniqueId('ik'), ref)
    expect(again.status).toBe(409)
    expect(again.body.error).toMatchObject({ code: 'duplicate_order' })
    const session = (body: Record<string, unknown>) =>
      merchant<{ error?: { code: string } }>('POST', '/v1/sessions', {
        amount: '250.00',
        currency: 'EUR',
        allowedOrigins: [ORIGIN],
        ...body,
      })
    const card = await session({ flow: 'card', merchantTransactionId: ref })
    expect(card.status).toBe(409)
    expect(card.body.error).toMatchObject({ code: 'duplicate_order' })
    const invoice = await session({
      methods: ['invoice'],
      merchantTransactionId: uniqueId('order'),
      invoiceId,
      merchantInvoiceId: ref,
      invoiceExpirationPeriod: '24',
    })
    expect(invoice.status).toBe(409)
    expect(invoice.body.error).toMatchObject({ code: 'duplicate_order' })
  })

  it('an invoice reference is kept as long as its invoice may be paid, and thirty days beyond, as is an invoice session’s', async () => {
    const alarmOf = (ref: string) =>
      runInDurableObject(env.ORDERS.get(env.ORDERS.idFromName(`order:${ref}`)), (_, state) => state.storage.getAlarm())
    const beyond = (hours: number) => Date.now() + (hours + 30 * 24) * 3_600_000 - 60_000
    const ref = uniqueId('inv-long')
    const res = await merchant<RegenAnswer>(
      'POST',
      `/v1/invoices/${await existingInvoice()}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '2000', merchantRedirectUrl: 'https://shop.example/done' },
      { 'Idempotency-Key': uniqueId('ik') },
    )
    expect(res.body.status).toBe('succeeded')
    expect(await alarmOf(ref)).toBeGreaterThan(beyond(2000))
    const s = await createSession({
      flow: undefined,
      methods: ['invoice'],
      invoiceId: await existingInvoice(),
      merchantInvoiceId: uniqueId('inv-long'),
      invoiceExpirationPeriod: '1000',
    })
    expect(await alarmOf(s.mtid)).toBeGreaterThan(beyond(1000))
  })

  it('refuses an invoice of 0 hours, which would be expired as it is made, with 400 and reaches no gateway', async () => {
    // The gateway calls about this invoice (other tests' objects may call it meanwhile).
    const ref = uniqueId('inv-0')
    const spy = vi.spyOn(globalThis, 'fetch')
    let res: Awaited<ReturnType<typeof merchant<{ error: { code: string; fields: unknown[] } }>>>
    let gatewayCalls: unknown[]
    try {
      res = await merchant<{ error: { code: string; fields: unknown[] } }>(
        'POST',
        `/v1/invoices/INV1/regenerate`,
        { merchantInvoiceId: ref, invoiceExpirationPeriod: '0' },
        { 'Idempotency-Key': uniqueId('ik') },
      )
      gatewayCalls = spy.mock.calls.filter(
        (c) =>
          String(c[0] instanceof Request ? c[0].url : c[0]).startsWith(env.GATEWAY_BASE_URL) &&
          String(c[1]?.body ?? '').includes(ref),
      )
    } finally {
      spy.mockRestore()
    }
    expect(res.status).toBe(400)
    expect(res.body.error.fields).toEqual([
      { field: 'invoiceExpirationPeriod', code: 'out_of_range', expected: 'whole hours as a string, "1" to "9999"' },
    ])
    expect(gatewayCalls).toEqual([])
  })

  it("a session's order reference cannot be an invoice's: the regeneration is 409 duplicate_order", async () => {
    const invoiceId = await existingInvoice()
    const s = await createSession()
    const res = await regenerate(invoiceId, uniqueId('ik'), s.mtid)
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'duplicate_order' })
  })

  it('20 concurrent regenerations of one reference under 20 keys: one invoice, the rest 409 duplicate_order', async () => {
    const invoiceId = await existingInvoice()
    const ref = uniqueId('inv-race')
    const answers = await Promise.all(Array.from({ length: 20 }, () => regenerate(invoiceId, uniqueId('ik'), ref)))
    expect(answers.filter((a) => a.status === 200 && a.body.status === 'succeeded')).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409 && a.body.error?.code === 'duplicate_order')).toHaveLength(19)
  })

  it('a key refused for other parameters leaves their reference free', async () => {
    const invoiceId = await existingInvoice()
    const key = uniqueId('ik')
    expect((await regenerate(invoiceId, key, uniqueId('first'))).status).toBe(200)
    const other = uniqueId('other')
    expect((await regenerate(invoiceId, key, other)).status).toBe(422)
    expect((await regenerate(invoiceId, uniqueId('ik'), other)).body.status).toBe('succeeded')
  })

  it('404 for an invoice that does not exist, and its reference stays free; the key still replays its 404', async () => {
    const ref = uniqueId('x')
    const key = uniqueId('ik')
    const res = await regenerate('INV000000', key, ref)
    expect(res.status).toBe(404)
    expect((await regenerate(await existingInvoice(), uniqueId('ik'), ref)).body.status).toBe('succeeded')
    const again = await regenerate('INV000000', key, ref)
    expect(again.status).toBe(404)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
  })
})

describe('the Idempotency-Key of a merchant operation', () => {
  it('missing or malformed, is refused before the operation: 400 naming the header and its rule (required, format), never its value', async () => {
    const paymentId = await initialPayment()
    await paymentEventually(paymentId) // its record, which the money routes read first
    const invoiceId = await existingInvoice()
    const operations: [string, string, unknown][] = [
      ['POST', `/v1/payments/${paymentId}/repeat`, { amount: '9.99', currency: 'EUR' }],
      ['POST', `/v1/payments/${paymentId}/refunds`, { amount: '1.00' }],
      ['DELETE', '/v1/registrations/R1234567890', undefined],
      [
        'POST',
        `/v1/invoices/${invoiceId}/regenerate`,
        {
          merchantInvoiceId: uniqueId('inv'),
          invoiceExpirationPeriod: '24',
          merchantRedirectUrl: 'https://shop.example/x',
        },
      ],
    ]
    for (const [method, path, body] of operations)
      for (const [headers, code] of [
        [{}, 'required'],
        [{ 'Idempotency-Key': 'bad key!' }, 'format'],
      ] as const) {
        const res = await merchant<{ error: { code: string; fields: unknown[] } }>(method, path, body, headers)
        expect(res.status, `${method} ${path}: ${code}`).toBe(400)
        expect(res.body.error.code).toBe('invalid_request')
        expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'Idempotency-Key', code })])
        expect(res.text).not.toContain('bad key!')
      }
    // A session may be created without one, not with a malformed one.
    const session = {
      flow: 'card',
      amount: '5.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('o'),
      allowedOrigins: [ORIGIN],
    }
    const malformed = await merchant<{ error: { fields: unknown[] } }>('POST', '/v1/sessions', session, {
      'Idempotency-Key': 'bad key!',
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.fields).toEqual([expect.objectContaining({ field: 'Idempotency-Key', code: 'format' })])
    expect((await merchant('POST', '/v1/sessions', session)).status).toBe(201)
    // Nothing was done: the payment has no refund.
    expect(await paymentEventually(paymentId)).toMatchObject({ refunds: [], amountRefunded: '0.00' })
  })
})
