/**
 * @module
 * The demo shop at `/demo/` (development only: mounted when `DEMO = "true"`, which only the dev
 * configuration sets). Its "backend" does what a merchant's server does: creates sessions with the
 * merchant API key (server side, never in the page), charges again through the repeat route, and
 * receives and verifies webhooks.
 */
import { Hono } from 'hono'
import type { Env } from '../env.ts'
import { gatewayClient } from '../config.ts'
import { verifyWebhook } from '../webhooks/sign.ts'
import { DEMO_SCRIPT } from './script.ts'
import { DEMO_CSS, page, type DemoPage } from './pages.ts'
import type { DemoShop } from './shop.ts'

type Api = (path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => Promise<{ status: number; body: Record<string, unknown> }>

export const PAGES: readonly DemoPage[] = ['product', 'subscription', 'saved-card', 'qr', 'invoice', 'orders']

const shop = (env: Env): DurableObjectStub<DemoShop> | undefined => env.DEMO_SHOP?.get(env.DEMO_SHOP.idFromName('shop'))

/** The demo app; `api` calls this Worker's own routes in-process, with the merchant key. */
export function demoApp(api: (env: Env) => Api): Hono<{ Bindings: Env }> {
  // Full paths (mounted at the root), so that /demo/ itself is a route.
  const demo = new Hono<{ Bindings: Env }>()

  // The demo pages run under the strict policy merchants are told they can use.
  demo.use('/demo/*', async (c, next) => {
    await next()
    // form-action: the 3-D Secure step posts the top window to the gateway's bank page.
    c.header('Content-Security-Policy', `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self' ${new URL(c.env.GATEWAY_BASE_URL).origin}`)
  })
  demo.get('/demo/', (c) => c.html(page('index')))
  for (const p of PAGES) demo.get(`/demo/${p}`, (c) => c.html(page(p)))
  demo.get('/demo/app.css', (c) => c.body(DEMO_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }))
  demo.get('/demo/app.js', (c) => c.body(DEMO_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' }))

  demo.post('/demo/api/session', async (c) => {
    const call = api(c.env)
    const origin = new URL(c.req.url).origin
    const input = (await c.req.json().catch(() => ({}))) as { kind?: string; subscription?: string }
    const order = `demo-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`
    const base = { currency: 'EUR', merchantTransactionId: order, allowedOrigins: [origin], customer: { email: 'shopper@example.com' } }
    let body: Record<string, unknown>
    switch (input.kind) {
      case 'product':
        body = { ...base, flow: 'card', amount: '49.00', returnUrl: `${origin}/demo/product` }
        break
      case 'subscription':
        body = { ...base, flow: 'card', amount: '9.99', recurring: 'INITIAL', createRegistration: true, returnUrl: `${origin}/demo/subscription` }
        break
      case 'saved-card': {
        const first = input.subscription ? await call(`/v1/sessions/${input.subscription}`) : undefined
        const registrationId = first?.body.registrationId
        if (typeof registrationId !== 'string') return c.json({ error: { code: 'not_found', message: 'Pay a subscription first: its card is the saved card.' } }, 404)
        const card = first?.body.card as { brand?: string; last4?: string } | null
        body = { ...base, flow: 'saved-card', amount: '9.99', registrationId, ...(card?.brand && card.last4 ? { savedCard: { brand: card.brand, last4: card.last4 } } : {}) }
        break
      }
      case 'qr':
        body = { ...base, flow: 'qr', amount: '25.00', customer: { givenName: 'Ada', surname: 'Lovelace', email: 'shopper@example.com' } }
        break
      case 'invoice': {
        // An invoice that expired already, as the gateway's dashboard would hold one.
        const old = await gatewayClient(c.env).generateInvoice({ merchantInvoiceId: `${order}-old`, amount: '120.00', currency: 'EUR', invoiceExpirationPeriod: '0', customerEmail: 'shopper@example.com' })
        if (old.kind !== 'succeeded' || !old.response.systemInvoiceId) return c.json({ error: { code: 'gateway_error', message: 'Could not create the demo invoice.' } }, 502)
        body = { ...base, flow: 'invoice', amount: '120.00', invoiceId: old.response.systemInvoiceId, merchantInvoiceId: `${order}-new`, invoiceExpirationPeriod: '24', returnUrl: `${origin}/demo/orders` }
        break
      }
      default:
        return c.json({ error: { code: 'invalid_request', message: 'Unknown demo page.' } }, 400)
    }
    const created = await call('/v1/sessions', { method: 'POST', body })
    if (created.status !== 201) return c.json(created.body, created.status as 400)
    await shop(c.env)?.addOrder({ sessionId: String(created.body.id), kind: input.kind, createdAt: new Date().toISOString() })
    // Only the session id and its client secret go to the page; the merchant key stays here.
    return c.json({ endpoint: origin, id: created.body.id, clientSecret: created.body.clientSecret })
  })

  demo.post('/demo/api/charge-again', async (c) => {
    const call = api(c.env)
    const { subscription } = (await c.req.json().catch(() => ({}))) as { subscription?: string }
    const first = subscription ? await call(`/v1/sessions/${subscription}`) : undefined
    const paymentId = first?.body.paymentId
    if (typeof paymentId !== 'string' || first?.body.status !== 'succeeded') return c.json({ error: { code: 'not_found', message: 'Pay the first subscription payment first.' } }, 404)
    const repeat = await call(`/v1/payments/${paymentId}/repeat`, { method: 'POST', body: { amount: '9.99', currency: 'EUR' }, headers: { 'Idempotency-Key': crypto.randomUUID() } })
    return c.json(repeat.body, repeat.status as 200)
  })

  demo.get('/demo/api/orders', async (c) => {
    const call = api(c.env)
    const orders = (await shop(c.env)?.orders()) ?? []
    const sessions = await Promise.all(orders.map(async (o) => ({ ...o, session: (await call(`/v1/sessions/${o.sessionId}`)).body })))
    return c.json({ orders: sessions, webhooks: (await shop(c.env)?.webhooks()) ?? [] })
  })

  // The shop's webhook endpoint (MERCHANT_WEBHOOK_URL in development): verify, store, acknowledge.
  demo.post('/demo/webhooks', async (c) => {
    const raw = await c.req.text()
    const result = await verifyWebhook(raw, c.req.header('Pay-Signature'), c.env.WEBHOOK_SECRET)
    if (!result.ok) return c.json({ error: result.reason }, 400)
    await shop(c.env)?.addWebhook({ id: result.event.id, type: result.event.type, receivedAt: new Date().toISOString(), verified: true, data: result.event.data })
    return c.json({ received: true })
  })

  return demo
}
