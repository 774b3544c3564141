/**
 * <pay-checkout> as a merchant deploys it (a shop page on its own origin, the element from the
 * Worker's origin, default frame mode), on a 390 px phone and in the states a shopper must never
 * be left in silently; takes the README's phone, refused-origin and 3-D Secure return screenshots.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMerchantPage, type MerchantPage } from './merchant-page.ts'
import { root } from '../../tools/stacks.mjs'
import { SCREENSHOTS } from './shop.ts'

let m: MerchantPage
let shop = ''
const session = (body?: Record<string, unknown>) => m.session(body)

beforeAll(async () => {
  m = await openMerchantPage({ locale: 'en' })
  shop = m.shop
})

afterAll(() => m?.stop())

const seen = (page: Page, type: string) =>
  page.waitForFunction(
    (t) => (window as unknown as { seen: { type: string }[] }).seen.some((e) => e.type === t),
    type,
    { timeout: 20_000 },
  )

describe('<pay-checkout> on a shop page of its own origin', () => {
  for (const theme of ['light', 'dark']) {
    it(`on a 390 px phone (${theme}): the frame shows the form with the test-mode badge and the brand icon, nothing wider than the screen`, async () => {
      const s = await session()
      const page = await m.browser.newPage({ viewport: { width: 390, height: 900 }, deviceScaleFactor: 2 })
      await page.goto(m.url(s, { theme }))
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
    const page = await m.browser.newPage({ viewport: { width: 600, height: 400 } })
    await page.goto(m.url(s))
    await seen(page, 'pay-error')
    const codes = await page.evaluate(() =>
      (window as unknown as { seen: { type: string; detail: { code?: string } }[] }).seen.map((e) => e.detail.code),
    )
    expect(codes).toContain('origin_not_allowed')
    await page.locator('pay-checkout [role=alert]').waitFor()
    expect(await page.locator('pay-checkout iframe').isVisible()).toBe(false)
    await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, 'origin-refused-light.png') })
    await page.close()
  })

  it('3-D Secure without a returnUrl ends on a styled page with the result and a link back to the page that started the payment', async () => {
    const s = await session()
    const page = await m.browser.newPage({ viewport: { width: 600, height: 700 } })
    const refused: string[] = []
    page.on('console', (msg) => {
      if (msg.text().includes('Content Security Policy') && page.url().includes('/v1/return/')) refused.push(msg.text())
    })
    // The shop's checkout page is not its root; its query carries the client secret.
    await page.goto(m.url(s).replace(`${shop}/?`, `${shop}/cart/checkout?`))
    await seen(page, 'pay-ready')
    const frame = page.frameLocator('pay-checkout iframe')
    await frame.locator('[part=amount]').waitFor()
    for (const [id, value] of Object.entries({
      number: '4000 0000 0000 3220',
      expiry: '1230',
      cvv: '123',
      givenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
    }))
      await frame.locator(`#${id}`).fill(value)
    await frame.locator('button[type=submit]').click()
    // The sandbox bank's page, then back to the Worker's return page.
    await page.waitForURL(/\/acs\//, { timeout: 20_000 })
    // The sandbox's bank page names an empty icon of its own too.
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('data:,')
    await page.locator('button[value=authenticated]').click()
    await page.waitForLoadState()
    // The sandbox hands the shopper back by a form post (its page may need a click without script).
    if (!/\/v1\/return\//.test(page.url()))
      await page
        .locator('#back button')
        .click({ timeout: 5_000 })
        .catch(() => undefined)
    await page.waitForURL(/\/v1\/return\//, { timeout: 20_000 })
    await page.locator('main h1').waitFor()
    // It names an empty icon of its own, which its CSP allows: the browser asks the Worker for no
    // /favicon.ico, and says nothing was refused.
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('data:,')
    expect(refused).toEqual([])
    expect(await page.locator('main h1').textContent()).toMatch(/Payment successful|We are confirming your payment/)
    // The frame had the page from the element: its path, never its query (the secret).
    expect(await page.locator('a.back').getAttribute('href')).toBe(`${shop}/cart/checkout`)
    await page.screenshot({ path: join(SCREENSHOTS, 'return-light.png') })
    await page.locator('a.back').click()
    await page.waitForURL(`${shop}/cart/checkout`)
    await page.close()
  })

  it("the README's script tag, as written, with the build's hashes (entry integrity, and the import map for inline mode): the element loads and is ready", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const tag = /```html\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    const mapCommand = /```sh\n(node -e [\s\S]*?importmap\.json[\s\S]*?)```/.exec(readme)?.[1] ?? ''
    expect(tag).toContain('integrity="sha384-..."')
    expect(mapCommand).toContain('https://pay.example.com')
    // The hash of the entry as the Worker serves it (the README's openssl line computes the same from dist/).
    const entry = Buffer.from(await (await fetch(`${m.worker}/widget/pay-checkout.js`)).arrayBuffer())
    const entryHash = `sha384-${createHash('sha384').update(entry).digest('base64')}`
    // The README's command that turns the build's importmap.json into the page's map, run as written.
    const map = execFileSync('sh', ['-c', mapCommand.replaceAll('https://pay.example.com', m.worker)], {
      cwd: root,
      encoding: 'utf8',
    }).trim()
    for (const isolation of ['frame', 'inline']) {
      const s = await session()
      const html = tag
        .replaceAll('https://pay.example.com', m.worker)
        .replace(/<script type="importmap">[^<]*<\/script>/, `<script type="importmap">${map}</script>`)
        .replace('integrity="sha384-..."', `integrity="${entryHash}"`)
        .replace(
          'client-secret="cs_..._secret_..."',
          `client-secret="${s.clientSecret}"${isolation === 'inline' ? ' isolation="inline"' : ''}`,
        )
        .replace('session="cs_..."', `session="${s.id}"`)
      const url = m.serve(
        `/readme-${isolation}.html`,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>${html}
<script type="module">window.seen = []; document.querySelector('pay-checkout').addEventListener('pay-ready', (e) => window.seen.push({ type: 'pay-ready' }))</script></body></html>`,
      )
      const page = await m.browser.newPage({ viewport: { width: 600, height: 700 } })
      const failed: string[] = []
      page.on('requestfailed', (r) => failed.push(new URL(r.url()).pathname))
      await page.goto(url)
      await seen(page, 'pay-ready')
      const form = isolation === 'frame' ? page.frameLocator('pay-checkout iframe') : page
      await form.locator('pay-checkout #number').waitFor()
      expect(failed, isolation).toEqual([])
      await page.close()
    }
  })
})
