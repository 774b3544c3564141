/**
 * @module
 * The demo shop's pages and backend at `/demo/`. The backend does what a merchant's server does:
 * creates sessions on the product Worker's merchant API with the merchant API key (server side,
 * never in a page), charges again through the repeat route, and receives and verifies webhooks.
 * Every order is bound to the visitor's cookie: a visitor lists, reuses and charges only their own.
 */
import { Hono } from 'hono'
import { createPayClient, verifyWebhook, type components, type PayClient } from '../../server/index.ts'
import type { DemoEnv } from './env.ts'
import { DEMO_CSS, page, type DemoPage } from './pages.ts'
import { DEMO_SCRIPT } from './script.ts'
import { visitor, type VisitorVariables } from './visitor.ts'

type SessionCreate = components['schemas']['SessionCreate']

export const PAGES: readonly DemoPage[] = [
  'product',
  'checkout',
  'subscription',
  'saved-card',
  'qr',
  'invoice',
  'orders',
]

const shop = (env: DemoEnv) => env.SHOP.get(env.SHOP.idFromName('shop'))

/**
 * The product Worker's merchant API over HTTP, as a merchant's server calls it: the SDK's typed
 * client (`pay-checkout/server`, generated from the API document), with the API key, no Origin.
 */
function productApi(env: DemoEnv): PayClient {
  return createPayClient({ baseUrl: env.PRODUCT_URL, apiKey: env.MERCHANT_API_KEY })
}

/** A session as the merchant API answers it, or undefined. */
async function sessionOf(api: PayClient, id: string) {
  return (await api.GET('/v1/sessions/{id}', { params: { path: { id } } })).data
}

const notYours = (what: string) => ({ error: { code: 'not_found', message: what } })

/**
 * Which of the shop's references a webhook is about: the session (`checkout.session.*`,
 * `checkout.attempt.*` carry it as `id`, invoice events as `sessionId`), or a repeat's reference.
 */
function webhookRef(type: string, data: Record<string, unknown>): string | undefined {
  const ref =
    typeof data.sessionId === 'string'
      ? data.sessionId
      : type.startsWith('checkout.')
        ? data.id
        : data.merchantTransactionId
  return typeof ref === 'string' ? ref : undefined
}

/** The demo app, with full paths (/demo/, /demo/product, ...) so that /demo/ itself is a route. */
export const demoApp = new Hono<{ Bindings: DemoEnv; Variables: VisitorVariables }>()

// The demo pages run under the strict policy merchants are told they can use.
demoApp.use('/demo/*', async (c, next) => {
  await next()
  // form-action: the 3-D Secure step posts the top window to the gateway's bank page.
  c.header(
    'Content-Security-Policy',
    `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self' ${new URL(c.env.GATEWAY_BASE_URL).origin}`,
  )
})
demoApp.get('/demo/app.css', (c) => c.body(DEMO_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }))
demoApp.get('/demo/app.js', (c) =>
  c.body(DEMO_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' }),
)

// The merchant's staff open the console signed in as the demo merchant: the shop's server signs in
// with its API key (server side, as a merchant's own single sign-on would) and passes on only the
// session cookie. Every visitor of the demo is its staff: never deploy the demo.
demoApp.get('/demo/console', async (c) => {
  const res = await fetch(new URL('/console/api/session', c.env.PRODUCT_URL), {
    method: 'POST',
    // The console takes sign-ins from its own origin only: the demo's, which the product shares.
    headers: { 'Content-Type': 'application/json', Origin: new URL(c.req.url).origin },
    body: JSON.stringify({ apiKey: c.env.MERCHANT_API_KEY }),
  })
  const cookie = res.headers.get('Set-Cookie')
  await res.body?.cancel()
  if (!res.ok || !cookie) return c.text(`The console did not open (${res.status}).`, 502)
  return new Response(null, {
    status: 303,
    headers: { Location: '/console/', 'Set-Cookie': cookie, 'Cache-Control': 'no-store' },
  })
})

// The webhook receiver is called by the product Worker, not by a visitor: no cookie. A webhook is
// stored under the reference it is about and shown to whoever owns that reference.
demoApp.post('/demo/webhooks', async (c) => {
  const raw = await c.req.text()
  const result = await verifyWebhook(raw, c.req.header('Pay-Signature'), c.env.WEBHOOK_SECRET)
  if (!result.ok) return c.json({ error: result.reason }, 400)
  const { id, type, data } = result.event
  await shop(c.env).addWebhook(webhookRef(type, data), {
    id,
    type,
    receivedAt: new Date().toISOString(),
    verified: true,
    data,
  })
  return c.json({ received: true })
})

// Everything else under /demo/ belongs to one visitor.
demoApp.use('/demo/*', visitor())
demoApp.get('/demo/', (c) => c.html(page('index')))
for (const p of PAGES) demoApp.get(`/demo/${p}`, (c) => c.html(page(p)))

demoApp.post('/demo/api/session', async (c) => {
  const api = productApi(c.env)
  const me = c.get('visitor')
  const origin = new URL(c.req.url).origin
  const input = (await c.req.json().catch(() => ({}))) as { kind?: string; subscription?: string; authorize?: boolean }
  const order = `demo-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`
  const base = {
    currency: 'EUR',
    merchantTransactionId: order,
    allowedOrigins: [origin],
    customer: { email: 'shopper@example.com' },
  }
  let body: SessionCreate
  switch (input.kind) {
    case 'product':
      // "Authorise only" (paymentType PA): captured or voided later from the orders page.
      body = {
        ...base,
        flow: 'card',
        amount: '49.00',
        returnUrl: `${origin}/demo/product`,
        ...(input.authorize === true ? { paymentType: 'PA' as const } : {}),
      }
      break
    case 'checkout':
      // Several ways to pay in one session: the shopper picks one in the element.
      body = {
        ...base,
        methods: ['card', 'qr'],
        amount: '35.00',
        returnUrl: `${origin}/demo/checkout`,
        customer: { givenName: 'Ada', surname: 'Lovelace', email: 'shopper@example.com' },
      }
      break
    case 'subscription':
      body = {
        ...base,
        flow: 'card',
        amount: '9.99',
        recurring: 'INITIAL',
        createRegistration: true,
        returnUrl: `${origin}/demo/subscription`,
      }
      break
    case 'saved-card': {
      // Only the visitor's own subscription lends its card: a registrationId pays without the number.
      const mine = input.subscription ? await shop(c.env).order(me, input.subscription) : undefined
      const first = mine?.kind === 'subscription' ? await sessionOf(api, mine.sessionId) : undefined
      const registrationId = first?.registrationId
      if (typeof registrationId !== 'string')
        return c.json(notYours('Pay a subscription first: its card is the saved card.'), 404)
      const card = first?.card
      body = {
        ...base,
        flow: 'saved-card',
        amount: '9.99',
        registrationId,
        ...(card?.brand && card.last4 ? { savedCard: { brand: card.brand, last4: card.last4 } } : {}),
      }
      break
    }
    case 'qr':
      body = {
        ...base,
        flow: 'qr',
        amount: '25.00',
        customer: { givenName: 'Ada', surname: 'Lovelace', email: 'shopper@example.com' },
      }
      break
    case 'invoice': {
      // An invoice that expired already, as the gateway's dashboard would hold one: the sandbox
      // issues it through its test controls (a merchant's staff would use the dashboard).
      const issued = await fetch(`${c.env.GATEWAY_BASE_URL}/sandbox/invoices`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          merchantInvoiceId: `${order}-expired`,
          amount: '120.00',
          currency: 'EUR',
          invoiceExpirationPeriod: '0',
          customerEmail: 'shopper@example.com',
        }),
      }).catch(() => undefined)
      const old = issued?.ok ? ((await issued.json()) as { systemInvoiceId?: unknown }) : undefined
      if (typeof old?.systemInvoiceId !== 'string')
        return c.json({ error: { code: 'gateway_error', message: 'Could not create the demo invoice.' } }, 502)
      body = {
        ...base,
        flow: 'invoice',
        amount: '120.00',
        invoiceId: old.systemInvoiceId,
        // The order's invoice, as the element names it before and after the new one is issued.
        merchantInvoiceId: order,
        invoiceExpirationPeriod: '24',
        // Back on the invoice's own page, which shows it paid (the orders page is the back office).
        returnUrl: `${origin}/demo/invoice`,
      }
      break
    }
    default:
      return c.json({ error: { code: 'invalid_request', message: 'Unknown demo page.' } }, 400)
  }
  const created = await api.POST('/v1/sessions', { body })
  if (!created.data?.id) return c.json(created.error ?? {}, created.response.status as 400)
  await shop(c.env).addOrder(me, { sessionId: created.data.id, kind: input.kind, createdAt: new Date().toISOString() })
  // Only the session id, its client secret and its frame token go to the page; the merchant key stays here.
  const { id, clientSecret, frameToken } = created.data
  return c.json({ endpoint: origin, id, clientSecret, frameToken })
})

demoApp.post('/demo/api/charge-again', async (c) => {
  const api = productApi(c.env)
  const me = c.get('visitor')
  const { subscription } = (await c.req.json().catch(() => ({}))) as { subscription?: string }
  // Another visitor's subscription is answered exactly like one that does not exist.
  const mine = typeof subscription === 'string' ? await shop(c.env).order(me, subscription) : undefined
  const first = mine?.kind === 'subscription' ? await sessionOf(api, mine.sessionId) : undefined
  const paymentId = first?.paymentId
  if (typeof paymentId !== 'string' || first?.status !== 'succeeded')
    return c.json(notYours('Pay the first subscription payment first.'), 404)
  const repeat = await api.POST('/v1/payments/{paymentId}/repeat', {
    params: { path: { paymentId }, header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { amount: '9.99', currency: 'EUR' },
  })
  // The repeat's webhooks name its reference: it is this visitor's too.
  if (typeof repeat.data?.merchantTransactionId === 'string')
    await shop(c.env).addRef(me, repeat.data.merchantTransactionId)
  return c.json(repeat.data ?? repeat.error ?? {}, repeat.response.status as 200)
})

demoApp.get('/demo/api/orders', async (c) => {
  const api = productApi(c.env)
  const me = c.get('visitor')
  const orders = await shop(c.env).orders(me)
  const sessions = await Promise.all(
    orders.map(async (o) => {
      const session = await sessionOf(api, o.sessionId)
      // The payment record (amounts captured and refunded, its refunds) follows the session's success.
      const paymentId = session?.status === 'succeeded' ? session.paymentId : undefined
      const payment =
        typeof paymentId === 'string'
          ? (await api.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })).data
          : undefined
      return { ...o, session: session ?? {}, payment: payment ?? null }
    }),
  )
  return c.json({ orders: sessions, webhooks: await shop(c.env).webhooks(me) })
})

/** The orders page's Refund / Capture / Void buttons, through the merchant API as a shop's back office would. */
const PAYMENT_ACTIONS: Readonly<Record<string, string>> = { refund: 'refunds', capture: 'capture', void: 'void' }

demoApp.post('/demo/api/payment-action', async (c) => {
  const api = productApi(c.env)
  const me = c.get('visitor')
  const input = (await c.req.json().catch(() => ({}))) as { session?: unknown; action?: unknown; amount?: unknown }
  const path = typeof input.action === 'string' ? PAYMENT_ACTIONS[input.action] : undefined
  if (!path) return c.json({ error: { code: 'invalid_request', message: 'Refund, capture or void.' } }, 400)
  // Another visitor's order is answered exactly like one that does not exist.
  const mine = typeof input.session === 'string' ? await shop(c.env).order(me, input.session) : undefined
  const session = mine ? await sessionOf(api, mine.sessionId) : undefined
  const paymentId = session?.paymentId
  if (typeof paymentId !== 'string' || session?.status !== 'succeeded')
    return c.json(notYours('No paid order to act on.'), 404)
  const body =
    typeof input.amount === 'string' && input.amount.trim() !== '' && path !== 'void'
      ? { amount: input.amount.trim() }
      : {}
  const params = { path: { paymentId }, header: { 'Idempotency-Key': crypto.randomUUID() } }
  const res =
    path === 'capture'
      ? await api.POST('/v1/payments/{paymentId}/capture', { params, body })
      : path === 'refunds'
        ? await api.POST('/v1/payments/{paymentId}/refunds', { params, body })
        : await api.POST('/v1/payments/{paymentId}/void', { params, body: {} })
  return c.json(res.data ?? res.error ?? {}, res.response.status as 200)
})

demoApp.all('/demo/*', (c) => c.json({ error: { code: 'not_found', message: 'No such demo page.' } }, 404))
