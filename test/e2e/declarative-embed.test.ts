/**
 * The declarative embed: the merchant's server writes the card frame inside `<pay-checkout>`, so
 * the frame loads with the page instead of after the element's script. The element finds it and
 * uses it where it is (never moved: that would reload it), whether the frame loaded before the
 * element was defined or after.
 */
import { chromium, type Page } from 'playwright-core'
import { CHROME_ARGS, findChrome } from '../../tools/chrome.mjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMerchantPage, type MerchantPage } from './merchant-page.ts'
import { CUSTOMER, fillCard, freshCard, waitForEvent } from './frame-page.ts'

let m: MerchantPage

beforeAll(async () => {
  m = await openMerchantPage()
})

afterAll(() => m?.stop())

/**
 * A shop page with the frame written in the element. `late`: the element's script loads only
 * once the frame has said it is ready (to no one yet), the order a slow network gives.
 */
function embedPage(
  s: { id: string; clientSecret: string },
  frameSession: string,
  late: boolean,
  query = 'locale=en&amp;theme=light',
  attrs = 'locale="en"',
): string {
  const w = m.worker
  const entry = `${w}/widget/pay-checkout.js`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
${late ? '' : `<script type="module" src="${entry}"></script>`}</head>
<body><pay-checkout endpoint="${w}" session="${s.id}" client-secret="${s.clientSecret}" ${attrs}><iframe src="${w}/frame/${frameSession}?${query}" title="Card payment" allow="payment"></iframe></pay-checkout>
<script type="module">
const el = document.querySelector('pay-checkout')
const frame = el.querySelector('iframe')
window.seen = []
window.loads = 0
window.frameSpoke = false
frame.addEventListener('load', () => window.loads++)
addEventListener('message', (e) => { if (e.source === frame.contentWindow && e.data?.type === 'ready') window.frameSpoke = true })
for (const t of ['pay-ready', 'pay-error', 'pay-success', 'pay-change']) el.addEventListener(t, (e) => window.seen.push({ type: t, detail: e.detail }))
${late ? `while (!window.frameSpoke) await new Promise((r) => setTimeout(r, 20))\nwindow.definedAfterReady = !customElements.get('pay-checkout')\nawait import('${entry}')` : ''}
</script></body></html>`
}

async function open(path: string, html: string): Promise<Page> {
  const page = await m.browser.newPage()
  await page.goto(m.serve(path, html))
  return page
}

describe('the declarative embed (the frame written in the element by the shop server)', () => {
  it('a frame that loaded and spoke before the element existed is used where it is: ready, then paid, loaded once', async () => {
    const s = await m.session()
    const page = await open('/embed-late.html', embedPage(s, s.id, true))
    await waitForEvent(page, 'pay-ready')
    expect(await page.evaluate(() => (window as unknown as { definedAfterReady: boolean }).definedAfterReady)).toBe(
      true,
    )
    // Used where it is: no second frame in the element's shadow root.
    expect(await page.evaluate(() => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe'))).toBe(
      null,
    )
    const ui = page.frameLocator('pay-checkout > iframe')
    await fillCard(ui, freshCard())
    await ui.locator('pay-checkout button[type=submit]').click()
    const success = await waitForEvent(page, 'pay-success')
    expect(success.detail).toMatchObject({ status: 'succeeded' })
    expect(await page.evaluate(() => (window as unknown as { loads: number }).loads)).toBe(1)
    await page.close()
  })

  it('the element and the frame loading together (the script in the head) also end ready and the frame unmoved', async () => {
    const s = await m.session()
    const page = await open('/embed.html', embedPage(s, s.id, false))
    await waitForEvent(page, 'pay-ready')
    expect(await page.evaluate(() => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe'))).toBe(
      null,
    )
    expect(await page.locator('pay-checkout > iframe').boundingBox()).toMatchObject({ width: expect.any(Number) })
    expect((await page.locator('pay-checkout > iframe').boundingBox())?.height).toBeGreaterThan(100)
    await page.close()
  })

  // Chrome's own autofill, as a shopper's saved card fills the form: CDP's Autofill.trigger, which
  // the headless shell the other tests run in does not have (the full browser here). The shop on
  // another site than the Worker, as in production (`localhost` and `127.0.0.1`). Where the label's
  // year is not `YY` (German: `MM / JJ`) Chrome writes the expiry as `12/2030`, and writes it again
  // with two digits when the page changes it. (CDP's trigger finds a frame's form through the
  // page's frame tree, which does not hold an iframe in a shadow root, the element's own frame:
  // Chromium's autofill_handler.cc says its lookup is not the real flow's, which takes that frame's
  // form as a form of its own. Hence the written frame here.)
  it('Chrome’s autofill fills the card’s number, expiry and CVV in the German frame of another site, and the shopper pays', async () => {
    const shop = m.shop.replace('127.0.0.1', 'localhost')
    const s = await m.session({ allowedOrigins: [shop] })
    const browser = await chromium.launch({ executablePath: findChrome({ full: true }), args: CHROME_ARGS })
    try {
      const page = await browser.newPage()
      const url = m.serve('/embed-de.html', embedPage(s, s.id, false, 'locale=de&amp;theme=light', 'locale="de"'))
      await page.goto(url.replace(m.shop, shop))
      await waitForEvent(page, 'pay-ready')
      const ui = page.frameLocator('pay-checkout > iframe')
      // Once the session is read, the button names the amount.
      await expect.poll(() => ui.locator('button[type=submit]').textContent()).toMatch(/49,00/)
      await ui.locator('pay-checkout #number').click()
      const frame = page.frames().find((f) => f.url().includes('/frame/'))
      if (!frame) throw new Error('no card frame')
      // Another site's frame has a process and a CDP session of its own.
      const cdp = await page.context().newCDPSession(frame)
      const { result } = await cdp.send('Runtime.evaluate', {
        expression: `document.querySelector('pay-checkout-inline').shadowRoot.querySelector('pay-card-form').shadowRoot.querySelector('#number')`,
      })
      const { node } = await cdp.send('DOM.describeNode', { objectId: result.objectId })
      const { frameTree } = await cdp.send('Page.getFrameTree')
      await cdp.send('Autofill.trigger', {
        fieldId: node.backendNodeId,
        frameId: frameTree.frame.id,
        card: { number: '4111111111111111', name: 'Ada Lovelace', expiryMonth: '12', expiryYear: '2030', cvc: '123' },
      })
      await expect.poll(() => ui.locator('pay-checkout #expiry').inputValue()).toBe('12 / 30')
      expect(await ui.locator('pay-checkout #number').inputValue()).toBe('4111 1111 1111 1111')
      expect(await ui.locator('pay-checkout #cvv').inputValue()).toBe('123')
      // The customer's details are the shopper's own to type.
      for (const id of ['givenName', 'surname', 'email'] as const)
        await ui.locator(`pay-checkout #${id}`).fill(CUSTOMER[id])
      await ui.locator('pay-checkout button[type=submit]').click()
      expect((await waitForEvent(page, 'pay-success')).detail).toMatchObject({ status: 'succeeded', last4: '1111' })
    } finally {
      await browser.close()
    }
  })

  it('a written frame of another session is not used: the element makes its own for its session', async () => {
    const [s, other] = [await m.session(), await m.session()]
    const page = await open('/embed-other.html', embedPage(s, other.id, false))
    await page.waitForFunction(() => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe'))
    expect(
      await page.evaluate(() => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe')?.src),
    ).toContain(`/frame/${s.id}`)
    await waitForEvent(page, 'pay-ready')
    await page.close()
  })

  it('a written frame whose address carries the client secret is not used: the secret never goes in a URL the element uses', async () => {
    const s = await m.session()
    const page = await open(
      '/embed-secret.html',
      embedPage(s, s.id, false, `locale=en&amp;secret=${encodeURIComponent(s.clientSecret)}`),
    )
    await page.waitForFunction(() => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe'))
    const own = await page.evaluate(
      () => document.querySelector('pay-checkout')?.shadowRoot?.querySelector('iframe')?.src ?? '',
    )
    expect(own).toContain(`/frame/${s.id}`)
    expect(own).not.toContain(s.clientSecret)
    await waitForEvent(page, 'pay-ready')
    await page.close()
  })

  it('a written frame in another language, without the shipping address the element asks for, renders itself again as the element wants it', async () => {
    const s = await m.session()
    const page = await open(
      '/embed-rerender.html',
      embedPage(s, s.id, false, 'locale=en', 'locale="de" collect-shipping'),
    )
    const ui = page.frameLocator('pay-checkout > iframe')
    // The frame's form is the Worker's: German labels and the shipping address, once it has asked for them.
    await expect
      .poll(() => ui.locator('pay-checkout label[for=number]').textContent(), { timeout: 15_000 })
      .toBe('Kartennummer')
    await ui.locator('pay-checkout #street').waitFor()
    await waitForEvent(page, 'pay-ready')
    // Still the frame the page wrote, in its place.
    expect(await page.evaluate(() => document.querySelector('pay-checkout > iframe')?.getAttribute('src'))).toContain(
      'locale=en',
    )
    await fillCard(ui, freshCard())
    await ui.locator('pay-checkout #street').fill('Hauptstraße 1')
    await ui.locator('pay-checkout button[type=submit]').click()
    await waitForEvent(page, 'pay-success')
    await page.close()
  })

  it('a written frame in German and dark, in an element that names no language or theme, stays as written: one frame load, German, dark, one pay-ready', async () => {
    const s = await m.session()
    const page = await open('/embed-as-written.html', embedPage(s, s.id, false, 'locale=de&amp;theme=dark', ''))
    const ui = page.frameLocator('pay-checkout > iframe')
    await waitForEvent(page, 'pay-ready')
    // Anything the element asked of the frame has had time to arrive and be acted on.
    await page.waitForTimeout(500)
    expect(await ui.locator('pay-checkout label[for=number]').textContent()).toBe('Kartennummer')
    expect(await ui.locator('pay-checkout pay-checkout-inline').getAttribute('theme')).toBe('dark')
    const seen = await page.evaluate(() => {
      const w = window as unknown as { seen: { type: string }[]; loads: number }
      return { seen: w.seen, loads: w.loads }
    })
    expect(seen.loads).toBe(1)
    expect(seen.seen.filter((e) => e.type === 'pay-ready')).toHaveLength(1)
    await page.close()
  })
})
