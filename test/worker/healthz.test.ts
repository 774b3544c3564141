import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import app from '../../worker/index.ts'

const get = (path: string, headers: Record<string, string> = {}, over: Partial<typeof env> = {}) =>
  app.fetch(new Request(`http://worker.test${path}`, { headers }), { ...env, ...over })
const merchantKey = { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}` }

describe('GET /healthz', () => {
  it('tells anyone only that it is up: no gateway address, no credentials', async () => {
    const res = await exports.default.fetch('http://worker.test/healthz')
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(JSON.parse(body)).toEqual({ ok: true })
    expect(body).not.toContain(new URL(env.GATEWAY_BASE_URL).host)
    expect(body).not.toContain(env.SECURE_KEY)
  })

  it('names the gateway origin to the merchant key only', async () => {
    expect(await (await get('/healthz', merchantKey)).json()).toEqual({
      ok: true,
      gateway: new URL(env.GATEWAY_BASE_URL).origin,
    })
    expect(await (await get('/healthz', { Authorization: 'Bearer sk_wrong_guess' })).json()).toEqual({ ok: true })
  })

  it('limits key guessing on ?deep=1 as on /v1/*: wrong keys from one address run into 429', async () => {
    const lowLimits = { RATE_LIMIT_MERCHANT: env.RATE_LIMIT_TEST_LOW }
    // A network of its own: the rate-limit tests, which may run just before on the same runtime,
    // guess from 203.0.113.0/24 with the same low limit.
    const ip = `192.0.2.${Math.floor(Math.random() * 200) + 1}`
    const statuses: number[] = []
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await get('/healthz?deep=1', { Authorization: `Bearer sk_guess_${i}`, 'CF-Connecting-IP': ip }, lowLimits))
          .status,
      )
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401])
    expect(statuses.slice(3)).toEqual([429, 429, 429])
  })

  it('keeps the deep check’s gateway answer for a short while: a burst of checks is one gateway inquiry', async () => {
    // A gateway configuration of its own (another member id), so no other test's check is reused.
    const over = { MEMBER_ID: env.MEMBER_ID, GATEWAY_BASE_URL: `${env.GATEWAY_BASE_URL}/` }
    const first = (await (await get('/healthz?deep=1', merchantKey, over)).json()) as {
      deep: { cached: boolean; token: string }
    }
    expect(first.deep).toMatchObject({ token: 'ok', cached: false })
    const again = (await (await get('/healthz?deep=1', merchantKey, over)).json()) as { deep: { cached: boolean } }
    expect(again.deep.cached).toBe(true)
  })
})
