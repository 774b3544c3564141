/**
 * Merchant session routes: creation, validation, authentication, the browser's view of a session.
 */
import { describe, expect, it } from 'vitest'
import app from '../../worker/index.ts'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { browser, call, createSession, merchant, ORIGIN } from './api.ts'
import { uniqueId } from './helpers.ts'

describe('POST /v1/sessions', () => {
  it('creates a session: 201 with id, clientSecret, status and expiresAt', async () => {
    const res = await merchant<{ id: string; clientSecret: string; status: string; expiresAt: string }>(
      'POST',
      '/v1/sessions',
      {
        flow: 'card',
        amount: '100.00',
        currency: 'EUR',
        merchantTransactionId: uniqueId('o'),
        expiresIn: 600,
      },
    )
    expect(res.status).toBe(201)
    expect(res.body.id).toMatch(/^cs_[A-Za-z0-9]{24}$/)
    expect(res.body.clientSecret).toMatch(new RegExp(`^${res.body.id}_secret_[A-Za-z0-9]{43}$`))
    expect(res.body.status).toBe('open')
    const ttl = Date.parse(res.body.expiresAt) - Date.now()
    expect(ttl).toBeGreaterThan(590_000)
    expect(ttl).toBeLessThanOrEqual(600_000)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })

  it.each([
    ['a missing amount', { amount: undefined }, [expect.objectContaining({ field: 'amount', code: 'required' })]],
    ['an amount with one decimal', { amount: '100.0' }, [expect.objectContaining({ field: 'amount', code: 'format' })]],
    ['a number for an amount', { amount: 100 }, [expect.objectContaining({ field: 'amount', code: 'format' })]],
    ['a zero amount', { amount: '0.00' }, [expect.objectContaining({ field: 'amount', code: 'out_of_range' })]],
    [
      'an unknown currency',
      { currency: 'XYZ' },
      [expect.objectContaining({ field: 'currency', code: 'invalid_value' })],
    ],
    [
      'a merchantTransactionId with "|"',
      { merchantTransactionId: 'a|9.99' },
      [expect.objectContaining({ field: 'merchantTransactionId', code: 'format' })],
    ],
    ['an unknown flow', { flow: 'crypto' }, [expect.objectContaining({ field: 'flow', code: 'invalid_value' })]],
    [
      'a saved-card flow without registrationId',
      { flow: 'saved-card' },
      [expect.objectContaining({ field: 'registrationId', code: 'required' })],
    ],
    [
      'invoice fields on a card flow',
      { invoiceId: 'INV1' },
      [expect.objectContaining({ field: 'invoiceId', code: 'not_allowed' })],
    ],
    ['an unknown field', { discount: '10' }, [expect.objectContaining({ field: 'discount', code: 'not_allowed' })]],
    [
      'an origin with a path',
      { allowedOrigins: ['https://shop.example/checkout'] },
      [expect.objectContaining({ field: 'allowedOrigins', code: 'format' })],
    ],
    [
      'a plain-http return URL',
      { returnUrl: 'http://shop.example/done' },
      [expect.objectContaining({ field: 'returnUrl', code: 'format' })],
    ],
    [
      'an expiry of a week',
      { expiresIn: 604800 },
      [expect.objectContaining({ field: 'expiresIn', code: 'out_of_range' })],
    ],
    [
      'an invoice whose regeneration would be expired as it is made (0 hours)',
      { flow: 'invoice', invoiceId: 'INV1', merchantInvoiceId: 'inv-1', invoiceExpirationPeriod: '0' },
      [expect.objectContaining({ field: 'invoiceExpirationPeriod', code: 'out_of_range' })],
    ],
    [
      'a bad customer email',
      { customer: { email: 'not-an-email' } },
      [expect.objectContaining({ field: 'customer.email', code: 'format' })],
    ],
  ])('refuses %s with 400 and the field name', async (_, change, fields) => {
    const body: Record<string, unknown> = {
      flow: 'card',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: uniqueId('o'),
      ...change,
    }
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k]
    const res = await merchant<{ error: { code: string; fields: unknown[] } }>('POST', '/v1/sessions', body)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('invalid_request')
    expect(res.body.error.fields).toEqual(expect.arrayContaining(fields))
  })

  it('refuses an allowed origin with a * in its host, which the card frame’s CSP would read as any site', async () => {
    for (const origins of [['https://*'], ['https://shop.example', 'https://*.shop.example'], ['https://*:8443']]) {
      const res = await merchant<{ error: { code: string; fields: { field: string; code: string }[] } }>(
        'POST',
        '/v1/sessions',
        {
          flow: 'card',
          amount: '100.00',
          currency: 'EUR',
          merchantTransactionId: uniqueId('o'),
          allowedOrigins: origins,
        },
      )
      expect(res.status).toBe(400)
      expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'allowedOrigins', code: 'format' })])
    }
  })

  it('says what each refused field takes (the pattern or a phrase), never the value sent', async () => {
    const res = await merchant<{ error: { fields: { field: string; code: string; expected?: string }[] } }>(
      'POST',
      '/v1/sessions',
      {
        flow: 'card',
        amount: '10.5',
        currency: 'EURO',
        merchantTransactionId: uniqueId('o'),
        customer: { email: 'ada-at-example' },
        paymentType: 'XX',
        surprise: 1,
      },
    )
    expect(res.status).toBe(400)
    const byField = Object.fromEntries(res.body.error.fields.map((f) => [f.field, f]))
    // The rule in words, not the checker's regex: a merchant who sent "1000" learns it needs "1000.00".
    expect(byField.amount).toEqual({
      field: 'amount',
      code: 'format',
      expected: 'a decimal with a point and two decimals, such as "49.00" (up to 12 digits before the point)',
    })
    expect(byField.paymentType).toEqual({ field: 'paymentType', code: 'invalid_value', expected: 'one of: DB, PA' })
    expect(byField.surprise).toMatchObject({ code: 'not_allowed' })
    expect(byField.currency?.expected).toEqual(expect.any(String))
    expect(byField['customer.email']?.expected).toEqual(expect.any(String))
    // Every rule is told in words: none is a regex.
    for (const f of res.body.error.fields) expect(f.expected, f.field).toMatch(/^[^^].*[^$]$/)
    expect(res.text).not.toContain('ada-at-example')
    expect(res.text).not.toContain('10.5"')
  })

  it('refuses a __proto__ key as not allowed and lets nothing reach an object prototype', async () => {
    const body = `{"flow":"card","amount":"1.00","currency":"EUR","merchantTransactionId":"${uniqueId('o')}","__proto__":{"admin":true},"customer":{"__proto__":{"x":1}}}`
    const res = await call<{ error: { fields: { field: string; code: string }[] } }>('/v1/sessions', {
      method: 'POST',
      body,
      headers: { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: '__proto__', code: 'not_allowed' }),
        expect.objectContaining({ field: 'customer.__proto__', code: 'not_allowed' }),
      ]),
    )
  })

  it('never echoes a refused value', async () => {
    const res = await merchant('POST', '/v1/sessions', {
      flow: 'card',
      amount: '4111111111111111',
      currency: 'EUR',
      merchantTransactionId: 'x',
    })
    expect(res.status).toBe(400)
    expect(res.text).not.toContain('4111111111111111')
  })

  it('answers 401 to a missing or wrong merchant key, 403 to a browser Origin, without CORS headers', async () => {
    const body = JSON.stringify({ flow: 'card', amount: '1.00', currency: 'EUR', merchantTransactionId: uniqueId('o') })
    const none = await call('/v1/sessions', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })
    expect(none.status).toBe(401)
    const wrong = await call('/v1/sessions', {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk_wrong' },
    })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } })
    const fromBrowser = await merchant('POST', '/v1/sessions', JSON.parse(body), { Origin: ORIGIN })
    expect(fromBrowser.status).toBe(403)
    expect(fromBrowser.headers.get('Access-Control-Allow-Origin')).toBeNull()
    const preflight = await call('/v1/sessions', {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toBeNull()
  })
})

describe('GET /v1/sessions/{id}', () => {
  it('returns the whole state and never the client secret', async () => {
    const s = await createSession({ customer: { givenName: 'Ada', email: 'ada@example.com' } })
    const res = await merchant('GET', `/v1/sessions/${s.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      id: s.id,
      status: 'open',
      amount: '100.00',
      currency: 'EUR',
      merchantTransactionId: s.mtid,
      attempts: [],
      paymentId: null,
    })
    expect(res.text).not.toContain(s.clientSecret)
    expect(res.text).not.toContain(TEST_SECRETS.SECURE_KEY)
  })

  it('404 for an unknown session', async () => {
    expect((await merchant('GET', '/v1/sessions/cs_AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404)
  })
})

describe('GET /v1/checkout/{id}', () => {
  it('gives the widget what it renders, with CORS for the allowed origin', async () => {
    const s = await createSession({ customer: { email: 'ada@example.com' } })
    const res = await browser(s, 'GET', '')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      id: s.id,
      flow: 'card',
      status: 'open',
      amount: '100.00',
      currency: 'EUR',
      attemptsRemaining: 3,
      customer: { email: 'ada@example.com' },
    })
    expect(res.body).not.toHaveProperty('merchantTransactionId')
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN)
    expect(res.headers.get('Vary')).toContain('Origin')
  })

  it('answers 404, as for an unknown session, to a wrong secret and to another session’s secret (R21, hardening.test.ts)', async () => {
    const a = await createSession()
    const b = await createSession()
    expect((await browser({ id: a.id, clientSecret: `${a.id}_secret_${'x'.repeat(43)}` }, 'GET', '')).status).toBe(404)
    expect((await browser({ id: a.id, clientSecret: b.clientSecret }, 'GET', '')).status).toBe(404)
    expect((await call(`/v1/checkout/${a.id}`, { headers: { Origin: ORIGIN } })).status).toBe(404)
  })

  it('answers 403 to a foreign origin, with no Access-Control-Allow-Origin, even on a preflight', async () => {
    const s = await createSession()
    const res = await browser(s, 'GET', '', undefined, { Origin: 'https://evil.example' })
    expect(res.status).toBe(403)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
    const preflight = await call(`/v1/checkout/${s.id}/pay`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull()
    const good = await call(`/v1/checkout/${s.id}/pay`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' },
    })
    expect(good.status).toBe(204)
    expect(good.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN)
    expect(good.headers.get('Access-Control-Allow-Headers')).toContain('Idempotency-Key')
  })

  it('uses ALLOWED_ORIGINS when the session names no origins', async () => {
    const s = await createSession({ allowedOrigins: undefined })
    expect((await browser(s, 'GET', '', undefined, { Origin: 'https://shop.example' })).status).toBe(200)
    expect((await browser(s, 'GET', '', undefined, { Origin: 'https://other.example' })).status).toBe(403)
  })
})

describe('GET /openapi.json', () => {
  it('lists every route the app registers, with its method (generated from the routes)', async () => {
    const doc = (await call<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json')).body
    const routes = app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => [r.method.toLowerCase(), r.path.replace(/:([A-Za-z]+)/g, '{$1}')] as const)
    expect(routes.length).toBeGreaterThan(15)
    for (const [method, path] of routes) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined()
  })

  it('describes request bodies with the schemas the routes check: formats from the field table', async () => {
    type Schema = {
      properties?: Record<string, { pattern?: string; enum?: string[] }>
      required?: string[]
      additionalProperties?: boolean
    }
    const doc = (await call<{ components: { schemas: Record<string, Schema> } }>('/openapi.json')).body
    const create = doc.components.schemas.SessionCreate
    expect(create?.additionalProperties).toBe(false)
    expect(create?.required).toEqual(expect.arrayContaining(['currency', 'merchantTransactionId']))
    // Every method but setup (which takes none) needs an amount: a rule across fields, told in its description.
    expect((create?.properties?.amount as { description?: string } | undefined)?.description).toContain(
      'except with the setup method',
    )
    expect(create?.properties?.amount?.pattern).toBe('^(0|[1-9]\\d{0,11})\\.\\d{2}$')
    expect(create?.properties?.methods).toBeDefined()
    expect(doc.components.schemas.CardPayRequest?.properties?.['card.number']).toBeDefined()
    expect(doc.components.schemas.CardPayRequest?.properties).not.toHaveProperty('amount')
  })

  it('documents every route of the API', async () => {
    const res = await call<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json')
    expect(res.body.openapi).toBe('3.1.0')
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{id}',
        '/v1/payments/{paymentId}/repeat',
        '/v1/payments/{paymentId}/inquiry',
        '/v1/invoices/{invoiceId}/regenerate',
        '/v1/checkout/{id}',
        '/v1/checkout/{id}/pay',
        '/v1/checkout/{id}/qr/verify',
        '/v1/checkout/{id}/qr/complete',
        '/v1/checkout/{id}/invoice/regenerate',
        '/v1/notifications/{id}',
        '/v1/return/{id}',
      ]),
    )
  })
})
