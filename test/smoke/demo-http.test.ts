/**
 * The demo shop Worker over real HTTP (sandbox, product Worker and demo Worker, each a
 * `wrangler dev`): each visitor is a cookie, and a visitor sees, reuses and charges only their own
 * orders; the merchant API key never reaches a page; every non-/demo path is the product Worker's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STACK_SECRETS, startDemoStack } from '../../tools/stacks.mjs'

const state = mkdtempSync(join(tmpdir(), 'pay-demo-'))
let stack: Awaited<ReturnType<typeof startDemoStack>>
let shop = ''

beforeAll(async () => {
  stack = await startDemoStack({ stateDir: state })
  shop = stack.demo.url
}, 180_000)

afterAll(async () => {
  await stack?.stop()
  rmSync(state, { recursive: true, force: true })
})

/** A browser-like visitor: keeps the cookie the demo gives it, and sends it back. */
class Visitor {
  cookie = ''
  setCookies: string[] = []
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(`${shop}${path}`, {
      ...init,
      headers: { ...(this.cookie ? { Cookie: this.cookie } : {}), ...(init.headers as Record<string, string>) },
    })
    for (const c of res.headers.getSetCookie()) {
      this.setCookies.push(c)
      this.cookie = c.split(';')[0] ?? ''
    }
    return res
  }
  async post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: shop },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  async orders(): Promise<{
    orders: { sessionId: string; kind: string; session: Record<string, unknown> }[]
    webhooks: { type: string; data: Record<string, unknown> }[]
  }> {
    return (await (await this.fetch('/demo/api/orders')).json()) as never
  }
}

/** Pays a session as the widget does: the browser route, with the client secret, from the shop's origin. */
async function pay(s: { id: string; clientSecret: string }): Promise<string> {
  const res = await fetch(`${shop}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: {
      Origin: shop,
      Authorization: `Bearer ${s.clientSecret}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': crypto.randomUUID(),
    },
    body: JSON.stringify({
      card: {
        number: '5555555555554444',
        expiryMonth: '12',
        expiryYear: String(new Date().getFullYear() + 3),
        cvv: '123',
      },
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    }),
  })
  return ((await res.json()) as { status: string }).status
}

async function paidSubscription(v: Visitor): Promise<string> {
  await v.fetch('/demo/subscription')
  const s = await v.post('/demo/api/session', { kind: 'subscription' })
  expect(s.status).toBe(200)
  expect(await pay(s.body as { id: string; clientSecret: string })).toBe('succeeded')
  return String(s.body.id)
}

describe('the demo shop Worker', () => {
  it('gives each visitor a random HttpOnly, SameSite=Lax cookie', async () => {
    const a = new Visitor()
    const b = new Visitor()
    expect((await a.fetch('/demo/')).status).toBe(200)
    await b.fetch('/demo/')
    expect(a.setCookies).toHaveLength(1)
    expect(a.setCookies[0]).toMatch(/^pay_demo_visitor=[A-Za-z0-9_-]{43};/)
    expect(a.setCookies[0]).toMatch(/; HttpOnly/)
    expect(a.setCookies[0]).toMatch(/; SameSite=Lax/)
    expect(a.setCookies[0]).toMatch(/; Path=\/demo/)
    expect(a.cookie).not.toBe(b.cookie)
    // A returning visitor keeps their id; a malformed one is replaced, never trusted.
    await a.fetch('/demo/orders')
    expect(a.setCookies).toHaveLength(1)
    const forged = new Visitor()
    forged.cookie = 'pay_demo_visitor=shop'
    await forged.fetch('/demo/api/orders')
    expect(forged.cookie).toMatch(/^pay_demo_visitor=[A-Za-z0-9_-]{43}$/)
  })

  it('lists only the visitor’s own orders and webhooks', async () => {
    const alice = new Visitor()
    const bob = new Visitor()
    const subscription = await paidSubscription(alice)
    await bob.fetch('/demo/')
    const product = await bob.post('/demo/api/session', { kind: 'product' })
    expect(product.status).toBe(200)
    await expect
      .poll(
        async () =>
          (await alice.orders()).webhooks.some(
            (w) => w.type === 'checkout.session.succeeded' && w.data.id === subscription,
          ),
        { timeout: 15_000 },
      )
      .toBe(true)
    const mine = await alice.orders()
    expect(mine.orders.map((o) => o.sessionId)).toEqual([subscription])
    expect(mine.orders[0]?.session.registrationId).toEqual(expect.any(String))
    const theirs = await bob.orders()
    expect(theirs.orders.map((o) => o.sessionId)).toEqual([product.body.id])
    expect(JSON.stringify(theirs)).not.toContain(subscription)
    expect(theirs.webhooks).toEqual([])
    // No cookie at all: a new, empty shop.
    expect(await new Visitor().orders()).toEqual({ orders: [], webhooks: [] })
  })

  it('charges again only the visitor’s own subscription, and lends only their own saved card', async () => {
    const alice = new Visitor()
    const mallory = new Visitor()
    const subscription = await paidSubscription(alice)
    await mallory.fetch('/demo/')
    const stolen = await mallory.post('/demo/api/charge-again', { subscription })
    expect(stolen.status).toBe(404)
    const savedCard = await mallory.post('/demo/api/session', { kind: 'saved-card', subscription })
    expect(savedCard.status).toBe(404)
    expect((await mallory.orders()).orders).toEqual([])
    const again = await alice.post('/demo/api/charge-again', { subscription })
    expect(again.status).toBe(200)
    expect(again.body.status).toBe('succeeded')
    // Mallory's refused attempts charged nothing: Alice's first payment and her one repeat only.
    await expect
      .poll(async () => (await alice.orders()).webhooks.filter((w) => w.type.startsWith('payment.repeat.')).length, {
        timeout: 15_000,
      })
      .toBe(1)
    // Every webhook Alice is shown is about her subscription or her repeat, and none reach Mallory.
    const about = (w: { data: Record<string, unknown> }) => [w.data.id, w.data.sessionId, w.data.merchantTransactionId]
    expect(
      (await alice.orders()).webhooks.every(
        (w) => about(w).includes(subscription) || about(w).includes(again.body.merchantTransactionId),
      ),
    ).toBe(true)
    expect((await mallory.orders()).webhooks).toEqual([])
    expect((await alice.post('/demo/api/session', { kind: 'saved-card', subscription })).status).toBe(200)
  })

  it('serves its pages under a strict CSP, the widget from the same origin', async () => {
    const v = new Visitor()
    for (const path of ['/demo/', '/demo/product', '/demo/orders', '/demo/app.js', '/demo/app.css']) {
      const res = await v.fetch(path)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('Content-Security-Policy'), path).toContain("default-src 'self'; script-src 'self'")
    }
    expect((await fetch(`${shop}/demo`, { redirect: 'manual' })).headers.get('Location')).toBe('/demo/')
    expect((await fetch(`${shop}/widget/pay-checkout.js`)).headers.get('Content-Type')).toContain('javascript')
  })

  it('keeps the merchant API key on its server side: no page, script or answer carries it', async () => {
    const v = new Visitor()
    const texts = await Promise.all(
      ['/demo/', '/demo/product', '/demo/subscription', '/demo/orders', '/demo/app.js'].map(async (p) =>
        (await v.fetch(p)).text(),
      ),
    )
    texts.push(JSON.stringify(await v.post('/demo/api/session', { kind: 'product' })), JSON.stringify(await v.orders()))
    for (const text of texts) expect(text).not.toContain(STACK_SECRETS.MERCHANT_API_KEY)
  })

  it('opens the merchant console signed in as the demo merchant with a session cookie alone, never the key', async () => {
    const v = new Visitor()
    const opened = await v.fetch('/demo/console', { redirect: 'manual' })
    expect(opened.status).toBe(303)
    expect(opened.headers.get('Location')).toBe('/console/')
    const setCookie = opened.headers.get('Set-Cookie') ?? ''
    expect(setCookie).toMatch(/^__Host-pay-console=.*HttpOnly/)
    expect(setCookie).not.toContain(STACK_SECRETS.MERCHANT_API_KEY)
    const page = await v.fetch('/console/')
    expect(page.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'")
    expect(await page.text()).toContain('<pay-console sign-in="key">')
    const session = (await (await v.fetch('/console/api/session')).json()) as { merchant: string }
    expect(session.merchant).toBe('default')
    expect(JSON.stringify(session)).not.toContain(STACK_SECRETS.MERCHANT_API_KEY)
  })

  it('forwards every other path to the product Worker, whose public origin it is', async () => {
    expect(
      await (
        await fetch(`${shop}/healthz`, { headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}` } })
      ).json(),
    ).toEqual({ ok: true, gateway: stack.sandbox.url })
    const direct = await fetch(`${stack.product.url}/openapi.json`)
    const proxied = await fetch(`${shop}/openapi.json`)
    expect(await proxied.json()).toEqual(await direct.json())
    // A client that accepts no encoding (curl, as in the README) reads the answer as it is.
    const raw = await new Promise<{ encoding: string | undefined; body: string }>((resolve, reject) => {
      get(`${shop}/openapi.json`, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body }))
      }).on('error', reject)
    })
    expect(raw.encoding).toBeUndefined()
    expect(JSON.parse(raw.body)).toMatchObject({ openapi: expect.any(String) })
    // The product's merchant routes still want the key, through the demo's origin too.
    expect((await fetch(`${shop}/v1/sessions/cs_000000000000000000000000`)).status).toBe(401)
    // And the product Worker itself has no demo.
    expect((await fetch(`${stack.product.url}/demo/`)).status).toBe(404)
  })

  it('forwards a path that begins with // to the product Worker too, never to the host it names', async () => {
    const heard: string[] = []
    const elsewhere = createServer((req, res) => {
      heard.push(`${req.url} ${req.headers.cookie ?? ''}`)
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<script>steal()</script>')
    })
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = elsewhere.address() as AddressInfo
      const res = await fetch(`${shop}//127.0.0.1:${port}/steal`, { headers: { Cookie: '__Host-pay-console=x' } })
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain('steal()')
      expect(heard).toEqual([])
    } finally {
      await new Promise((r) => elsewhere.close(r))
    }
  })

  it('answers 413 to a body over 64 KB on its own routes, by Content-Length and when streamed without one', async () => {
    const big = JSON.stringify({ kind: 'product', pad: 'x'.repeat(64 * 1024) })
    const v = new Visitor()
    await v.fetch('/demo/')
    for (const path of ['/demo/api/session', '/demo/webhooks']) {
      const sized = await v.fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: shop },
        body: big,
      })
      expect(sized.status, path).toBe(413)
      expect(await sized.json(), path).toMatchObject({ error: { code: 'payload_too_large' } })
      const bytes = new TextEncoder().encode(big)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192))
          controller.close()
        },
      })
      const chunked = await v.fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: shop },
        body: stream,
        duplex: 'half',
      } as RequestInit)
      expect(chunked.status, `${path} (chunked)`).toBe(413)
    }
    // Under the limit, the same route still answers.
    expect((await v.post('/demo/api/session', { kind: 'product' })).status).toBe(200)
  })
})
