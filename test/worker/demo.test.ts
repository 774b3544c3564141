import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import app from '../../worker/index.ts'

describe('the demo shop', () => {
  it('is served under /demo/ in the development configuration, with a strict CSP', async () => {
    for (const path of ['/demo/', '/demo/product', '/demo/orders', '/demo/app.js', '/demo/app.css']) {
      const res = await exports.default.fetch(`http://worker.test${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('Content-Security-Policy'), path).toContain("script-src 'self'")
    }
  })

  it('does not exist where DEMO is not "true" (the production configuration)', async () => {
    const production = { ...env, DEMO: undefined }
    for (const path of ['/demo', '/demo/', '/demo/product', '/demo/api/orders']) {
      const res = await app.fetch(new Request(`http://worker.test${path}`), production)
      expect(res.status, path).toBe(404)
    }
  })
})
