/**
 * <pay-checkout> as a merchant deploys it (a shop page on its own origin, the element from the
 * Worker's origin, default frame mode), on a 390 px phone and in the states a shopper must never
 * be left in silently; takes the README's phone, refused-origin and 3-D Secure return screenshots.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROME_ARGS, findChrome } from '../support/chrome.mjs'
import { freePort, startStack, STACK_SECRETS } from '../support/processes.mjs'
import { SCREENSHOTS } from './shop.ts'

let stack: Awaited<ReturnType<typeof startStack>>
let browser: Browser
let server: Server
let shop = ''
const state = mkdtempSync(join(tmpdir(), 'pay-e2e-widget-'))

beforeAll(async () => {
  stack = await startStack({ stateDir: state, vars: { CARD_VELOCITY_LIMIT: '1000' } })
  const port = await freePort()
  shop = `http://127.0.0.1:${port}`
  // The shop's page: the element from the Worker's origin, attributes from the query.
  server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', shop).searchParams
    const attrs = ['session', 'client-secret', 'theme', 'isolation'].map((a) => (q.get(a) ? ` ${a}="${q.get(a)}"` : '')).join('')
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<style>body{margin:0;padding:16px;font-family:system-ui;background:${q.get('theme') === 'dark' ? '#121214' : '#f4f4f6'}}</style>
<script type="module" src="${stack.worker.url}/widget/pay-checkout.js"></script></head>
<body><pay-checkout endpoint="${stack.worker.url}" locale="en"${attrs}></pay-checkout>
<script type="module">const el = document.querySelector('pay-checkout'); window.seen = []; for (const t of ['pay-ready', 'pay-error', 'pay-success']) el.addEventListener(t, (e) => window.seen.push({ type: t, detail: e.detail }))</script></body></html>`)
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
  browser = await chromium.launch({ executablePath: findChrome(), args: CHROME_ARGS.filter((a: string) => a !== '--headless'), headless: true })
})

afterAll(async () => {
  await browser?.close()
  server?.close()
  await stack?.stop()
  rmSync(state, { recursive: true, force: true })
})

async function session(body: Record<string, unknown> = {}): Promise<{ id: string; clientSecret: string }> {
  const res = await fetch(`${stack.worker.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ flow: 'card', amount: '49.00', currency: 'EUR', merchantTransactionId: `w-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, allowedOrigins: [shop], ...body }),
  })
  return (await res.json()) as { id: string; clientSecret: string }
}

const seen = (page: Page, type: string) => page.waitForFunction((t) => (window as unknown as { seen: { type: string }[] }).seen.some((e) => e.type === t), type, { timeout: 20_000 })

describe('<pay-checkout> on a shop page of its own origin', () => {
  for (const theme of ['light', 'dark']) {
    it(`on a 390 px phone (${theme}): the frame shows the form with the test-mode badge and the brand icon, nothing wider than the screen`, async () => {
      const s = await session()
      const page = await browser.newPage({ viewport: { width: 390, height: 900 }, deviceScaleFactor: 2 })
      await page.goto(`${shop}/?session=${s.id}&client-secret=${encodeURIComponent(s.clientSecret)}&theme=${theme}`)
      await seen(page, 'pay-ready')
      const frame = page.frameLocator('pay-checkout iframe')
      await frame.locator('[part=badge]').waitFor()
      expect(await frame.locator('[part=badge]').textContent()).toBe('Test mode')
      await frame.locator('#number').fill('4111 1111 1111 1111')
      await frame.locator('[part=brand] svg').waitFor()
      await frame.locator('[part=amount]').waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      await page.waitForTimeout(300)
      await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, `phone-${theme}.png`) })
      await page.close()
    })
  }

  it('an origin the session does not allow: a message in place of the frame, and pay-error origin_not_allowed', async () => {
    const s = await session({ allowedOrigins: ['https://elsewhere.example'] })
    const page = await browser.newPage({ viewport: { width: 600, height: 400 } })
    await page.goto(`${shop}/?session=${s.id}&client-secret=${encodeURIComponent(s.clientSecret)}`)
    await seen(page, 'pay-error')
    const codes = await page.evaluate(() => (window as unknown as { seen: { type: string; detail: { code?: string } }[] }).seen.map((e) => e.detail.code))
    expect(codes).toContain('origin_not_allowed')
    await page.locator('pay-checkout [role=alert]').waitFor()
    expect(await page.locator('pay-checkout iframe').isVisible()).toBe(false)
    await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, 'origin-refused-light.png') })
    await page.close()
  })

  it('3-D Secure without a returnUrl ends on a styled page with the result and a link back to the shop', async () => {
    const s = await session()
    const page = await browser.newPage({ viewport: { width: 600, height: 700 } })
    await page.goto(`${shop}/?session=${s.id}&client-secret=${encodeURIComponent(s.clientSecret)}`)
    await seen(page, 'pay-ready')
    const frame = page.frameLocator('pay-checkout iframe')
    await frame.locator('[part=amount]').waitFor()
    for (const [id, value] of Object.entries({ number: '4000 0000 0000 3220', expiry: '1230', cvv: '123', givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' })) await frame.locator(`#${id}`).fill(value)
    await frame.locator('button[type=submit]').click()
    // The sandbox bank's page, then back to the Worker's return page.
    await page.waitForURL(/\/acs\//, { timeout: 20_000 })
    await page.locator('button[value=authenticated]').click()
    await page.waitForLoadState()
    // The sandbox hands the shopper back by a form post (its page may need a click without script).
    if (!/\/v1\/return\//.test(page.url())) await page.locator('#back button').click({ timeout: 5_000 }).catch(() => undefined)
    await page.waitForURL(/\/v1\/return\//, { timeout: 20_000 })
    await page.locator('main h1').waitFor()
    expect(await page.locator('main h1').textContent()).toMatch(/Payment successful|We are confirming your payment/)
    expect(await page.locator('a.back').getAttribute('href')).toBe(`${shop}/`)
    await page.screenshot({ path: join(SCREENSHOTS, 'return-light.png') })
    await page.locator('a.back').click()
    await page.waitForURL(`${shop}/`)
    await page.close()
  })
})
