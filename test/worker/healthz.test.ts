import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'

describe('GET /healthz', () => {
  it('answers ok with the gateway origin it uses, and no credentials', async () => {
    const res = await exports.default.fetch('http://worker.test/healthz')
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(JSON.parse(body)).toEqual({ ok: true, gateway: new URL(env.GATEWAY_BASE_URL).origin })
    expect(body).not.toContain(env.SECURE_KEY)
  })
})
