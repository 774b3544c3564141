/**
 * Hardening (issue 11): gateway-supplied redirects, body limits, webhook verification options,
 * URLs in logs, session-existence oracles, rate limits. Everything over the Worker's public
 * surfaces (`exports.default.fetch`), with the sandbox gateway over real HTTP.
 */
import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { OPERATION_PATHS } from '../../shared/fields.ts'
import { signatureHeader, verifyWebhook } from '../../shared/webhooks/sign.ts'
import { browser, call, createSession, merchant, pay, sessionState } from './api.ts'
import { frameToken, frameTokenClaims } from '../../worker/frame/token.ts'
import { derivedKey, hmacHex } from '../../worker/ids.ts'
import { encodeBase64Url } from 'hono/utils/encode'
import { client, uniqueId } from './helpers.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

/** Every line the Worker logs while `run` runs (the setup file scans them for leaks too). */
async function logsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = []
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
    }),
  )
  try {
    await run()
  } finally {
    for (const spy of spies) spy.mockRestore()
  }
  return lines
}

describe('verifyWebhook options (R27)', () => {
  const body = JSON.stringify({ id: 'evt_tolerance', type: 'checkout.session.succeeded', created: 1, data: {} })

  it('refuses a tolerance that is NaN, Infinity, zero or negative with a TypeError, even for a ten-year-old signature', async () => {
    const tenYearsAgo = Math.floor(Date.now() / 1000) - 10 * 365 * 24 * 3600
    const header = await signatureHeader('whsec_a', body, tenYearsAgo)
    for (const toleranceS of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      0,
      -5,
      Number(undefined),
    ]) {
      await expect(verifyWebhook(body, header, 'whsec_a', { toleranceS })).rejects.toThrow(TypeError)
    }
    // The default and any finite positive tolerance still reject it as too old.
    expect(await verifyWebhook(body, header, 'whsec_a')).toEqual({ ok: false, reason: 'too_old' })
    expect(await verifyWebhook(body, header, 'whsec_a', { toleranceS: 86_400 })).toEqual({
      ok: false,
      reason: 'too_old',
    })
  })

  it('skips an empty or unset secret of a roll, throws when none is left, takes Node’s header array, and refuses a signed body that is no event', async () => {
    const header = await signatureHeader('whsec_a', body)
    // Before a roll: the second secret's variable is unset or empty.
    for (const secrets of [
      ['whsec_a', undefined],
      ['', 'whsec_a'],
      ['whsec_a', ''],
    ])
      expect((await verifyWebhook(body, header, secrets)).ok).toBe(true)
    for (const secrets of [undefined, '', ['', undefined], []])
      await expect(verifyWebhook(body, header, secrets)).rejects.toThrow(TypeError)
    // Node's `req.headers` gives a repeated header as an array.
    const [time, signature] = header.split(',')
    expect((await verifyWebhook(body, [time ?? '', signature ?? ''], 'whsec_a')).ok).toBe(true)
    // Signed, but not an event: no type, no data, or no time.
    for (const notAnEvent of [
      { id: 'evt_x' },
      { id: 'evt_x', type: 't', created: 1 },
      { id: 'evt_x', type: 't', data: {} },
    ]) {
      const raw = JSON.stringify(notAnEvent)
      expect(await verifyWebhook(raw, await signatureHeader('whsec_a', raw), 'whsec_a')).toEqual({
        ok: false,
        reason: 'malformed_body',
      })
    }
  })

  it('answers replayed when the seen hook has the event id, and calls it only for a valid signature', async () => {
    const header = await signatureHeader('whsec_a', body)
    const ids = new Set<string>()
    const asked: string[] = []
    const seen = (id: string): boolean => {
      asked.push(id)
      if (ids.has(id)) return true
      ids.add(id)
      return false
    }
    expect((await verifyWebhook(body, header, 'whsec_a', { seen })).ok).toBe(true)
    expect(await verifyWebhook(body, header, 'whsec_a', { seen })).toEqual({ ok: false, reason: 'replayed' })
    expect(await verifyWebhook(body, header, 'whsec_b', { seen })).toEqual({ ok: false, reason: 'bad_signature' })
    expect(await verifyWebhook(body, header, 'whsec_a', { seen: async () => true })).toEqual({
      ok: false,
      reason: 'replayed',
    })
    expect(asked).toEqual(['evt_tolerance', 'evt_tolerance'])
  })
})

describe('URLs in logs (R25)', () => {
  it('a 3-D Secure return with ?checksum=... is logged without the checksum value, by GET and by POST', async () => {
    const s = await createSession()
    const sum = 'c0ffee'.repeat(5) + 'ab'
    const query = new URLSearchParams({
      paymentId: '123456',
      merchantTransactionId: s.mtid,
      status: 'Y',
      amount: '100.00',
      checksum: sum,
    })
    let getStatus = 0
    let postStatus = 0
    const lines = await logsDuring(async () => {
      getStatus = (await call(`/v1/return/${s.id}?${query}`)).status
      postStatus = (
        await call(`/v1/return/${s.id}#checksum=${sum}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: query.toString(),
        })
      ).status
    })
    expect(getStatus).toBe(200)
    // The return route takes POST too: the checksum then travels in the body, not in the URL.
    expect(postStatus).toBe(200)
    const returns = lines.filter((l) => l.includes('shopper_return'))
    expect(returns).toHaveLength(2)
    for (const line of returns) expect(line).toContain(`/v1/return/${s.id}`)
    expect(lines.join('\n')).not.toContain(sum)
    expect(lines.join('\n')).not.toContain(s.mtid)
  })

  it('strips query strings by shape inside any logged text and by key for url-like keys', async () => {
    const { log } = await import('../../worker/log.ts')
    const lines = await logsDuring(async () => {
      log.info('probe', {
        message: 'fetch failed for https://gw.example/pay?checksum=deadbeefdeadbeefdeadbeefdeadbeef&x=1 (timeout)',
        returnUrl: 'not even a URL?checksum=cafebabecafebabecafebabecafebabe',
        nested: { location: 'https://shop.example/done#token=abc123abc123' },
        plain: 'http://127.0.0.1:8787/v1/return/cs_x?checksum=0123456789abcdef0123456789abcdef',
      })
    })
    const text = lines.join('\n')
    for (const secret of ['deadbeef', 'cafebabe', 'abc123abc123', '0123456789abcdef'])
      expect(text).not.toContain(secret)
    expect(text).toContain('https://gw.example/pay?[query]')
    expect(text).toContain('http://127.0.0.1:8787/v1/return/cs_x?[query]')
  })
})

/**
 * The gateway stand-in answers a 3-D Secure step whose redirect is rewritten on the wire: the
 * sandbox processes the payment, then the answer the Worker reads carries `redirect`.
 */
function tamperRedirect(rewrite: (redirect: Record<string, unknown>) => void): { rewritten: number } {
  const seen = { rewritten: 0 }
  const realFetch = globalThis.fetch
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const res = await realFetch.call(globalThis, input, init)
    const url = input instanceof Request ? input.url : String(input)
    if (!url.startsWith(env.GATEWAY_BASE_URL) || new URL(url).pathname !== OPERATION_PATHS.payment) return res
    const body = (await res.json()) as { redirect?: Record<string, unknown> }
    if (body.redirect) {
      rewrite(body.redirect)
      seen.rewritten += 1
    }
    return new Response(JSON.stringify(body), { status: res.status, headers: { 'Content-Type': 'application/json' } })
  })
  return seen
}

describe('gateway-supplied 3-D Secure redirects (R28)', () => {
  it.each([
    ['a javascript: target', (r: Record<string, unknown>) => void (r.url = 'javascript:alert(document.domain)//')],
    ['a data: target', (r: Record<string, unknown>) => void (r.url = 'data:text/html,<script>alert(1)</script>')],
    [
      'a plain-http target off this machine',
      (r: Record<string, unknown>) => void (r.url = 'http://acs.example/challenge'),
    ],
    ['a method other than GET or POST', (r: Record<string, unknown>) => void (r.method = 'DIALOG')],
    [
      'a parameter that is not a string',
      (r: Record<string, unknown>) => void (r.parameters = [{ name: 'PaReq', value: { toString: 'x' } }]),
    ],
  ])('%s is never passed to the browser: the outcome is unknown and settles by inquiry', async (_, rewrite) => {
    const tampered = tamperRedirect(rewrite)
    const s = await createSession()
    const res = await pay(s, '4000000000003220')
    vi.restoreAllMocks()
    expect(tampered.rewritten).toBe(1)
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('unknown')
    expect(res.body).not.toHaveProperty('redirect')
    for (const text of [res.text, (await browser(s, 'GET', '')).text, JSON.stringify(await sessionState(s.id))]) {
      expect(text).not.toMatch(/javascript:|data:text|acs\.example|DIALOG/)
    }
  })

  it('a sandbox redirect (http on 127.0.0.1, POST, string parameters) still reaches the browser', async () => {
    const s = await createSession()
    const res = await pay(s, '4000000000003220')
    expect(res.body.status).toBe('action_required')
    expect(res.body.redirect?.url).toMatch(new RegExp(`^${env.GATEWAY_BASE_URL}/acs/`))
  })
})

describe('gateway-supplied invoice pay links (R28)', () => {
  it('an invoice regenerated through the merchant route never passes on a javascript: pay link', async () => {
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('inv'),
      amount: '20.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
    })
    if (created.kind !== 'succeeded' || !created.response.systemInvoiceId) throw new Error(created.kind)
    const realFetch = globalThis.fetch
    let rewritten = 0
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const res = await realFetch.call(globalThis, input, init)
      const url = input instanceof Request ? input.url : String(input)
      if (!url.startsWith(env.GATEWAY_BASE_URL) || new URL(url).pathname !== OPERATION_PATHS.invoiceRegenerate)
        return res
      const body = (await res.json()) as { invoiceDetails?: { transactionUrl?: string } }
      if (body.invoiceDetails) body.invoiceDetails.transactionUrl = 'javascript:alert(document.domain)//'
      rewritten += 1
      return new Response(JSON.stringify(body), { status: res.status, headers: { 'Content-Type': 'application/json' } })
    })
    const ref = uniqueId('inv-new')
    const res = await merchant<{ status: string; invoice?: Record<string, unknown> }>(
      'POST',
      `/v1/invoices/${created.response.systemInvoiceId}/regenerate`,
      { merchantInvoiceId: ref, invoiceExpirationPeriod: '24', merchantRedirectUrl: 'https://shop.example/done' },
      { 'Idempotency-Key': uniqueId('k') },
    )
    vi.restoreAllMocks()
    expect(rewritten).toBe(1)
    expect(res.body).toMatchObject({ status: 'succeeded', invoice: { merchantInvoiceId: ref } })
    expect(res.body.invoice).not.toHaveProperty('transactionUrl')
    expect(res.text).not.toContain('javascript:')
  })
})

/** A body of `total` bytes in `chunk`-byte pieces, produced only as it is read; counts what was read. */
function countedBody(total: number, chunk = 4096): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0
  const piece = new Uint8Array(chunk).fill(0x20)
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= total) return controller.close()
        sent += chunk
        controller.enqueue(piece)
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, pulled: () => sent }
}

describe('request bodies are limited before they are read (R24)', () => {
  const routes = async (): Promise<[string, string, Record<string, string>][]> => {
    const s = await createSession()
    return [
      [
        '/pay',
        `/v1/checkout/${s.id}/pay`,
        {
          Authorization: `Bearer ${s.clientSecret}`,
          Origin: 'https://shop.example',
          'Content-Type': 'application/json',
          'Idempotency-Key': 'big-body',
        },
      ],
      ['the notification route', `/v1/notifications/${s.id}`, { 'Content-Type': 'application/json' }],
    ]
  }

  it('a Content-Length over 16 KB is answered 413 payload_too_large without reading the body, on /pay and the notification route', async () => {
    for (const [name, path, headers] of await routes()) {
      const body = countedBody(90 * 1024 * 1024)
      const res = await call(path, {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(90 * 1024 * 1024) },
        body: body.stream,
      })
      expect(res.status, name).toBe(413)
      expect(res.body, name).toEqual({ error: { code: 'payload_too_large', message: expect.any(String) } })
      expect(body.pulled(), name).toBeLessThanOrEqual(64 * 1024)
    }
  })

  it('a chunked body without Content-Length is cut off once it passes 16 KB and answered 413, on /pay and the notification route', async () => {
    for (const [name, path, headers] of await routes()) {
      const body = countedBody(20 * 1024 * 1024)
      const res = await call(path, { method: 'POST', headers, body: body.stream })
      expect(res.status, name).toBe(413)
      expect(res.body, name).toEqual({ error: { code: 'payload_too_large', message: expect.any(String) } })
      // Read up to the limit and a chunk or two beyond, never the 20 MB.
      expect(body.pulled(), name).toBeLessThanOrEqual(64 * 1024)
    }
  })

  it('a body under the limit still reaches the route', async () => {
    const s = await createSession()
    const res = await call(`/v1/notifications/${s.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(8 * 1024) }),
    })
    expect(res.status).toBe(400)
    expect((res.body as { error: { code: string } }).error.code).toBe('invalid_request')
  })
})

describe('whether a session exists is told to no one without its secret (R21)', () => {
  const ORIGIN = 'https://shop.example'
  const unknownId = 'cs_' + 'Z'.repeat(24)
  /** A frame token over `claim` as the Worker's key signs it: what a claim of any shape makes the route do. */
  const signFrameClaim = async (id: string, claim: string) => {
    const key = await derivedKey(env.MERCHANT_SECRETS_KEY ?? '', 'frame-token')
    const body = encodeBase64Url(new TextEncoder().encode(claim).buffer).replace(/=+$/, '')
    return `${body}.${(await hmacHex(key, `${id}|${claim}`)).slice(0, 32)}`
  }

  it('an unknown session, a wrong secret, another session’s secret and no secret get the same 404 and body', async () => {
    const a = await createSession()
    const b = await createSession()
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['POST', '/pay', '{}'],
      ['POST', '/qr/verify', '{}'],
      ['POST', '/invoice/regenerate', '{}'],
    ] as const) {
      const ask = (id: string, secret?: string) =>
        call(`/v1/checkout/${id}${path}`, {
          method,
          headers: {
            Origin: ORIGIN,
            'Content-Type': 'application/json',
            'Idempotency-Key': 'k-oracle',
            ...(secret ? { Authorization: `Bearer ${secret}` } : {}),
          },
          ...(body === undefined ? {} : { body }),
        })
      const answers = [
        await ask(unknownId, `${unknownId}_secret_${'x'.repeat(43)}`),
        await ask(unknownId),
        await ask('not-an-id', a.clientSecret),
        await ask(a.id, `${a.id}_secret_${'x'.repeat(43)}`),
        await ask(a.id, b.clientSecret),
        await ask(a.id),
      ]
      for (const res of answers) {
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.text, `${method} ${path}`).toBe(answers[0]?.text)
        expect(res.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN)
      }
      expect(answers[0]?.body).toEqual({ error: { code: 'not_found', message: 'No such checkout.' } })
    }
  })

  it('a preflight from an allowed origin is answered alike for a known and an unknown session; a foreign one is 403 for both', async () => {
    const s = await createSession()
    const preflight = (id: string, origin: string) =>
      call(`/v1/checkout/${id}/pay`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
        },
      })
    const [known, unknown] = [await preflight(s.id, ORIGIN), await preflight(unknownId, ORIGIN)]
    expect(known.status).toBe(204)
    expect(unknown.status).toBe(204)
    expect([...known.headers].sort()).toEqual([...unknown.headers].sort())
    expect(known.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN)
    expect((await preflight(s.id, 'https://evil.example')).status).toBe(403)
    expect((await preflight(unknownId, 'https://evil.example')).status).toBe(403)
  })

  it('a request the browser marks Sec-Fetch-Site: cross-site is refused with 403 unless its Origin is allowed, even with the right secret', async () => {
    const s = await createSession()
    const ask = (headers: Record<string, string>) =>
      call(`/v1/checkout/${s.id}`, { headers: { Authorization: `Bearer ${s.clientSecret}`, ...headers } })
    const noOrigin = await ask({ 'Sec-Fetch-Site': 'cross-site' })
    expect(noOrigin.status).toBe(403)
    expect(noOrigin.body).toEqual({ error: { code: 'forbidden', message: expect.any(String) } })
    const foreign = await ask({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect((await ask({ 'Sec-Fetch-Site': 'cross-site', Origin: ORIGIN })).status).toBe(200)
    expect((await ask({ 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200)
    expect((await ask({})).status).toBe(200)
  })

  it("the frame served at another of the Worker's addresses (OWN_ORIGINS) reads and pays from there; the address a request was sent to is not trusted for being it", async () => {
    // The test configuration names https://pay.own.example; the requests go to http://worker.test.
    const own = 'https://pay.own.example'
    const s = await createSession()
    const read = await browser(s, 'GET', '', undefined, { Origin: own, 'Sec-Fetch-Site': 'same-origin' })
    expect(read.status).toBe(200)
    const paid = await pay(s, '4111111111111111', uniqueId('key'), {}, { Origin: own, 'Sec-Fetch-Site': 'same-origin' })
    expect(paid.status).toBe(200)
    expect(paid.body.status).toBe('succeeded')
    const other = await createSession()
    // A Host of the client's choosing decides the request's own address: never trusted for it.
    for (const origin of ['http://worker.test', 'https://pay.own.example:8443', 'http://pay.own.example']) {
      expect((await browser(other, 'GET', '', undefined, { Origin: origin })).status, origin).toBe(403)
      expect((await pay(other, '4111111111111111', uniqueId('key'), {}, { Origin: origin })).status, origin).toBe(403)
    }
  })

  it('/frame/{id} is the same page for a known and an unknown session, with no origins in it; frame-ancestors is the only per-session part', async () => {
    const s = await createSession()
    const own = await createSession({ allowedOrigins: ['https://own-shop.example'] })
    const [known, unknown, malformed, withOwn] = await Promise.all([
      call(`/frame/${s.id}`),
      call(`/frame/${unknownId}`),
      call('/frame/nope'),
      call(`/frame/${own.id}`),
    ])
    for (const res of [known, unknown, malformed, withOwn]) {
      expect(res.status).toBe(200)
      expect(res.text).toBe(known.text)
      expect(res.text).not.toMatch(/shop\.example|allowed-origins/)
    }
    // A session with the deployment's origins cannot be told from an unknown id, header included.
    expect(unknown.headers.get('Content-Security-Policy')).toBe(known.headers.get('Content-Security-Policy'))
    expect(known.headers.get('Content-Security-Policy')).toContain(`frame-ancestors ${ORIGIN}`)
    // A session with its own origins: the browser enforces them as frame ancestors.
    expect(withOwn.headers.get('Content-Security-Policy')).toContain('frame-ancestors https://own-shop.example')
  })

  it("a deployment's ALLOWED_ORIGINS reach the frame's frame-ancestors only as exact origins: one written with a trailing slash without it; a wildcard, a path or a directive left out, and said in the logs", async () => {
    const worker = (await import('../../worker/index.ts')).default
    const deployment = {
      ...env,
      ALLOWED_ORIGINS:
        'https://a.example/, https://*.shops.example,https://b.example/pay, https://c.example; script-src *,*',
    }
    let res = new Response()
    const logs = await logsDuring(async () => {
      res = await worker.fetch(new Request(`http://worker.test/frame/${unknownId}`), deployment)
    })
    expect(logs.some((line) => line.includes('origins_ignored') && line.includes('https://*.shops.example'))).toBe(true)
    expect(res.status).toBe(200)
    expect(/frame-ancestors ([^;]*)/.exec(res.headers.get('Content-Security-Policy') ?? '')?.[1]).toBe(
      'https://a.example',
    )
    expect(res.headers.get('Content-Security-Policy')).not.toMatch(/\*|script-src \*/)
  })

  it("/frame/{id}?t= takes frame-ancestors from the session's frame token, without the session; a token that does not verify changes nothing", async () => {
    const ancestors = async (path: string) => {
      const res = await call(path)
      expect(res.status).toBe(200)
      return /frame-ancestors ([^;]*)/.exec(res.headers.get('Content-Security-Policy') ?? '')?.[1]
    }
    // The creation's token names the session's own origins, or the deployment's for one without.
    const own = await createSession({ allowedOrigins: ['https://own-shop.example', 'http://localhost:8080'] })
    const plain = await createSession()
    expect(own.frameToken).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{32}$/)
    expect(await ancestors(`/frame/${own.id}?t=${own.frameToken}`)).toBe(
      'https://own-shop.example http://localhost:8080',
    )
    expect(await ancestors(`/frame/${plain.id}?locale=de&t=${plain.frameToken}`)).toBe(ORIGIN)
    // The route believes a token it signed, session or not: no lookup (an id no session has shows it).
    const future = Date.now() + 60_000
    const signed = await frameToken(env, unknownId, ['https://signed.example'], future)
    expect(await ancestors(`/frame/${unknownId}?t=${signed}`)).toBe('https://signed.example')
    // Not one it did not sign: another session's, an altered claim or signature, an expired one,
    // or one signed with another key: the session is read, as without a token.
    const [claim = '', mac = ''] = (own.frameToken ?? '').split('.')
    const evil = btoa(`${Math.ceil(future / 1000)}|https://evil.example`).replace(/=+$/, '')
    const expired = await frameToken(env, unknownId, ['https://signed.example'], Date.now() - 1000)
    const otherKey = await frameToken(
      { ...env, MERCHANT_SECRETS_KEY: 'another-key', MERCHANT_API_KEY: 'another-key' },
      unknownId,
      ['https://signed.example'],
      future,
    )
    for (const [id, t] of [
      [own.id, plain.frameToken],
      [own.id, `${evil}.${mac}`],
      [own.id, `${claim}.${mac.replace(/^./, (c) => (c === '0' ? '1' : '0'))}`],
      [own.id, `${claim}.${mac}.${mac}`],
      [own.id, 'garbage'],
    ])
      expect(await ancestors(`/frame/${id}?t=${encodeURIComponent(t ?? '')}`)).toBe(
        'https://own-shop.example http://localhost:8080',
      )
    for (const t of [expired, otherKey]) expect(await ancestors(`/frame/${unknownId}?t=${t}`)).toBe(ORIGIN)
    // A claim the key signed but that names no exact origin (nothing could end the CSP directive).
    const signedClaim = (claim: string) => signFrameClaim(unknownId, claim)
    const at = Math.ceil(future / 1000)
    expect(await ancestors(`/frame/${unknownId}?t=${await signedClaim(`${at}|https://a.example`)}`)).toBe(
      'https://a.example',
    )
    expect(await ancestors(`/frame/${unknownId}?t=${await signedClaim(`${at}|https://a.example; script-src *`)}`)).toBe(
      ORIGIN,
    )
    // No real key (blank or a placeholder): no token is issued, and none is believed.
    const keyless = { ...env, MERCHANT_SECRETS_KEY: ' ', MERCHANT_API_KEY: 'changeme' }
    expect(await frameToken(keyless, unknownId, [ORIGIN], future)).toBeUndefined()
    expect(await frameTokenClaims(keyless, unknownId, signed)).toBeUndefined()
    // Origins too long together for an address: no token, and the frame reads the session.
    const long = Array.from({ length: 10 }, (_, i) => `https://${'a'.repeat(60)}.${'b'.repeat(60)}.shop${i}.example`)
    const crowded = await createSession({ allowedOrigins: long })
    expect(crowded.frameToken).toBeUndefined()
    expect(await ancestors(`/frame/${crowded.id}`)).toBe(long.join(' '))
  })

  it("/frame/{id}?t= leaves the customer's inputs the merchant gave out of the form; without a token that verifies, the form asks for all of them", async () => {
    const inputs = async (path: string) => {
      const res = await call(path)
      expect(res.status).toBe(200)
      return [...res.text.matchAll(/<(?:input|select) id="(\w+)"/g)].map((m) => m[1])
    }
    const everything = ['number', 'expiry', 'cvv', 'givenName', 'surname', 'email', 'telnocc', 'phone']
    const known = await createSession({ customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' } })
    const emailOnly = await createSession({
      customer: { email: 'ada@example.com', telnocc: '+44', phone: '2071234567' },
    })
    const none = await createSession()
    expect(await inputs(`/frame/${known.id}?t=${known.frameToken}`)).toEqual([
      'number',
      'expiry',
      'cvv',
      'telnocc',
      'phone',
    ])
    expect(await inputs(`/frame/${emailOnly.id}?t=${emailOnly.frameToken}&shipping=1`)).toEqual([
      ...everything.filter((id) => id !== 'email'),
      'street',
      'postcode',
      'city',
      'state',
      'country',
    ])
    expect(await inputs(`/frame/${none.id}?t=${none.frameToken}`)).toEqual(everything)
    // Only what the token says: without it, or with another session's, the page is the one every id
    // gets (R21), and the frame's script takes out what the session gives once it has read it.
    expect(await inputs(`/frame/${known.id}`)).toEqual(everything)
    expect(await inputs(`/frame/${known.id}?t=${none.frameToken}`)).toEqual(everything)
    expect(await inputs(`/frame/${none.id}?t=${known.frameToken}`)).toEqual(everything)
    // What the route reads of a claim: only the customer's inputs it knows, whatever else is there;
    // a token of the release before (two parts) leaves none out.
    const at = Math.ceil((Date.now() + 60_000) / 1000)
    const odd = await signFrameClaim(none.id, `${at}|${ORIGIN}|email,number,cvv,<b>,,givenName|surname`)
    expect(await inputs(`/frame/${none.id}?t=${odd}`)).toEqual(
      everything.filter((id) => id !== 'email' && id !== 'givenName'),
    )
    expect(await inputs(`/frame/${none.id}?t=${await signFrameClaim(none.id, `${at}|${ORIGIN}`)}`)).toEqual(everything)
  })
})
