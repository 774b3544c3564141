/**
 * The merchant console's sign-in (issue 24, README "Merchant console"): with a merchant API key
 * once (a signed, HttpOnly session cookie, CSRF-protected changes), or through Cloudflare Access
 * (the Access JWT verified against the team's keys, which the catcher serves from a test-only key
 * pair: Access itself cannot run here). Over the public routes.
 */
import { env, exports } from 'cloudflare:workers'
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose'
import { describe, expect, it, vi } from 'vitest'
import accessKeys from '../fixtures/access-keys.json' with { type: 'json' }
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { keyProof } from '../../worker/console/caller.ts'
import { newProfile, platform } from './api.ts'
import { newSession } from '../../worker/console/session.ts'

const OWN = new URL(env.PUBLIC_BASE_URL).origin
const AUD = 'test-console-application-aud'

async function consoleCall(method: string, init: { headers?: Record<string, string>; body?: unknown } = {}, over = {}) {
  const request = new Request('http://worker.test/console/api/session', {
    method,
    headers: { 'Content-Type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const res = Object.keys(over).length
    ? await (await import('../../worker/index.ts')).default.fetch(request, { ...env, ...over })
    : await exports.default.fetch(request)
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: (text ? JSON.parse(text) : {}) as Record<string, string>,
  }
}

const cookieOf = (setCookie: string | null): string => /^(__Host-pay-console=[^;]*)/.exec(setCookie ?? '')?.[1] ?? ''

describe('signing in with a merchant API key', () => {
  it('opens a signed HttpOnly, Secure, SameSite=Strict session for the key’s merchant; the key is kept nowhere', async () => {
    const res = await consoleCall('POST', { headers: { Origin: OWN }, body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ merchant: 'default', via: 'key' })
    const setCookie = res.headers.get('Set-Cookie') ?? ''
    for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/', 'Max-Age=3600'])
      expect(setCookie).toContain(attribute)
    expect(setCookie.startsWith('__Host-pay-console=')).toBe(true)
    expect(`${res.text}${setCookie}`).not.toContain(TEST_SECRETS.MERCHANT_API_KEY)
    const again = await consoleCall('GET', { headers: { Cookie: cookieOf(setCookie) } })
    expect(again.body).toMatchObject({ merchant: 'default', csrfToken: res.body.csrfToken })
  })

  it('refuses a wrong key (401), a sign-in from another site (403) and a missing key (400, the field named)', async () => {
    expect((await consoleCall('POST', { headers: { Origin: OWN }, body: { apiKey: 'sk_guess' } })).status).toBe(401)
    const elsewhere = await consoleCall('POST', {
      headers: { Origin: 'https://evil.example' },
      body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY },
    })
    expect(elsewhere.status).toBe(403)
    const missing = await consoleCall('POST', { headers: { Origin: OWN }, body: {} })
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ error: { fields: [{ field: 'apiKey', code: 'required' }] } })
  })

  it('a tampered or foreign cookie is no session; signing out needs the CSRF token', async () => {
    const signedIn = await consoleCall('POST', {
      headers: { Origin: OWN },
      body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY },
    })
    const cookie = cookieOf(signedIn.headers.get('Set-Cookie'))
    const [payload, mac] = cookie.split('=')[1]?.split('.') ?? []
    const forged = JSON.parse(atob((payload ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>
    const otherMerchant = btoa(JSON.stringify({ ...forged, merchant: 'mer_AAAAAAAAAAAAAAAA' })).replace(/=+$/, '')
    expect(
      (await consoleCall('GET', { headers: { Cookie: `__Host-pay-console=${otherMerchant}.${mac}` } })).status,
    ).toBe(401)
    expect((await consoleCall('GET', { headers: { Cookie: '__Host-pay-console=made.up' } })).status).toBe(401)
    const noToken = await consoleCall('DELETE', { headers: { Origin: OWN, Cookie: cookie } })
    expect(noToken.status).toBe(403)
    const out = await consoleCall('DELETE', {
      headers: { Origin: OWN, Cookie: cookie, 'X-CSRF-Token': signedIn.body.csrfToken ?? '' },
    })
    expect(out.status).toBe(204)
    expect(out.headers.get('Set-Cookie')).toContain('Max-Age=0')
  })

  it('a cookie past its hour, or from a sign-in across sites, is refused', async () => {
    const signer = { secret: env.CONSOLE_SECRET ?? '', origin: OWN }
    const fields = {
      merchant: 'default',
      via: 'key' as const,
      proof: await keyProof(signer, TEST_SECRETS.MERCHANT_API_KEY),
    }
    const fresh = await newSession(signer, fields)
    expect((await consoleCall('GET', { headers: { Cookie: `__Host-pay-console=${fresh.cookie}` } })).status).toBe(200)
    const old = await newSession(signer, fields, Date.now() - 2 * 60 * 60_000)
    expect((await consoleCall('GET', { headers: { Cookie: `__Host-pay-console=${old.cookie}` } })).status).toBe(401)
    const crossSite = await consoleCall('POST', {
      headers: { Origin: OWN, 'Sec-Fetch-Site': 'cross-site' },
      body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY },
    })
    expect(crossSite.status).toBe(403)
  })

  it('a session ends with the key that opened it: a profile key revoked is signed out at once', async () => {
    const created = await newProfile(40)
    const signedIn = await consoleCall('POST', { headers: { Origin: OWN }, body: { apiKey: created.apiKey.key } })
    expect(signedIn.body).toMatchObject({ merchant: created.merchant.id })
    const cookie = cookieOf(signedIn.headers.get('Set-Cookie'))
    expect((await consoleCall('GET', { headers: { Cookie: cookie } })).status).toBe(200)
    await platform('DELETE', `/merchants/${created.merchant.id}/api-keys/${created.apiKey.id}`)
    expect((await consoleCall('GET', { headers: { Cookie: cookie } })).status).toBe(401)
  })

  it('signing out ends the session on the server: a copy of its cookie is refused afterwards, on the console and the merchant API', async () => {
    const signedIn = await consoleCall('POST', {
      headers: { Origin: OWN },
      body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY },
    })
    const cookie = cookieOf(signedIn.headers.get('Set-Cookie'))
    const other = cookieOf(
      (
        await consoleCall('POST', { headers: { Origin: OWN }, body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY } })
      ).headers.get('Set-Cookie'),
    )
    const read = (c: string) =>
      exports.default.fetch(new Request('http://worker.test/v1/sessions?limit=1', { headers: { Cookie: c } }))
    expect((await read(cookie)).status).toBe(200)
    const out = await consoleCall('DELETE', {
      headers: { Origin: OWN, Cookie: cookie, 'X-CSRF-Token': signedIn.body.csrfToken ?? '' },
    })
    expect(out.status).toBe(204)
    expect((await consoleCall('GET', { headers: { Cookie: cookie } })).status).toBe(401)
    expect((await read(cookie)).status).toBe(401)
    // Only that session: another sign-in of the same key stands.
    expect((await consoleCall('GET', { headers: { Cookie: other } })).status).toBe(200)
    expect((await read(other)).status).toBe(200)
  })

  it('is 404 when the console is not enabled', async () => {
    const off = await consoleCall('GET', {}, { CONSOLE_ENABLED: undefined })
    expect(off.status).toBe(404)
  })
})

describe('the merchant API from the console’s pages (the session instead of a key, no second API)', () => {
  async function signIn(apiKey: string): Promise<{ cookie: string; csrf: string }> {
    const res = await consoleCall('POST', { headers: { Origin: OWN }, body: { apiKey } })
    return { cookie: cookieOf(res.headers.get('Set-Cookie')), csrf: res.body.csrfToken ?? '' }
  }
  async function api(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await exports.default.fetch(
      new Request(`http://worker.test${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }
  }
  const newOrder = () => ({
    flow: 'card',
    amount: '10.00',
    currency: 'EUR',
    merchantTransactionId: `con-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  })

  it('reads with the cookie from the console’s origin; a change needs the CSRF token and the Worker’s origin', async () => {
    const { cookie, csrf } = await signIn(TEST_SECRETS.MERCHANT_API_KEY)
    const read = await api('GET', '/v1/sessions?limit=1', { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' })
    expect(read.status).toBe(200)
    expect(read.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(read.headers.get('Cache-Control')).toBe('no-store')
    // A change the console makes (a webhook sent again; no such event here: 404 once let through).
    const sendAgain = '/v1/webhooks/deliveries/evt_none/send-again'
    expect((await api('POST', sendAgain, { Cookie: cookie, Origin: OWN }, {})).status).toBe(403)
    const sent = await api('POST', sendAgain, { Cookie: cookie, Origin: OWN, 'X-CSRF-Token': csrf }, {})
    expect(sent.status).toBe(404)
    // Another site's page cannot use it, even with the token (SameSite=Strict keeps the cookie away besides).
    const fromElsewhere = { Cookie: cookie, Origin: 'https://evil.example', 'X-CSRF-Token': csrf }
    expect((await api('POST', sendAgain, fromElsewhere, {})).status).toBe(403)
    expect((await api('GET', '/v1/sessions?limit=1', { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' })).status).toBe(
      403,
    )
    // Without a session a browser is refused as before; a forged cookie is no session.
    expect((await api('GET', '/v1/sessions?limit=1', { Cookie: '__Host-pay-console=made.up' })).status).toBe(401)
  })

  it('a console session does only what the console does: a repeat, a new session, an invoice regeneration, an inquiry and a card’s deletion need the API key (403, nothing sent)', async () => {
    const { cookie, csrf } = await signIn(TEST_SECRETS.MERCHANT_API_KEY)
    const asConsole = { Cookie: cookie, Origin: OWN, 'X-CSRF-Token': csrf }
    const gateway = vi.spyOn(globalThis, 'fetch')
    try {
      const refused = [
        await api(
          'POST',
          '/v1/payments/1234567890/repeat',
          { ...asConsole, 'Idempotency-Key': 'k-repeat' },
          {
            amount: '10.00',
            currency: 'EUR',
          },
        ),
        await api('POST', '/v1/sessions', asConsole, newOrder()),
        await api(
          'POST',
          '/v1/invoices/INV-1/regenerate',
          { ...asConsole, 'Idempotency-Key': 'k-inv' },
          {
            merchantInvoiceId: 'inv-console',
            invoiceExpirationPeriod: '24',
          },
        ),
        await api('POST', '/v1/payments/1234567890/inquiry', asConsole, {}),
        await api('DELETE', '/v1/registrations/R1234567890', { ...asConsole, 'Idempotency-Key': 'k-del' }),
      ]
      expect(refused.map((r) => [r.status, (r.body.error as { code?: string } | undefined)?.code])).toEqual(
        Array.from({ length: 5 }, () => [403, 'forbidden']),
      )
      expect(gateway).not.toHaveBeenCalled()
    } finally {
      gateway.mockRestore()
    }
    // What the console does stays open: reads, and a refund (of no such payment here: 404, not 403).
    expect((await api('GET', '/v1/payments?limit=1', { Cookie: cookie })).status).toBe(200)
    const refund = await api('POST', '/v1/payments/1234567890/refunds', { ...asConsole, 'Idempotency-Key': 'k-rf' }, {})
    expect(refund.status).toBe(404)
  })

  it('a profile’s session acts for that merchant only: another merchant’s session is 404', async () => {
    const defaults = await api(
      'POST',
      '/v1/sessions',
      { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}` },
      newOrder(),
    )
    const created = await newProfile(41)
    const { cookie } = await signIn(created.apiKey.key)
    const own = await api('POST', '/v1/sessions', { Authorization: `Bearer ${created.apiKey.key}` }, newOrder())
    expect(own.status).toBe(201)
    expect((await api('GET', `/v1/sessions/${String(own.body.id)}`, { Cookie: cookie })).status).toBe(200)
    expect((await api('GET', `/v1/sessions/${String(defaults.body.id)}`, { Cookie: cookie })).status).toBe(404)
  })
})

describe('signing in through Cloudflare Access', () => {
  const accessEnv = {
    ACCESS_TEAM_DOMAIN: env.CATCHER_URL,
    ACCESS_AUD: AUD,
    ACCESS_MERCHANTS: JSON.stringify({ '*@shop.example': 'default' }),
  }

  async function token(
    over: { key?: CryptoKey; aud?: string; exp?: number | null; email?: string; iss?: string } = {},
  ): Promise<string> {
    const key = over.key ?? ((await importJWK(accessKeys.private as JWK, 'RS256')) as CryptoKey)
    const jwt = new SignJWT({ email: over.email ?? 'Staff@Shop.Example' })
      .setProtectedHeader({ alg: 'RS256', kid: accessKeys.private.kid })
      .setIssuer(over.iss ?? env.CATCHER_URL)
      .setAudience(over.aud ?? AUD)
      .setIssuedAt()
    if (over.exp !== null) jwt.setExpirationTime(over.exp ?? Math.floor(Date.now() / 1000) + 300)
    return jwt.sign(key)
  }

  const withToken = (jwt: string, over: Record<string, unknown> = accessEnv) =>
    consoleCall('GET', { headers: { 'Cf-Access-Jwt-Assertion': jwt } }, over)

  it('a valid Access token opens a session for the user’s merchant', async () => {
    const res = await withToken(await token())
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ merchant: 'default', via: 'access' })
    expect(res.headers.get('Set-Cookie')).toContain('HttpOnly')
  })

  it('refuses a forged token (another key), an expired one, another application’s, and none at all', async () => {
    const forger = await generateKeyPair('RS256')
    expect((await withToken(await token({ key: forger.privateKey }))).status).toBe(401)
    expect((await withToken(await token({ exp: Math.floor(Date.now() / 1000) - 60 }))).status).toBe(401)
    expect((await withToken(await token({ aud: 'another-application' }))).status).toBe(401)
    expect((await withToken(await token({ iss: 'https://another-team.cloudflareaccess.com' }))).status).toBe(401)
    expect((await withToken(await token({ exp: null }))).status).toBe(401)
    expect((await consoleCall('GET', {}, accessEnv)).status).toBe(401)
  })

  it('maps users to merchants: a user ACCESS_MERCHANTS does not name, or any user without it, acts for no one', async () => {
    expect((await withToken(await token({ email: 'someone@elsewhere.example' }))).status).toBe(401)
    expect((await withToken(await token({ email: 'x@shop.example@elsewhere.example' }))).status).toBe(401)
    expect((await withToken(await token(), { ...accessEnv, ACCESS_MERCHANTS: undefined })).status).toBe(401)
  })

  it('half an Access configuration signs no one in, with a key neither', async () => {
    const half = { ACCESS_TEAM_DOMAIN: env.CATCHER_URL }
    expect((await withToken(await token(), half)).status).toBe(500)
    const withKey = await consoleCall(
      'POST',
      { headers: { Origin: OWN }, body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY } },
      half,
    )
    expect(withKey.status).toBe(500)
  })

  it('the merchant API from the console takes the Access session only with the same user’s JWT on the request (header or Access’s cookie)', async () => {
    const jwt = await token()
    const opened = await withToken(jwt)
    const cookie = cookieOf(opened.headers.get('Set-Cookie'))
    const list = async (headers: Record<string, string>) =>
      (
        await (
          await import('../../worker/index.ts')
        ).default.fetch(new Request('http://worker.test/v1/sessions?limit=1', { headers }), { ...env, ...accessEnv })
      ).status
    expect(await list({ Cookie: cookie, 'Cf-Access-Jwt-Assertion': jwt })).toBe(200)
    // The console's calls to /v1/*, which Access does not front: its cookie carries the same JWT.
    expect(await list({ Cookie: `${cookie}; CF_Authorization=${jwt}` })).toBe(200)
    expect(await list({ Cookie: cookie })).toBe(401)
    const someoneElse = await token({ email: 'other@shop.example' })
    expect(await list({ Cookie: cookie, 'Cf-Access-Jwt-Assertion': someoneElse })).toBe(401)
    expect(await list({ Cookie: `${cookie}; CF_Authorization=${someoneElse}` })).toBe(401)
  })

  it('behind Access, signing in with a key is refused', async () => {
    const res = await consoleCall(
      'POST',
      { headers: { Origin: OWN }, body: { apiKey: TEST_SECRETS.MERCHANT_API_KEY } },
      accessEnv,
    )
    expect(res.status).toBe(403)
  })
})
