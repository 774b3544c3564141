/**
 * The product Worker has no demo shop, in any configuration: the shop is its own Worker
 * (worker/demo/, tested over HTTP in test/smoke/demo-http.test.ts). This runs the product Worker
 * with the development configuration, the one that used to mount it.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import * as product from '../../worker/index.ts'

describe('the product Worker', () => {
  it('serves no demo page, demo API or demo webhook receiver', async () => {
    for (const [method, path] of [
      ['GET', '/demo'],
      ['GET', '/demo/'],
      ['GET', '/demo/product'],
      ['GET', '/demo/app.js'],
      ['GET', '/demo/api/orders'],
      ['POST', '/demo/api/charge-again'],
      ['POST', '/demo/webhooks'],
    ] as const) {
      const res = await exports.default.fetch(`http://worker.test${path}`, { method })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(await res.json(), path).toMatchObject({ error: { code: 'not_found' } })
    }
  })

  it('exports only its own Durable Object classes', () => {
    expect(Object.keys(product)).not.toContain('DemoShop')
    expect(Object.keys(product)).toEqual(
      expect.arrayContaining(['CheckoutSession', 'MerchantOperation', 'CardVelocity']),
    )
  })
})
