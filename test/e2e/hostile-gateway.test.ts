/**
 * A hostile gateway, end to end (SECURITY.md R28): a stand-in on 127.0.0.1 in front of the sandbox
 * forwards every call unchanged, except that each `redirect` in its answers gets a `javascript:`
 * (or `data:`) target. The product Worker (`wrangler dev`) is pointed at the stand-in by its
 * GATEWAY_BASE_URL; a merchant page on its own origin loads the built element from the Worker and
 * the shopper pays with the sandbox's 3-D Secure card in Chromium, in both isolation modes.
 *
 * What the product does, and what is asserted: the Worker refuses the redirect before any browser
 * sees it (the attempt becomes `unknown`, settled by inquiry), so the answers to the page carry no
 * redirect; the page's script never runs, the page never navigates, and the shopper reads that the
 * payment is being confirmed (a `pay-pending` event with status `unknown`).
 *
 * One stack (sandbox and product Worker) for the file, as test/e2e/merchant-page.ts starts it, but
 * with the Worker's gateway address pointing at the stand-in; merchant-page.ts offers no way to
 * set that, so the shop page is served here the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROME_ARGS, findChrome } from '../../tools/chrome.mjs'
import { freePort, STACK_SECRETS, startStack } from '../../tools/stacks.mjs'

/** What the stand-in puts in place of each redirect's target; changed per test. */
let hostileUrl = 'javascript:window.__pwned=1'
/** Redirects the stand-in rewrote: proves each test went through it. */
let rewritten = 0
let target = ''
let gateway: Server
let shopServer: Server
let shop = ''
let browser: Browser
let stack: Awaited<ReturnType<typeof startStack>>
/** Everything the product Worker printed since the stack started. */
let workerLog = ''
const state = mkdtempSync(join(tmpdir(), 'pay-e2e-hostile-'))

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** The stand-in: the sandbox's answers, with every `redirect.url` replaced by `hostileUrl`. */
function startHostileGateway(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined || ['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)) continue
        headers.set(k, Array.isArray(v) ? v.join(', ') : v)
      }
      const upstream = await fetch(new URL(req.url ?? '/', target), {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body.toString('utf8'),
        redirect: 'manual',
      })
      let text = await upstream.text()
      try {
        const json = JSON.parse(text) as { redirect?: { url?: unknown } }
        if (json && typeof json.redirect === 'object' && json.redirect !== null) {
          json.redirect.url = hostileUrl
          rewritten += 1
          text = JSON.stringify(json)
        }
      } catch {
        // Not JSON (an HTML page): passed on as it is.
      }
      const out: Record<string, string> = {}
      upstream.headers.forEach((v, k) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v
      })
      res.writeHead(upstream.status, out).end(text)
    })().catch((e: unknown) => res.writeHead(502).end(String(e)))
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

beforeAll(async () => {
  const gatewayPort = await freePort()
  gateway = await startHostileGateway(gatewayPort)
  // Inquiries every 500 ms: the ones made while a test watches the page go through the stand-in too.
  stack = await startStack({
    stateDir: state,
    vars: { GATEWAY_BASE_URL: `http://127.0.0.1:${gatewayPort}`, CARD_VELOCITY_LIMIT: '1000', INQUIRY_BASE_MS: '500' },
  })
  target = stack.sandbox.url
  for (const out of [stack.worker.child.stdout, stack.worker.child.stderr])
    out?.on('data', (c: Buffer) => (workerLog += c.toString()))
  const worker = stack.worker.url
  shop = `http://127.0.0.1:${await freePort()}`
  shopServer = createServer((req, res) => {
    const q = new URL(req.url ?? '/', shop).searchParams
    const attrs = ['session', 'client-secret', 'isolation'].map((a) => ` ${a}="${q.get(a) ?? ''}"`).join('')
    res.writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="${worker}/widget/pay-checkout.js"></script></head>
<body><pay-checkout endpoint="${worker}" locale="en"${attrs}></pay-checkout>
<script type="module">const el = document.querySelector('pay-checkout'); window.seen = []; for (const t of ['pay-ready', 'pay-error', 'pay-success', 'pay-declined', 'pay-pending']) el.addEventListener(t, (e) => window.seen.push({ type: t, detail: e.detail }))</script></body></html>`)
  })
  await new Promise<void>((r) => shopServer.listen(Number(new URL(shop).port), '127.0.0.1', r))
  browser = await chromium.launch({
    executablePath: findChrome(),
    args: CHROME_ARGS.filter((a: string) => a !== '--headless'),
    headless: true,
  })
})

afterAll(async () => {
  await browser?.close()
  shopServer?.close()
  gateway?.close()
  await stack?.stop()
  rmSync(state, { recursive: true, force: true })
})

async function session(): Promise<{ id: string; clientSecret: string }> {
  const res = await fetch(`${stack.worker.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      flow: 'card',
      amount: '49.00',
      currency: 'EUR',
      merchantTransactionId: `hostile-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      allowedOrigins: [shop],
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    }),
  })
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; clientSecret: string }
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)

describe.each(['inline', 'frame'] as const)(
  'a gateway that answers 3-D Secure with a script URL, isolation="%s"',
  (mode) => {
    it.each([
      'javascript:window.__pwned=1',
      'data:text/html,<script>window.__pwned=1;parent.__pwned=1;top.__pwned=1</script>',
    ])(
      '%s: the Worker refuses it, the page runs nothing and stays, the shopper reads that the payment is being confirmed',
      async (url) => {
        hostileUrl = url
        const before = rewritten
        const s = await session()
        const page = await browser.newPage()
        const dialogs: string[] = []
        page.on('dialog', (d) => {
          dialogs.push(d.message())
          void d.dismiss()
        })
        // Every answer the Worker gives the browser (the page's and the frame's requests alike).
        const answers: string[] = []
        page.on('response', (r) => {
          if (new URL(r.url()).pathname.startsWith('/v1/checkout/'))
            void r.text().then(
              (t) => answers.push(t),
              () => {},
            )
        })
        const address = `${shop}/?${new URLSearchParams({ session: s.id, 'client-secret': s.clientSecret, isolation: mode })}`
        await page.goto(address)
        let navigations = 0
        page.on('framenavigated', (f) => {
          if (f === page.mainFrame()) navigations += 1
        })
        const form: Page | FrameLocator = mode === 'frame' ? page.frameLocator('pay-checkout iframe') : page
        await form.locator('pay-checkout #number').waitFor()
        for (const [id, value] of Object.entries({ number: '4000000000003220', expiry: '1230', cvv: '123' }))
          await form.locator(`pay-checkout #${id}`).fill(value)
        await form.locator('pay-checkout button[type=submit]').click()

        // The shopper is told the payment is being confirmed (and to not pay again).
        await expect
          .poll(() => form.locator('pay-checkout [part=status]').textContent(), { timeout: 20_000 })
          .toMatch(/confirming your payment|being processed/)
        await expect
          .poll(() =>
            page.evaluate(
              () =>
                (window as unknown as { seen: { type: string; detail: { status?: string } }[] }).seen.find(
                  (e) => e.type === 'pay-pending',
                )?.detail.status,
            ),
          )
          .toBe('unknown')
        // The stand-in did hand the Worker the hostile redirect.
        expect(rewritten).toBeGreaterThan(before)
        // ... and the Worker logged why it would not pass it on.
        await expect
          .poll(() => workerLog.split('\n').some((l) => l.includes('unsafe_redirect') && l.includes(s.id)), {
            timeout: 10_000,
          })
          .toBe(true)
        // Watch a while longer: the widget polls and the Worker inquires (through the stand-in too).
        await page.waitForTimeout(2_000)
        expect(page.url()).toBe(address)
        expect(navigations).toBe(0)
        expect(await pwned(page)).toBeUndefined()
        if (mode === 'frame')
          expect(
            await page.frames()[1]?.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
          ).toBeUndefined()
        expect(dialogs).toEqual([])
        // The Worker refused the redirect before any browser saw it: no answer carried it.
        expect(answers.length).toBeGreaterThan(0)
        for (const a of answers) {
          expect(a).not.toContain('__pwned')
          expect((JSON.parse(a) as { redirect?: unknown }).redirect ?? null).toBeNull()
        }
        // The merchant's view agrees: the payment is not settled, and no redirect is kept for it.
        const view = (await (
          await fetch(`${stack.worker.url}/v1/sessions/${s.id}`, {
            headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}` },
          })
        ).json()) as Record<string, unknown>
        expect(['unknown', 'pending']).toContain(view.status)
        expect(JSON.stringify(view)).not.toContain('__pwned')
        await page.close()
      },
    )
  },
)
