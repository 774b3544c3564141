/**
 * A merchant's own page, as a merchant deploys the element: a shop on its own origin (a local
 * server) that loads `<pay-checkout>` from the Worker's origin (the shared demo stack's public
 * origin, which serves the product Worker at every path outside /demo/), with the element's
 * attributes taken from the page's query, and a Chromium to open it in. The page records the
 * element's events in `window.seen`.
 */
import { createServer } from 'node:http'
import { chromium, type Browser } from 'playwright-core'
import { inject } from 'vitest'
import { CHROME_ARGS, findChrome } from '../../tools/chrome.mjs'
import { freePort, STACK_SECRETS } from '../../tools/stacks.mjs'

const ATTRIBUTES = ['session', 'client-secret', 'theme', 'locale', 'isolation'] as const
const EVENTS = ['pay-ready', 'pay-error', 'pay-success', 'pay-change']

export interface MerchantPage {
  /** The Worker's origin (the element, the API). */
  readonly worker: string
  /** The shop page's origin. */
  readonly shop: string
  readonly browser: Browser
  /** A session the shop's server would create (card, 49.00 EUR, the shop's origin allowed), `body` over it. */
  session(body?: Record<string, unknown>): Promise<{ id: string; clientSecret: string }>
  /** The shop page's address for a session, with more of the element's attributes. */
  url(
    s: { id: string; clientSecret: string },
    attributes?: Partial<Record<(typeof ATTRIBUTES)[number], string>>,
  ): string
  /** Serves `html` as the shop's page at `path` (a page of the merchant's own making); its address. */
  serve(path: string, html: string): string
  stop(): Promise<void>
}

/** Starts the shop page and Chromium; `defaults` are attributes the page sets unless its query does. */
export async function openMerchantPage(
  defaults: Partial<Record<(typeof ATTRIBUTES)[number], string>> = {},
): Promise<MerchantPage> {
  const worker = inject('shopStack').demo
  const shop = `http://127.0.0.1:${await freePort()}`
  const pages = new Map<string, string>()
  const server = createServer((req, res) => {
    const own = pages.get(new URL(req.url ?? '/', shop).pathname)
    if (own !== undefined) return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(own)
    const q = new URL(req.url ?? '/', shop).searchParams
    const value = (a: (typeof ATTRIBUTES)[number]) => q.get(a) ?? defaults[a]
    const attrs = ATTRIBUTES.map((a) => (value(a) ? ` ${a}="${value(a)}"` : '')).join('')
    res.writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<style>body{margin:0;padding:16px;font-family:system-ui;background:${value('theme') === 'dark' ? '#121214' : '#f4f4f6'}}</style>
<script type="module" src="${worker}/widget/pay-checkout.js"></script></head>
<body><pay-checkout endpoint="${worker}"${attrs}></pay-checkout>
<script type="module">const el = document.querySelector('pay-checkout'); window.seen = []; for (const t of ${JSON.stringify(EVENTS)}) el.addEventListener(t, (e) => window.seen.push({ type: t, detail: e.detail }))</script></body></html>`)
  })
  await new Promise<void>((r) => server.listen(Number(new URL(shop).port), '127.0.0.1', r))
  const browser = await chromium.launch({
    executablePath: findChrome(),
    args: CHROME_ARGS.filter((a: string) => a !== '--headless'),
    headless: true,
  })
  return {
    worker,
    shop,
    browser,
    async session(body = {}) {
      const res = await fetch(`${worker}/v1/sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          flow: 'card',
          amount: '49.00',
          currency: 'EUR',
          merchantTransactionId: `p-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
          allowedOrigins: [shop],
          ...body,
        }),
      })
      return (await res.json()) as { id: string; clientSecret: string }
    },
    url(s, attributes = {}) {
      const q = new URLSearchParams({ session: s.id, 'client-secret': s.clientSecret, ...attributes })
      return `${shop}/?${q}`
    },
    serve(path, html) {
      pages.set(path, html)
      return `${shop}${path}`
    },
    async stop() {
      await browser.close()
      server.close()
    },
  }
}
