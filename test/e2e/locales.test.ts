/**
 * Right-to-left checkout as a merchant deploys it: a shop page on its own origin loads
 * `<pay-checkout locale="ar">` (and `he`) from the Worker's origin. In frame mode the card frame's
 * document and form read right to left, labels on the right, while the card number stays left to
 * right; the same in inline mode. Takes the README's RTL screenshot. And the built locale chunks
 * load as they should: a card-only session gets its card flow messages alone, a session with a QR
 * wallet also the picker's and the wallet's, in the same language.
 */
import { join } from 'node:path'
import type { FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMerchantPage, type MerchantPage } from './merchant-page.ts'
import { SCREENSHOTS } from './shop.ts'

// The shop's page itself reads left to right.
let m: MerchantPage

beforeAll(async () => {
  m = await openMerchantPage({ theme: 'light' })
})

afterAll(() => m?.stop())

async function open(
  locale: string,
  isolation: 'frame' | 'inline',
  body: Record<string, unknown> = {},
): Promise<{ page: Page; form: Page | FrameLocator; requested: string[] }> {
  const s = await m.session(body)
  const page = await m.browser.newPage({ viewport: { width: 480, height: 900 }, deviceScaleFactor: 2 })
  const requested: string[] = []
  page.on('request', (r) => requested.push(new URL(r.url()).pathname))
  await page.goto(m.url(s, { locale, isolation }))
  await page.waitForFunction(
    () => (window as unknown as { seen: { type: string }[] }).seen.some((e) => e.type === 'pay-ready'),
    undefined,
    { timeout: 20_000 },
  )
  const form = isolation === 'frame' ? page.frameLocator('pay-checkout iframe') : page
  await form.locator('pay-checkout [part=amount]').waitFor()
  return { page, form, requested }
}

/** The form's direction, the card number's, and where the card number's label text sits in its field. */
async function layout(form: Page | FrameLocator) {
  return form.locator('pay-checkout label[for=number]').evaluate((label) => {
    const root = label.getRootNode() as ShadowRoot
    const number = root.querySelector('#number') as HTMLInputElement
    const range = document.createRange()
    range.selectNodeContents(label)
    const text = range.getBoundingClientRect()
    const field = number.getBoundingClientRect()
    return {
      document: document.documentElement.dir,
      form: getComputedStyle(root.host).direction,
      number: getComputedStyle(number).direction,
      labelFromRight: Math.round(field.right - text.right),
      labelFromLeft: Math.round(text.left - field.left),
      label: label.textContent,
    }
  })
}

describe('locales where the merchant deploys them (the built widget)', () => {
  it('ar, frame mode: the card frame reads right to left, labels on the right, the card number left to right (README screenshot)', async () => {
    const { page, form } = await open('ar', 'frame')
    const l = await layout(form)
    expect(l).toMatchObject({ document: 'rtl', form: 'rtl', number: 'ltr', label: 'رقم البطاقة' })
    expect(l.labelFromRight).toBeLessThanOrEqual(1)
    expect(l.labelFromLeft).toBeGreaterThan(100)
    await form.locator('pay-checkout #number').fill('4111 1111 1111 1111')
    await form.locator('pay-checkout [part=brand] svg').waitFor()
    expect(await form.locator('pay-checkout #number').inputValue()).toBe('4111 1111 1111 1111')
    expect(await form.locator('pay-checkout button[type=submit]').textContent()).toContain('ادفع')
    await page.waitForTimeout(300)
    await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, 'rtl-ar-light.png') })
    await page.close()
  })

  it('he, inline mode: the same mirrored layout in the page itself', async () => {
    const { page, form } = await open('he', 'inline')
    const l = await layout(form)
    expect(l).toMatchObject({ form: 'rtl', number: 'ltr', label: 'מספר כרטיס' })
    expect(l.labelFromRight).toBeLessThanOrEqual(1)
    expect(l.labelFromLeft).toBeGreaterThan(100)
    // The shop's own page keeps its direction.
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('ltr')
    await page.close()
  })

  it('de, card only: the card flow’s German messages load, the other methods’ do not', async () => {
    const { page, form, requested } = await open('de', 'inline')
    expect(await form.locator('pay-checkout label[for=number]').textContent()).toBe('Kartennummer')
    expect(requested).toContain('/widget/chunks/de.js')
    expect(requested).not.toContain('/widget/chunks/de.more.js')
    await page.close()
  })

  it('de, card and QR: the picker and the QR wallet speak German too (their messages, a chunk of their own)', async () => {
    const { page, requested } = await open('de', 'inline', {
      methods: ['card', 'qr'],
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const qr = page.locator('pay-checkout [role=radio]', { hasText: 'QR-Wallet' })
    await qr.waitFor()
    expect(await page.locator('pay-checkout [role=radio]', { hasText: 'Karte' }).count()).toBe(1)
    expect(requested).toContain('/widget/chunks/de.more.js')
    await qr.click()
    const next = page.locator('pay-checkout pay-qr-wallet button[type=submit]')
    await next.waitFor()
    expect((await next.textContent())?.trim()).toBe('Weiter')
    await page.close()
  })
})
