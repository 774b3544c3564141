/**
 * Many merchants on one deployment (README, "Many merchants"): merchant profiles made through the
 * platform API, each merchant's own keys, credentials, webhooks and objects, and no route of one
 * merchant reaching another's. Over the public routes, with the sandbox gateway over real HTTP.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../shared/webhooks/sign.ts'
import { createPayClient, createPlatformClient } from '../../server/index.ts'
import { extraMember, extraMemberGateway, PLATFORM_SECRETS, SANDBOX, TEST_SECRETS } from '../../tools/credentials.ts'
import {
  browser,
  call,
  cardBody,
  deliverNotification,
  newProfile,
  ORIGIN,
  platform,
  webhooksAbout,
  type CreatedProfile,
} from './api.ts'
import { THREE_DS } from './outcome-support.ts'
import { checksum } from '../../shared/gateway/checksum.ts'
import { chargesFor, injectFault, uniqueId } from './helpers.ts'
import { timePasses, timeStandsStill } from './clock.ts'
import { frameTokenClaims } from '../../worker/frame/token.ts'

const PLATFORM = { Authorization: `Bearer ${PLATFORM_SECRETS.PLATFORM_API_KEY}` }

/** The gateway credentials of the sandbox's extra member `n`: a merchant of its own at the gateway. */
const memberGateway = extraMemberGateway

let unusedMember = 10
/** A profile on its own gateway member (extra member `member`, else one no other test uses), webhooks to the catcher. */
const newMerchant = (over: Record<string, unknown> = {}, member = unusedMember++): Promise<CreatedProfile> =>
  newProfile(member, { allowedOrigins: [ORIGIN], webhookUrl: `${env.CATCHER_URL}/webhooks`, ...over })

/** A merchant server's call with `key`. */
function as<T = Record<string, unknown>>(key: string, method: string, path: string, body?: unknown, headers = {}) {
  return call<T>(path, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

/** A browser's card pay on the session `s` from the shop's origin. */
const payAs = <T = Record<string, unknown>>(s: { id: string; clientSecret: string }, card: string) =>
  browser<T>(s, 'POST', '/pay', cardBody(card), { 'Idempotency-Key': uniqueId('k') })

interface Sale {
  session: string
  mtid: string
  paymentId: string
  registrationId: string
  operation: string
}

/** A session of `key`'s merchant, paid by card (a saved card), and a repeat of its payment. */
async function sale(key: string): Promise<Sale> {
  const mtid = uniqueId('mm')
  const created = await as<{ id: string; clientSecret: string }>(key, 'POST', '/v1/sessions', {
    flow: 'card',
    amount: '40.00',
    currency: 'EUR',
    merchantTransactionId: mtid,
    allowedOrigins: [ORIGIN],
    recurring: 'INITIAL',
    createRegistration: true,
  })
  expect(created.status).toBe(201)
  const paid = await payAs<{ status: string; paymentId: string; registrationId: string }>(
    created.body,
    '4111111111111111',
  )
  expect(paid.body.status).toBe('succeeded')
  // The payment's own record opens from the session's outbox a moment later.
  const deadline = Date.now() + 10_000
  while ((await as(key, 'GET', `/v1/payments/${paid.body.paymentId}`)).status !== 200 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100))
  const repeat = await as<{ id: string; status: string }>(
    key,
    'POST',
    `/v1/payments/${paid.body.paymentId}/repeat`,
    { amount: '5.00', currency: 'EUR' },
    { 'Idempotency-Key': uniqueId('rk') },
  )
  expect(repeat.body.status).toBe('succeeded')
  return {
    session: created.body.id,
    mtid,
    paymentId: paid.body.paymentId,
    registrationId: paid.body.registrationId,
    operation: repeat.body.id,
  }
}

describe('the platform API', () => {
  it('is 404 without PLATFORM_API_KEY, and 401 with another key', async () => {
    const app = exports.default
    const off = await (
      await import('../../worker/index.ts')
    ).default.fetch(new Request('http://worker.test/v1/platform/merchants', { headers: PLATFORM }), {
      ...env,
      PLATFORM_API_KEY: undefined,
    })
    expect(off.status).toBe(404)
    const wrong = await app.fetch(
      new Request('http://worker.test/v1/platform/merchants', { headers: { Authorization: 'Bearer pk_guess' } }),
    )
    expect(wrong.status).toBe(401)
    // The merchant's own key is not the partner's.
    const merchantKey = await app.fetch(
      new Request('http://worker.test/v1/platform/merchants', {
        headers: { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}` },
      }),
    )
    expect(merchantKey.status).toBe(401)
  })

  it('creates, reads, lists and changes a profile; no answer and no database row holds a secret', async () => {
    const secureKey = `secure-key-${uniqueId('s')}`
    const created = await newMerchant({ gateway: { ...memberGateway(1), secureKey, authToken: 'fixed-token-xyz' } }, 1)
    expect(created.apiKey.key).toMatch(/^mk_/)
    expect(created.webhookSecret).toMatch(/^whsec_/)
    const id = created.merchant.id
    const read = await platform('GET', `/merchants/${id}`)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ id, status: 'active', secrets: { secureKey: true, authToken: true } })
    const listed = await platform<{ data: { id: string }[] }>('GET', '/merchants?limit=100')
    expect(listed.body.data.map((m) => m.id)).toContain(id)
    const changed = await platform('PATCH', `/merchants/${id}`, { name: 'Renamed', clear: ['authToken'] })
    expect(changed.body).toMatchObject({ name: 'Renamed', secrets: { authToken: false } })
    for (const text of [read.text, listed.text, changed.text]) {
      for (const secret of [secureKey, 'fixed-token-xyz', created.apiKey.key, created.webhookSecret])
        expect(text).not.toContain(secret)
    }
    const row = await env.DB.prepare('SELECT * FROM merchants WHERE id = ?').bind(id).first()
    const keys = await env.DB.prepare('SELECT * FROM merchant_keys WHERE merchant_id = ?').bind(id).all()
    const stored = JSON.stringify([row, keys.results])
    for (const secret of [secureKey, created.apiKey.key, created.webhookSecret]) expect(stored).not.toContain(secret)
  })

  it('refuses a bad profile with the field and the rule, never the value', async () => {
    const res = await platform('POST', '/merchants', {
      name: 'Shop',
      gateway: { memberId: '10001', terminalId: '2001', secureKey: 'short-key' },
      allowedOrigins: ['https://shop.example/path'],
      webhookUrl: 'ftp://x',
    })
    expect(res.status).toBe(400)
    const fields = (res.body as { error: { fields: { field: string; code: string }[] } }).error.fields
    expect(fields.map((f) => f.field).sort()).toEqual(['allowedOrigins', 'gateway.secureKey', 'webhookUrl'])
    expect(res.text).not.toContain('short-key')
    // An origin the frame's CSP would read as any site, at creation or in a change.
    const { id } = (await newMerchant()).merchant
    const wildcard = await platform('PATCH', `/merchants/${id}`, { allowedOrigins: ['https://*'] })
    expect(wildcard.status).toBe(400)
    expect((wildcard.body as { error: { fields: { field: string }[] } }).error.fields.map((f) => f.field)).toEqual([
      'allowedOrigins',
    ])
  })

  it('refuses a gateway member another merchant of the deployment already is', async () => {
    await newMerchant({}, 6)
    for (const gateway of [memberGateway(6), { ...memberGateway(7), memberId: SANDBOX.memberId }]) {
      const res = await platform('POST', '/merchants', { name: 'Same member', gateway })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ error: { fields: [{ field: 'gateway.memberId', code: 'invalid_value' }] } })
    }
  })

  it('two profiles made or changed at the same moment never share a gateway member: one gets it, the others are 400', async () => {
    const member = unusedMember++
    const made = await Promise.all(
      [1, 2, 3, 4].map((n) => platform('POST', '/merchants', { name: `Racing ${n}`, gateway: memberGateway(member) })),
    )
    expect(made.map((r) => r.status).sort()).toEqual([201, 400, 400, 400])
    // Two profiles moved to one free member at once.
    const [a, b] = [await newMerchant(), await newMerchant()]
    const free = memberGateway(unusedMember++).memberId
    const moved = await Promise.all(
      [a, b].map((m) => platform('PATCH', `/merchants/${m.merchant.id}`, { gateway: { memberId: free } })),
    )
    expect(moved.map((r) => r.status).sort()).toEqual([200, 400])
    const members = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM merchants WHERE json_extract(profile, '$.gateway.memberId') IN (?, ?)",
    )
      .bind(memberGateway(member).memberId, free)
      .first<{ n: number }>()
    expect(members?.n).toBe(2)
  })
})

describe('the server SDK', () => {
  it('its platform client creates a merchant, whose own pay client then creates and reads a session', async () => {
    const fetch = (request: Request) => exports.default.fetch(request)
    const platform = createPlatformClient({
      baseUrl: 'http://worker.test',
      apiKey: PLATFORM_SECRETS.PLATFORM_API_KEY,
      fetch,
    })
    const { data, error } = await platform.POST('/v1/platform/merchants', {
      body: { name: 'SDK shop', gateway: memberGateway(unusedMember++) },
    })
    if (error) throw new Error(error.error.code)
    const pay = createPayClient({ baseUrl: 'http://worker.test', apiKey: data.apiKey.key, fetch })
    const created = await pay.POST('/v1/sessions', {
      body: { flow: 'card', amount: '12.00', currency: 'EUR', merchantTransactionId: uniqueId('sdk') },
    })
    if (created.error) throw new Error(created.error.error.code)
    const read = await pay.GET('/v1/sessions/{id}', { params: { path: { id: created.data.id } } })
    expect(read.data?.amount).toBe('12.00')
    const listed = await platform.GET('/v1/platform/merchants/{merchantId}', {
      params: { path: { merchantId: data.merchant.id } },
    })
    expect(listed.data?.apiKeys.map((k) => k.id)).toEqual([data.apiKey.id])
  })
})

describe('API keys rotate without downtime', () => {
  it('two keys work at once, a third is refused, and a revoked key gets 401 at once', async () => {
    const m = await newMerchant()
    const body = () => ({ flow: 'card', amount: '10.00', currency: 'EUR', merchantTransactionId: uniqueId('rot') })
    const next = await platform<{ id: string; key: string }>('POST', `/merchants/${m.merchant.id}/api-keys`)
    expect(next.status).toBe(201)
    expect((await as(m.apiKey.key, 'POST', '/v1/sessions', body())).status).toBe(201)
    expect((await as(next.body.key, 'POST', '/v1/sessions', body())).status).toBe(201)
    const third = await platform('POST', `/merchants/${m.merchant.id}/api-keys`)
    expect(third.status).toBe(409)
    expect(third.body).toMatchObject({ error: { code: 'limit_reached' } })
    expect((await platform('DELETE', `/merchants/${m.merchant.id}/api-keys/${m.apiKey.id}`)).status).toBe(200)
    expect((await as(m.apiKey.key, 'POST', '/v1/sessions', body())).status).toBe(401)
    expect((await as(next.body.key, 'POST', '/v1/sessions', body())).status).toBe(201)
  })

  it('a disabled merchant’s keys get 401 and its checkouts are gone for shoppers', async () => {
    const m = await newMerchant()
    const s = await as<{ id: string; clientSecret: string }>(m.apiKey.key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '10.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('off'),
    })
    expect((await platform('PATCH', `/merchants/${m.merchant.id}`, { status: 'disabled' })).status).toBe(200)
    expect((await as(m.apiKey.key, 'GET', `/v1/sessions/${s.body.id}`)).status).toBe(401)
    const checkout = await call(`/v1/checkout/${s.body.id}`, {
      headers: { Authorization: `Bearer ${s.body.clientSecret}`, Origin: ORIGIN },
    })
    expect(checkout.status).toBe(404)
    const pay = await payAs(s.body, '4111111111111111')
    expect(pay.status).toBe(404)
  })
})

describe("a profile's own credentials, webhooks and secrets", () => {
  it('pays on its own gateway member and its webhooks come to its URL signed with its secrets, both during a roll', async () => {
    const m = await newMerchant({}, 4)
    const next = await platform<{ secret: string }>('POST', `/merchants/${m.merchant.id}/webhook-secrets`)
    const { mtid } = await sale(m.apiKey.key)
    // Charged at its own member (the sandbox keeps each member's ledger), not the default merchant's.
    expect(await chargesFor(mtid)).toBe(0)
    expect(await chargesFor(mtid, extraMember(4).memberId)).toBe(1)
    const [event] = await webhooksAbout(mtid, 1, 10_000, 'checkout.session.succeeded')
    const header = event?.signature ?? ''
    expect(header.match(/v1=/g)).toHaveLength(2)
    for (const secret of [m.webhookSecret, next.body.secret])
      expect(await verifyWebhook(event?.body ?? '', header, secret)).toMatchObject({ ok: true })
    // Not the default merchant's secret: each merchant verifies its own.
    expect(await verifyWebhook(event?.body ?? '', header, TEST_SECRETS.WEBHOOK_SECRET)).toMatchObject({ ok: false })
  })

  it('a profile with a wrong secure key is refused by the gateway, charged nothing, while the default merchant pays', async () => {
    const m = await newMerchant({ gateway: { ...memberGateway(5), secureKey: 'not-the-member-secure-key' } }, 5)
    const mtid = uniqueId('wrongkey')
    const s = await as<{ id: string; clientSecret: string }>(m.apiKey.key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '10.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
    })
    const paid = await payAs<{ status: string }>(s.body, '4111111111111111')
    expect(paid.body.status).not.toBe('succeeded')
    expect(await chargesFor(mtid, extraMember(5).memberId)).toBe(0)
    expect((await sale(TEST_SECRETS.MERCHANT_API_KEY)).paymentId).toBeTruthy()
  })

  it("a profile's session's frame token names the profile's origins, and the card frame takes them from it as from the session", async () => {
    const m = await newMerchant({ allowedOrigins: ['https://profile-shop.example'] })
    const s = await as<{ id: string; frameToken: string }>(m.apiKey.key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '10.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('ft'),
    })
    const ancestors = async (path: string) =>
      /frame-ancestors ([^;]*)/.exec((await call(path)).headers.get('Content-Security-Policy') ?? '')?.[1]
    expect(await ancestors(`/frame/${s.body.id}?t=${s.body.frameToken}`)).toBe('https://profile-shop.example')
    expect(await ancestors(`/frame/${s.body.id}`)).toBe('https://profile-shop.example')
    // Signed under the profile's configuration, believed under the deployment's (the route's).
    expect(await frameTokenClaims(env, s.body.id, s.body.frameToken)).toEqual({
      origins: ['https://profile-shop.example'],
      prefilled: [],
    })
  })
})

describe("a profile's secure key rotates with an overlap", () => {
  /** A session of `key`'s merchant waiting on the bank page (3-D Secure): only a notification settles it. */
  async function waitingOnTheBank(key: string): Promise<{ id: string; mtid: string; paymentId: string }> {
    const mtid = uniqueId('sk')
    const s = await as<{ id: string; clientSecret: string }>(key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
    })
    const paid = await payAs<{ status: string; paymentId: string }>(s.body, THREE_DS)
    expect(paid.body.status).toBe('action_required')
    return { id: s.body.id, mtid, paymentId: paid.body.paymentId }
  }
  async function notify(s: { id: string; mtid: string; paymentId: string }, secureKey: string) {
    const fields = { paymentId: s.paymentId, merchantTransactionId: s.mtid, amount: '100.00', transactionStatus: 'Y' }
    const sum = await checksum('notification', { ...fields, secureKey })
    return deliverNotification(s.id, JSON.stringify({ ...fields, currency: 'EUR', checksum: sum.ok ? sum.value : '' }))
  }

  it('events waiting when the merchant’s webhook address is cleared are sent once it is set again', async () => {
    const m = await newMerchant()
    // The receiver fails the first nine tries of each of this order's events: they wait in the
    // session's outbox.
    const mtid = uniqueId('fail9')
    const created = await as<{ id: string; clientSecret: string }>(m.apiKey.key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '12.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
    })
    expect((await payAs<{ status: string }>(created.body, '4111111111111111')).body.status).toBe('succeeded')
    const session = env.SESSIONS.get(env.SESSIONS.idFromName(created.body.id)) as unknown as DurableObjectStub
    // Time passes for the outbox too: each waiting event's next try is due (its backoff has run).
    const later = async () => {
      await runInDurableObject(session, async (_, state) => {
        for (const [key, item] of await state.storage.list<{ next: number }>({ prefix: 'outbox:' }))
          await state.storage.put(key, { ...item, next: Date.now() - 1 })
      })
      await timePasses(session)
    }
    expect((await platform('PATCH', `/merchants/${m.merchant.id}`, { clear: ['webhookUrl'] })).status).toBe(200)
    await later() // its next try, with no address to send to
    const url = `${env.CATCHER_URL}/webhooks`
    expect((await platform('PATCH', `/merchants/${m.merchant.id}`, { webhookUrl: url })).status).toBe(200)
    // Time passes: the tries go on (the receiver's failures, nine for each of the two events, among
    // them) and the events arrive.
    let delivered: unknown[] = []
    for (let i = 0; i < 25 && delivered.length === 0; i++) {
      await later()
      delivered = await webhooksAbout(mtid, 1, 300, 'checkout.session.succeeded')
    }
    expect(delivered).toHaveLength(1)
  })

  it('notifications under the key before the change settle until the overlap ends; then only the new key signs', async () => {
    const member = unusedMember++
    const m = await newMerchant({}, member)
    const before = extraMember(member).secureKey
    const first = await waitingOnTheBank(m.apiKey.key)
    const second = await waitingOnTheBank(m.apiKey.key)
    const next = 'the-rotated-secure-key-0001'
    const rotated = await platform('PATCH', `/merchants/${m.merchant.id}`, { gateway: { secureKey: next } })
    expect(rotated.body).toMatchObject({ secrets: { secureKeyPrevious: true } })
    expect(rotated.text).not.toContain(next)
    expect((await notify(first, 'a-key-nobody-has')).status).toBe(401)
    expect((await notify(first, before)).body).toMatchObject({ applied: true, status: 'succeeded' })
    await platform('PATCH', `/merchants/${m.merchant.id}`, { endSecureKeyOverlap: true })
    expect((await notify(second, before)).status).toBe(401)
    expect((await notify(second, next)).body).toMatchObject({ applied: true, status: 'succeeded' })
  })
})

describe('no merchant reaches another merchant’s sessions, payments, operations or listings', () => {
  const merchants: { name: string; key: string; id?: string; sale?: Sale }[] = [
    { name: 'the default merchant', key: TEST_SECRETS.MERCHANT_API_KEY },
  ]

  beforeAll(async () => {
    for (const [n, member] of [
      ['profile B', 2],
      ['profile C', 3],
    ] as const) {
      const created = await newMerchant({}, member)
      merchants.push({ name: n, key: created.apiKey.key, id: created.merchant.id })
    }
    for (const m of merchants) m.sale = await sale(m.key)
  }, 60_000)

  it('every merchant route with another merchant’s ids answers 404, and listings hold only the caller’s', async () => {
    for (const me of merchants)
      for (const other of merchants) {
        if (me === other) continue
        const theirs = other.sale as Sale
        const key = { 'Idempotency-Key': uniqueId('x') }
        const tries: [string, string, unknown?, Record<string, string>?][] = [
          ['GET', `/v1/sessions/${theirs.session}`],
          ['GET', `/v1/payments/${theirs.paymentId}`],
          ['POST', `/v1/payments/${theirs.paymentId}/capture`, {}, key],
          ['POST', `/v1/payments/${theirs.paymentId}/void`, {}, key],
          ['POST', `/v1/payments/${theirs.paymentId}/refunds`, { amount: '1.00' }, key],
          ['GET', `/v1/operations/${theirs.operation}`],
          // Asked of the gateway with the caller's credentials: another member's card is not found there.
          ['DELETE', `/v1/registrations/${theirs.registrationId}`, undefined, { 'Idempotency-Key': uniqueId('d') }],
        ]
        // A profile's repeat must name one of its payments; the gateway knows the others by member.
        if (me.key !== TEST_SECRETS.MERCHANT_API_KEY)
          tries.push(['POST', `/v1/payments/${theirs.paymentId}/repeat`, { amount: '5.00', currency: 'EUR' }, key])
        // Asked of the gateway with the caller's credentials: another member's payment is not found there.
        tries.push(['POST', `/v1/payments/${theirs.paymentId}/inquiry`, {}])
        for (const [method, path, body, headers] of tries) {
          const res = await as(me.key, method, path, body, headers)
          expect(`${me.name} ${method} ${path}: ${res.status}`).toBe(`${me.name} ${method} ${path}: 404`)
        }
      }
    // Listings: each merchant finds its own order (once the index has it) and never another's.
    for (const me of merchants) {
      const mine = me.sale as Sale
      for (const list of ['/v1/payments', '/v1/sessions'])
        await expect
          .poll(
            async () => (await as<{ data: unknown[] }>(me.key, 'GET', `${list}?order=${mine.mtid}`)).body.data.length,
            {
              timeout: 10_000,
            },
          )
          .toBe(1)
      const operations = await as<{ data: { id: string }[] }>(me.key, 'GET', '/v1/operations?limit=100')
      for (const other of merchants) {
        if (other === me) continue
        const theirs = other.sale as Sale
        for (const list of ['/v1/payments', '/v1/sessions'])
          expect((await as<{ data: unknown[] }>(me.key, 'GET', `${list}?order=${theirs.mtid}`)).body.data).toEqual([])
        expect(operations.body.data.map((o) => o.id)).not.toContain(theirs.operation)
      }
    }
    // Webhook deliveries: each merchant sees its own events and can send none of another's again.
    const events = new Map<string, string>()
    for (const me of merchants) {
      const mine = me.sale as Sale
      const path = `/v1/webhooks/deliveries?session=${mine.session}`
      await expect
        .poll(async () => (await as<{ data: unknown[] }>(me.key, 'GET', path)).body.data.length, { timeout: 10_000 })
        .toBeGreaterThan(0)
      events.set(me.key, (await as<{ data: { id: string }[] }>(me.key, 'GET', path)).body.data[0]?.id ?? '')
    }
    for (const me of merchants)
      for (const other of merchants) {
        if (other === me) continue
        const theirs = other.sale as Sale
        const listed = await as<{ data: unknown[] }>(me.key, 'GET', `/v1/webhooks/deliveries?session=${theirs.session}`)
        expect(listed.body.data).toEqual([])
        const again = await as(me.key, 'POST', `/v1/webhooks/deliveries/${events.get(other.key)}/send-again`)
        expect(`${me.name} sends ${other.name}'s event again: ${again.status}`).toBe(
          `${me.name} sends ${other.name}'s event again: 404`,
        )
      }
  })

  it('a payment id one merchant’s session is told of (a notification it signed itself) is a row of its own: another merchant’s row and metadata with that id stay theirs, and each one’s events have ids of their own', async () => {
    const [a, b] = merchants
    const theirs = a?.sale as Sale
    const key = b?.key ?? ''
    // B's charge is sent and its answer lost: its attempt names no payment yet.
    const mtid = uniqueId('claim')
    const created = await as<{ id: string; clientSecret: string }>(key, 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '999.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
      metadata: { tag: 'from-b' },
    })
    await injectFault(
      { op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: mtid, times: 1 },
      extraMember(2).memberId,
    )
    expect((await payAs<{ status: string }>(created.body, '4111111111111111')).body.status).toBe('unknown')
    await timeStandsStill(env.SESSIONS.get(env.SESSIONS.idFromName(created.body.id)) as unknown as DurableObjectStub)
    // B signs a notification for it naming A's payment id: B's session takes it as its own.
    const fields = {
      paymentId: theirs.paymentId,
      merchantTransactionId: mtid,
      amount: '999.00',
      transactionStatus: 'Y',
    }
    const sum = await checksum('notification', { ...fields, secureKey: extraMember(2).secureKey })
    const note = JSON.stringify({ ...fields, currency: 'EUR', checksum: sum.ok ? sum.value : '' })
    expect((await deliverNotification(created.body.id, note)).body).toMatchObject({ applied: true })
    // Each merchant's index has its own row under that id.
    await expect
      .poll(async () => (await as<{ data: unknown[] }>(key, 'GET', `/v1/payments?order=${mtid}`)).body.data.length, {
        timeout: 10_000,
      })
      .toBe(1)
    const mine = await as<{ data: { id: string; amount: string; merchantTransactionId: string }[] }>(
      a?.key ?? '',
      'GET',
      `/v1/payments?order=${theirs.mtid}`,
    )
    expect(mine.body.data).toEqual([
      expect.objectContaining({ id: theirs.paymentId, amount: '40.00', merchantTransactionId: theirs.mtid }),
    ])
    expect((await as<{ data: unknown[] }>(a?.key ?? '', 'GET', '/v1/payments?metadata[tag]=from-b')).body.data).toEqual(
      [],
    )
    expect(
      (await as<{ data: unknown[] }>(a?.key ?? '', 'GET', '/v1/payments?amount=999.00&limit=100')).body.data,
    ).not.toContainEqual(expect.objectContaining({ id: theirs.paymentId }))
    // The same change of each merchant's record with that id is an event of its own: a refund of
    // each, both unanswered, are two refund.unknown events with two ids (one receiver may serve both).
    await injectFault({ op: 'refund', fault: 'http500', field: 'id', value: theirs.paymentId })
    await injectFault({ op: 'refund', fault: 'http500', field: 'id', value: theirs.paymentId }, extraMember(2).memberId)
    for (const k of [a?.key ?? '', key]) {
      const refund = await as<{ operation?: { status: string } }>(
        k,
        'POST',
        `/v1/payments/${theirs.paymentId}/refunds`,
        { amount: '1.00' },
        { 'Idempotency-Key': uniqueId('re') },
      )
      expect(refund.body.operation?.status).toBe('unknown')
    }
    const idOf = async (order: string) =>
      (JSON.parse((await webhooksAbout(order, 1, 10_000, 'refund.unknown'))[0]?.body ?? '{}') as { id?: string }).id
    const [aEvent, bEvent] = [await idOf(theirs.mtid), await idOf(mtid)]
    expect(aEvent).toMatch(/^evt_/)
    expect(bEvent).toMatch(/^evt_/)
    expect(aEvent).not.toBe(bEvent)
  })

  it('a notification the default merchant signs naming a payment id with a slash (a profile’s object name) is refused: 400 naming paymentId, and no record opens in the profile’s name', async () => {
    const [a, b] = merchants
    const mtid = uniqueId('squat')
    const created = await as<{ id: string; clientSecret: string }>(a?.key ?? '', 'POST', '/v1/sessions', {
      flow: 'card',
      amount: '1.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      allowedOrigins: [ORIGIN],
    })
    await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: mtid, times: 1 })
    expect((await payAs<{ status: string }>(created.body, '4111111111111111')).body.status).toBe('unknown')
    await timeStandsStill(env.SESSIONS.get(env.SESSIONS.idFromName(created.body.id)) as unknown as DurableObjectStub)
    const planted = uniqueId('planted')
    const fields = {
      paymentId: `${b?.id ?? ''}/${planted}`,
      merchantTransactionId: mtid,
      amount: '1.00',
      transactionStatus: 'Y',
    }
    const sum = await checksum('notification', { ...fields, secureKey: TEST_SECRETS.SECURE_KEY })
    const note = JSON.stringify({ ...fields, currency: 'EUR', checksum: sum.ok ? sum.value : '' })
    const refused = await deliverNotification(created.body.id, note)
    expect([refused.status, refused.body]).toEqual([
      400,
      expect.objectContaining({ error: expect.objectContaining({ fields: [{ field: 'paymentId', code: 'format' }] }) }),
    ])
    expect(refused.text).not.toContain(planted)
    // Nothing was opened under the profile's name: its lookup of that id finds no payment.
    expect((await as(b?.key ?? '', 'GET', `/v1/payments/${planted}`)).status).toBe(404)
    expect((await as<{ status: string }>(a?.key ?? '', 'GET', `/v1/sessions/${created.body.id}`)).body.status).toBe(
      'unknown',
    )
  })

  it('the default merchant’s repeat of a profile’s payment reaches no charge: the gateway has no such payment for its member', async () => {
    const [a, b] = merchants
    const theirs = b?.sale as Sale
    const res = await as<{ status: string; merchantTransactionId: string }>(
      a?.key ?? '',
      'POST',
      `/v1/payments/${theirs.paymentId}/repeat`,
      { amount: '5.00', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('x') },
    )
    expect(res.body.status).not.toBe('succeeded')
    expect(await chargesFor(res.body.merchantTransactionId)).toBe(0)
  })

  it('deleting another merchant’s saved card deletes nothing of theirs: their card still pays', async () => {
    const [, b, c] = merchants
    const theirs = c?.sale as Sale
    const refused = await as(b?.key ?? '', 'DELETE', `/v1/registrations/${theirs.registrationId}`, undefined, {
      'Idempotency-Key': uniqueId('d'),
    })
    expect(refused.status).toBe(404)
    const repeat = await as<{ status: string }>(
      c?.key ?? '',
      'POST',
      `/v1/payments/${theirs.paymentId}/repeat`,
      { amount: '3.00', currency: 'EUR' },
      { 'Idempotency-Key': uniqueId('rk') },
    )
    expect(repeat.body.status).toBe('succeeded')
  })

  it('order references and Idempotency-Keys are each merchant’s own: the same ones make a session for each', async () => {
    const mtid = uniqueId('same')
    const key = uniqueId('same-key')
    const ids = new Set<string>()
    for (const m of merchants) {
      const res = await as<{ id: string }>(
        m.key,
        'POST',
        '/v1/sessions',
        { flow: 'card', amount: '10.00', currency: 'EUR', merchantTransactionId: mtid },
        { 'Idempotency-Key': key },
      )
      expect(res.status).toBe(201)
      expect(res.headers.get('Idempotent-Replayed')).toBeNull()
      ids.add(res.body.id)
    }
    expect(ids.size).toBe(merchants.length)
  })
})
