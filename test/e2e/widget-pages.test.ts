/**
 * <pay-checkout> as a merchant deploys it (a shop page on its own origin, the element from the
 * Worker's origin, default frame mode), on a 390 px phone and in the states a shopper must never
 * be left in silently; takes the README's phone, refused-origin and 3-D Secure return screenshots.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMerchantPage, type MerchantPage } from './merchant-page.ts'
import { SCREENSHOTS } from './shop.ts'

let m: MerchantPage
let shop = ''
const session = (body?: Record<string, unknown>) => m.session(body)

beforeAll(async () => {
  m = await openMerchantPage({ locale: 'en' })
  shop = m.shop
})

afterAll(() => m?.stop())

const seen = (page: Page, type: string) => page.waitForFunction((t) => (window as unknown as { seen: { type: string }[] }).seen.some((e) => e.type === t), type, { timeout: 20_000 })

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
    const codes = await page.evaluate(() => (window as unknown as { seen: { type: string; detail: { code?: string } }[] }).seen.map((e) => e.detail.code))
    expect(codes).toContain('origin_not_allowed')
    await page.locator('pay-checkout [role=alert]').waitFor()
    expect(await page.locator('pay-checkout iframe').isVisible()).toBe(false)
    await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, 'origin-refused-light.png') })
    await page.close()
  })

  it('3-D Secure without a returnUrl ends on a styled page with the result and a link back to the shop', async () => {
    const s = await session()
    const page = await m.browser.newPage({ viewport: { width: 600, height: 700 } })
    await page.goto(m.url(s))
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
