/**
 * Isolated card entry: `<pay-checkout isolation="frame">` on a merchant page of another origin
 * (http://localhost:PORT, while the Worker is http://127.0.0.1:PORT). The card form lives in a
 * frame on the Worker's origin; the merchant page must not be able to read card data, and must
 * receive none of it in any message.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STACK_SECRETS } from '../../tools/stacks.mjs'
import { freePort } from '../../tools/stacks.mjs'
import { axeViolations, openShop, type Shop } from './shop.ts'
import { fillCard } from './frame-page.ts'

let shop: Shop
let merchant: Server
let merchantOrigin = ''
let evil: Server
let evilOrigin = ''

/** The merchant page's own script: records every message and event it sees, for the tests. */
const PAGE_JS = `
window.seen = []
window.addEventListener('message', (e) => window.seen.push({ kind: 'message', origin: e.origin, data: JSON.stringify(e.data) }))
const el = document.querySelector('pay-checkout')
for (const t of ['pay-ready', 'pay-change', 'pay-success', 'pay-declined', 'pay-pending', 'pay-error', 'pay-action']) el.addEventListener(t, (e) => window.seen.push({ kind: t, data: JSON.stringify(e.detail) }))
const q = new URLSearchParams(location.search)
el.setAttribute('endpoint', q.get('endpoint'))
el.setAttribute('session', q.get('session'))
el.setAttribute('client-secret', q.get('secret'))
if (q.get('t')) el.setAttribute('frame-token', q.get('t'))
`

function pageHtml(workerUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<link rel="stylesheet" href="/page.css"><script type="module" src="${workerUrl}/widget/pay-checkout.js"></script><script type="module" src="/page.js"></script></head>
<body><h1>Checkout</h1><pay-checkout isolation="frame"></pay-checkout></body></html>`
}

async function serve(html: (url: URL) => string): Promise<{ server: Server; origin: string }> {
  const port = await freePort()
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/page.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(PAGE_JS)
    if (url.pathname === '/page.css')
      return void res.writeHead(200, { 'Content-Type': 'text/css' }).end('pay-checkout { --pay-accent: #7a1fa2; }')
    res
      .writeHead(200, {
        'Content-Type': 'text/html',
        'Content-Security-Policy': "script-src 'self' http://127.0.0.1:*; style-src 'self'",
      })
      .end(html(url))
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()))
  return { server, origin: `http://localhost:${port}` }
}

beforeAll(async () => {
  shop = await openShop()
  ;({ server: merchant, origin: merchantOrigin } = await serve(() => pageHtml(shop.url)))
  const other = await serve(
    (url) =>
      `<!doctype html><title>evil</title><iframe src="${shop.url}/frame/${url.searchParams.get('session')}?t=${url.searchParams.get('t')}"></iframe>`,
  )
  evil = other.server
  evilOrigin = other.origin.replace('localhost', '127.0.0.1')
})

afterAll(async () => {
  merchant?.close()
  evil?.close()
  await shop?.stop()
})

interface Created {
  id: string
  clientSecret: string
  frameToken: string
}

async function session(extra: Record<string, unknown> = {}): Promise<Created> {
  const res = await fetch(`${shop.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      flow: 'card',
      amount: '30.00',
      currency: 'EUR',
      merchantTransactionId: `frame-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      allowedOrigins: [merchantOrigin],
      returnUrl: `${merchantOrigin}/done`,
      ...extra,
    }),
  })
  return (await res.json()) as Created
}

/** The merchant page for session `s`, its element given the session's frame token (the README's embed). */
async function openMerchant(s: Created): Promise<Page> {
  const page = await shop.browser.newPage()
  await page.goto(
    `${merchantOrigin}/page.html?endpoint=${encodeURIComponent(shop.url)}&session=${s.id}&secret=${encodeURIComponent(s.clientSecret)}&t=${s.frameToken}`,
  )
  await page.frameLocator('pay-checkout iframe').locator('pay-checkout #number').waitFor()
  return page
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: { kind: string; data: string }[] }).seen)

/**
 * The merchant page with the frame's script held back (until `release`): the frame is the Worker's
 * HTML and its stub alone. Returns once the page has heard `pay-ready` (from the stub). A session
 * given is embedded with its frame token; without one, a new session without it.
 */
async function openWithScriptHeld(page: Page, given?: Created): Promise<{ page: Page; release: () => void }> {
  let release: () => void = () => undefined
  const held = new Promise<void>((r) => (release = r))
  await page.route('**/widget/frame.js', async (route) => {
    await held
    await route.continue()
  })
  const s = given ?? (await session())
  // Not to its load event: the frame's load waits for the held script.
  await page.goto(
    `${merchantOrigin}/page.html?endpoint=${encodeURIComponent(shop.url)}&session=${s.id}&secret=${encodeURIComponent(s.clientSecret)}${given ? `&t=${given.frameToken}` : ''}`,
    { waitUntil: 'domcontentloaded' },
  )
  await expect.poll(async () => (await seen(page)).some((e) => e.kind === 'pay-ready'), { timeout: 15_000 }).toBe(true)
  return { page, release }
}

describe('isolation="frame"', () => {
  it('pays with autofill-style filling (every field at once) inside the frame; the page gets the outcome only', async () => {
    const page = await openMerchant(await session())
    const frame = page.frameLocator('pay-checkout iframe')
    // Autofill sets every value at once, without typing.
    await frame.locator('pay-checkout pay-card-form').evaluate((form) => {
      const values: Record<string, string> = {
        number: '4111 1111 1111 1111',
        expiry: '12 / 30',
        cvv: '123',
        givenName: 'Ada',
        surname: 'Lovelace',
        email: 'ada@example.com',
      }
      for (const [id, v] of Object.entries(values)) {
        const input = form.shadowRoot?.querySelector<HTMLInputElement>(`#${id}`)
        if (input) input.value = v
      }
    })
    // The page's theme properties reach the form inside the frame.
    expect(
      await frame.locator('pay-checkout button[type=submit]').evaluate((b) => getComputedStyle(b).backgroundColor),
    ).toBe('rgb(122, 31, 162)')
    await frame.locator('pay-checkout button[type=submit]').click()
    await expect
      .poll(async () => (await seen(page)).some((e) => e.kind === 'pay-success'), { timeout: 15_000 })
      .toBe(true)
    const success = (await seen(page)).find((e) => e.kind === 'pay-success')
    expect(JSON.parse(success?.data ?? '{}')).toMatchObject({ status: 'succeeded', brand: 'visa', last4: '1111' })
    const everything = JSON.stringify(await seen(page))
    expect(everything).not.toContain('4111111111111111')
    expect(everything).not.toContain('4111 1111')
    expect(everything).not.toMatch(/"cvv|"123"/)
    // The client secret went in by message, never in the frame's URL.
    expect(await page.locator('pay-checkout iframe').getAttribute('src')).not.toContain('secret')
    await page.close()
  })

  it('the page’s language switcher, theme and shipping choice after the frame shows: the frame follows them, the theme in place, and pays', async () => {
    const page = await openMerchant(await session())
    const frame = page.frameLocator('pay-checkout iframe')
    const button = frame.locator('pay-checkout button[type=submit]')
    const box = frame.locator('pay-checkout pay-checkout-inline')
    await expect.poll(() => button.textContent()).toContain('Pay')
    const set = (attrs: Record<string, string>) =>
      page.evaluate((a) => {
        const el = document.querySelector('pay-checkout') as HTMLElement
        for (const [name, value] of Object.entries(a)) el.setAttribute(name, value)
      }, attrs)
    await set({ locale: 'de', 'collect-shipping': '' })
    // The form in German, with the shipping address, for this session (its amount: the secret went to it).
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toMatch(/30,00.*bezahlen/)
    expect(await frame.locator('pay-checkout #street').count()).toBe(1)
    expect(await box.locator('.container').getAttribute('lang')).toBe('de')
    // A theme alone changes in place: the frame's document is the same one, and so is what was typed.
    const frameOf = () => page.frames().find((f) => f.url().includes('/frame/'))
    await frameOf()?.evaluate(() => ((window as unknown as { mark: number }).mark = 1))
    await frame.locator('pay-checkout #number').fill('4111111111111111')
    await set({ theme: 'dark' })
    await expect.poll(() => box.getAttribute('theme')).toBe('dark')
    expect(await frameOf()?.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1)
    expect(await frame.locator('pay-checkout #number').inputValue()).toBe('4111 1111 1111 1111')
    await fillCard(frame, '4111111111111111')
    await button.click()
    await expect
      .poll(async () => (await seen(page)).filter((e) => e.kind === 'pay-success').length, { timeout: 15_000 })
      .toBe(1)
    await page.close()
  })

  it('a card number typed in the street: the frame shows the Worker’s refusal at the street, focused, and pays once it is fixed', async () => {
    const page = await openMerchant(await session())
    const frame = page.frameLocator('pay-checkout iframe')
    await page.evaluate(() => document.querySelector('pay-checkout')?.setAttribute('collect-shipping', ''))
    const street = frame.locator('pay-checkout #street')
    await street.waitFor({ timeout: 15_000 })
    await fillCard(frame, '4111111111111111')
    await street.fill('4111 1111 1111 1111')
    const button = frame.locator('pay-checkout button[type=submit]')
    await button.click()
    await expect
      .poll(async () => (await seen(page)).some((e) => e.kind === 'pay-error'), { timeout: 15_000 })
      .toBe(true)
    const refused = JSON.parse((await seen(page)).find((e) => e.kind === 'pay-error')?.data ?? '{}')
    expect(refused).toMatchObject({
      code: 'invalid_request',
      fields: [{ field: 'shipping.street1', code: 'not_allowed' }],
    })
    await expect.poll(() => street.getAttribute('aria-invalid')).toBe('true')
    expect(await frame.locator('pay-checkout #street-error').textContent()).toBe('Please check this value.')
    expect(await street.evaluate((i) => (i.getRootNode() as ShadowRoot | Document).activeElement === i)).toBe(true)
    await street.fill('1 Bond Street')
    await expect.poll(() => street.getAttribute('aria-invalid')).toBe('false')
    await button.click()
    await expect
      .poll(async () => (await seen(page)).filter((e) => e.kind === 'pay-success').length, { timeout: 15_000 })
      .toBe(1)
    expect(JSON.stringify(await seen(page))).not.toContain('4111 1111')
    await page.close()
  })

  it('a language switched while a pay is on its way: the pay’s answer is told first (a decline), then the form comes in that language; once paid, a new language says so, and no event is told twice', async () => {
    const page = await openMerchant(await session())
    const frame = page.frameLocator('pay-checkout iframe')
    const button = frame.locator('pay-checkout button[type=submit]')
    const said = async (kind: string) => (await seen(page)).filter((e) => e.kind === kind).length
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    let paying = false
    await page.route('**/v1/checkout/*/pay', async (route) => {
      paying = true
      await held
      await route.continue()
    })
    await fillCard(frame, '4000000000000002')
    await button.click()
    await expect.poll(() => paying).toBe(true)
    const setLocale = (locale: string) =>
      page.evaluate((l) => document.querySelector('pay-checkout')?.setAttribute('locale', l), locale)
    await setLocale('de')
    // The form stays as it is while the pay waits for its answer (nothing loaded again).
    await new Promise((r) => setTimeout(r, 500))
    expect(await frame.locator('pay-checkout #number').inputValue()).toBe('4000 0000 0000 0002')
    release()
    await expect.poll(() => said('pay-declined'), { timeout: 15_000 }).toBeGreaterThanOrEqual(1)
    // Then the form in German, for the same session (its decline, its amount).
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toMatch(/30,00.*bezahlen/)
    expect(await frame.locator('pay-checkout-inline [part=status]').textContent()).toContain('abgelehnt')
    // The form made again read the session in its decline: told once, by the pay's answer.
    expect(await said('pay-declined')).toBe(1)
    await page.unroute('**/v1/checkout/*/pay')
    await fillCard(frame, '4111111111111111')
    await button.click()
    await expect.poll(() => said('pay-success'), { timeout: 15_000 }).toBe(1)
    await expect
      .poll(() => frame.locator('pay-checkout-inline [part=status]').textContent())
      .toBe('Zahlung erfolgreich.')
    // Paid: another language says so in it, and no event is told again (no pay-ready, no pay-success).
    const readies = await said('pay-ready')
    await setLocale('fr')
    await expect
      .poll(() => frame.locator('pay-checkout-inline [part=status]').textContent(), { timeout: 15_000 })
      .toBe('Paiement réussi.')
    await new Promise((r) => setTimeout(r, 500))
    expect(await said('pay-ready')).toBe(readies)
    expect(await said('pay-success')).toBe(1)
    expect(await said('pay-error')).toBe(0)
    await page.close()
  })

  it('no script on the merchant page can read the card number', async () => {
    const page = await openMerchant(await session())
    await page.frameLocator('pay-checkout iframe').locator('pay-checkout #number').fill('4111111111111111')
    const found = await page.evaluate(() => {
      const values: string[] = []
      const walk = (root: Document | ShadowRoot) => {
        for (const el of root.querySelectorAll('*')) {
          if (el instanceof HTMLInputElement) values.push(el.value)
          if (el.shadowRoot) walk(el.shadowRoot)
          if (el instanceof HTMLIFrameElement) {
            try {
              const doc = el.contentDocument ?? el.contentWindow?.document
              if (doc) walk(doc)
              else values.push('no-access')
            } catch {
              values.push('blocked')
            }
          }
        }
      }
      walk(document)
      return { values, text: document.documentElement.outerHTML }
    })
    // The whole number, typed or as the form shows it (4111 1111 ...); a bare '4111' would also
    // match the random port in the endpoint attribute.
    for (const shown of ['4111111111111111', '4111 1111']) {
      expect(found.values.join(' ')).not.toContain(shown)
      expect(found.text).not.toContain(shown)
    }
    // The frame's document is out of reach: null, or a SecurityError.
    expect(found.values.filter((v) => v === 'no-access' || v === 'blocked')).toHaveLength(1)
    await page.close()
  })

  it('the frame refuses to render for an origin the session does not allow, its frame token in the address or not', async () => {
    const s = await session()
    for (const token of [s.frameToken, 'none']) {
      const page = await shop.browser.newPage()
      const blocked: string[] = []
      page.on('console', (m) => blocked.push(m.text()))
      await page.goto(`${evilOrigin}/evil.html?session=${s.id}&t=${token}`)
      await page.waitForTimeout(1500)
      const frame = page.frames().find((f) => f.url().includes('/frame/'))
      const rendered = frame
        ? await frame
            .locator('pay-checkout')
            .count()
            .catch(() => 0)
        : 0
      expect(rendered).toBe(0)
      expect(blocked.join(' ')).toMatch(/frame-ancestors|Refused to (display|frame)/)
      await page.close()
    }
    // Opened on its own (no parent), it shows nothing of the form either.
    const direct = await shop.browser.newPage()
    await direct.goto(`${shop.url}/frame/${s.id}`)
    await expect.poll(() => direct.locator('body').textContent()).toContain('can only be shown')
    expect(await direct.locator('pay-checkout').count()).toBe(0)
    await direct.close()
  })

  it('serves the frame with a strict CSP naming the allowed origins as frame ancestors', async () => {
    const s = await session()
    const res = await fetch(`${shop.url}/frame/${s.id}`)
    const csp = res.headers.get('Content-Security-Policy') ?? ''
    // The same from the session's frame token as from the session itself.
    expect((await fetch(`${shop.url}/frame/${s.id}?t=${s.frameToken}`)).headers.get('Content-Security-Policy')).toBe(
      csp,
    )
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain(`frame-ancestors ${merchantOrigin}`)
    expect(csp).not.toContain('unsafe-inline')
    // What runs inline (the stub after the form) runs by its hash alone; no handler attribute or
    // style attribute, which no hash could allow.
    const html = await res.text()
    expect(html).not.toMatch(/\son\w+=|style=/)
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '')
    expect(inline).toHaveLength(1)
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? []
    expect(scriptSrc).toEqual([
      "'self'",
      ...inline.map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`),
    ])
  })

  it('the form takes typing before the frame’s script has arrived: the page hears ready, and what was typed is kept, formatted and paid', async () => {
    // The frame's script is held back until the shopper has typed: the form is the Worker's HTML alone.
    const { page, release } = await openWithScriptHeld(await shop.browser.newPage())
    const frame = page.frameLocator('pay-checkout iframe')
    await frame.locator('pay-checkout #number').pressSequentially('4111111111111111')
    // No script has formatted it: nothing runs in the frame yet but the stub.
    expect(await frame.locator('pay-checkout #number').inputValue()).toBe('4111111111111111')
    release()
    // The script takes the form over: the number as typed, formatted, and its brand told to the page.
    await expect.poll(() => frame.locator('pay-checkout #number').inputValue()).toBe('4111 1111 1111 1111')
    await expect
      .poll(async () => (await seen(page)).some((e) => e.kind === 'pay-change' && JSON.parse(e.data).brand === 'visa'))
      .toBe(true)
    for (const [id, value] of Object.entries({
      expiry: '1230',
      cvv: '123',
      givenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
    }))
      await frame.locator(`pay-checkout #${id}`).fill(value)
    await frame.locator('pay-checkout button[type=submit]').click()
    await expect
      .poll(async () => (await seen(page)).some((e) => e.kind === 'pay-success'), { timeout: 15_000 })
      .toBe(true)
    // One pay-ready: the stub's, not said again by the script.
    expect((await seen(page)).filter((e) => e.kind === 'pay-ready')).toHaveLength(1)
    await page.close()
  })

  it('a session that gives the shopper’s name and email: the frame’s form never asks for them, before its script and after, and pays', async () => {
    const s = await session({ customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' } })
    const tab = await shop.browser.newPage()
    // The session's reading is held back too, until the shopper has filled the form in.
    let read: () => void = () => undefined
    const reading = new Promise<void>((r) => (read = r))
    await tab.route(`**/v1/checkout/${s.id}`, async (route) => {
      await reading
      await route.continue()
    })
    const { page, release } = await openWithScriptHeld(tab, s)
    const frame = page.frameLocator('pay-checkout iframe')
    const asked = () =>
      frame
        .locator('pay-checkout pay-card-form')
        .evaluate((form) => Array.from(form.shadowRoot?.querySelectorAll('input, select') ?? [], (input) => input.id))
    const lastChange = async () =>
      JSON.parse((await seen(page)).findLast((e) => e.kind === 'pay-change')?.data ?? '{}') as { valid?: boolean }
    // The Worker's form, with the stub alone: the inputs the shopper will fill in, and no others.
    expect(await asked()).toEqual(['number', 'expiry', 'cvv', 'telnocc', 'phone'])
    await frame.locator('pay-checkout #number').pressSequentially('4111111111111111')
    release()
    await expect.poll(() => frame.locator('pay-checkout #number').inputValue()).toBe('4111 1111 1111 1111')
    await frame.locator('pay-checkout #expiry').fill('1230')
    await frame.locator('pay-checkout #cvv').fill('123')
    // Filled in before the session is known: not yet valid for the page (the session may ask more).
    await expect.poll(lastChange).toMatchObject({ valid: false })
    read()
    // The session read (its amount on the button): the form is the same, and the page hears that
    // it is valid now, without another keystroke (a page's own pay button may wait for it).
    await expect.poll(() => frame.locator('pay-checkout button[type=submit]').textContent()).toContain('30')
    expect(await asked()).toEqual(['number', 'expiry', 'cvv', 'telnocc', 'phone'])
    await expect.poll(lastChange).toMatchObject({ valid: true })
    await frame.locator('pay-checkout button[type=submit]').click()
    await expect
      .poll(async () => (await seen(page)).some((e) => e.kind === 'pay-success'), { timeout: 15_000 })
      .toBe(true)
    await page.close()
  })

  it('axe finds no violation in the frame’s server-rendered form, before its script has run and after, errors shown', async () => {
    // axe is put into the frame by the test; the frame's CSP would refuse it, so this context bypasses CSP.
    const context = await shop.browser.newContext({ bypassCSP: true })
    const { page, release } = await openWithScriptHeld(await context.newPage())
    const frame = page.frames().find((f) => f.url().includes('/frame/'))
    if (!frame) throw new Error('no frame')
    // WCAG 2.2 A and AA. Axe's best practices for a whole page (one main landmark, a first-level
    // heading, all content in landmarks) are the merchant page's: this document is part of it.
    const violations = () => axeViolations(frame)
    // The Worker's HTML alone.
    expect(
      await frame.evaluate(
        () =>
          document
            .querySelector('pay-checkout-inline')
            ?.shadowRoot?.querySelector('pay-card-form')
            ?.shadowRoot?.querySelectorAll('input, select').length,
      ),
    ).toBe(8)
    expect(await violations()).toEqual([])
    release()
    // Taken over by the script, the session read, and every error shown by a submit of the empty form.
    const ui = page.frameLocator('pay-checkout iframe')
    await expect.poll(() => ui.locator('pay-checkout [part=amount]').count()).toBe(1)
    await ui.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => ui.locator('pay-checkout [part=error]').count()).toBeGreaterThan(3)
    expect(await violations()).toEqual([])
    await context.close()
  })

  it('3-D Secure from inside the frame: the top window goes to the bank and comes back to the shop', async () => {
    const page = await openMerchant(await session())
    const frame = page.frameLocator('pay-checkout iframe')
    const values: Record<string, string> = {
      number: '4000000000003220',
      expiry: '1230',
      cvv: '123',
      givenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
    }
    for (const [id, v] of Object.entries(values)) await frame.locator(`pay-checkout #${id}`).fill(v)
    await frame.locator('pay-checkout button[type=submit]').click()
    await page.waitForURL(/\/acs\//)
    await page.getByRole('button', { name: 'Authenticate' }).click()
    await page.waitForURL(new RegExp(`^${merchantOrigin}/done\\?session=cs_\\w+&status=succeeded`))
    await page.close()
  })
})
