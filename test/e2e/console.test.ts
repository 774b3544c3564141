/**
 * The merchant console in Chromium (README, "Merchant console"), against the demo stack: the demo
 * opening it signed in, signing in with a key, finding a payment by email and by order reference,
 * a partial refund (a double click acting once) seen on the payment's timeline with its webhook
 * delivered, a partial capture and a void, webhook deliveries, and every view without an
 * axe violation in light and dark, at 390 px, with the 48 locales' formats (the words English). Behind
 * Cloudflare Access (a Worker of its own, the team's keys served by the test, its webhooks refused
 * by the test's receiver): a valid Access token signs in and a failing delivery is tried again at
 * once; a forged or expired one is refused. Screenshots of each view for the README.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALES } from '../../shared/locales.ts'
import { freePort, PRODUCT_CONFIG, root, STACK_SECRETS, startWrangler } from '../../tools/stacks.mjs'
import { axeViolations, openShop, SCREENSHOTS, type Shop } from './shop.ts'

/** Every view: WCAG 2.2 A and AA, and axe's best practices for a whole page (it is one). */
const ALL_RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']

let shop: Shop
let staff: BrowserContext
const run = Date.now().toString(36)

/** Whether the payment list shows the search in the page's address, loaded. */
const shown = (page: Page): Promise<boolean> =>
  page
    .locator('payment-list')
    .evaluate(
      (e) =>
        (e as HTMLElement & { query: URLSearchParams }).query.toString() ===
          new URLSearchParams(location.hash.split('?')[1] ?? '').toString() &&
        (e.shadowRoot ?? e).querySelector('[aria-busy=true]') === null,
    )

interface Sale {
  readonly mtid: string
  readonly email: string
  readonly paymentId: string
}

/** A session the merchant's server makes and a shopper pays by card (through the routes the widget calls). */
async function sale(amount: string, paymentType: 'DB' | 'PA', tag: string): Promise<Sale> {
  const mtid = `console-${tag}-${run}`
  const email = `${tag}-${run}@example.com`
  const created = (await (
    await fetch(`${shop.url}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        flow: 'card',
        amount,
        currency: 'EUR',
        paymentType,
        merchantTransactionId: mtid,
        customer: { email },
        metadata: { orderId: mtid.toUpperCase() },
      }),
    })
  ).json()) as { id: string; clientSecret: string }
  const paid = (await (
    await fetch(`${shop.url}/v1/checkout/${created.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${created.clientSecret}`,
        'Content-Type': 'application/json',
        Origin: shop.url,
        'Idempotency-Key': `${mtid}-pay`,
      },
      body: JSON.stringify({
        card: { number: '4111111111111111', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
        customer: { givenName: 'Ada', surname: 'Lovelace', email },
      }),
    })
  ).json()) as { status: string; paymentId: string }
  if (paid.status !== 'succeeded') throw new Error(`not paid: ${JSON.stringify(paid)}`)
  return { mtid, email, paymentId: paid.paymentId }
}

/** The payment as the merchant API has it. */
async function payment(id: string): Promise<{ status: string; refunds: unknown[]; amountCaptured: string }> {
  return (await (
    await fetch(`${shop.url}/v1/payments/${id}`, {
      headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}` },
    })
  ).json()) as never
}

/** The element that has the focus, looked for through the shadow roots (its tag name; BODY when it fell to the page). */
const deepFocus = (page: Page): Promise<string> =>
  page.evaluate(() => {
    let active = document.activeElement
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement
    return active?.tagName ?? ''
  })

const shotOf = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
const main = (page: Page) => page.locator('pay-console main')

/** The Worker behind Cloudflare Access (its own variables, so its own `wrangler dev`), its team's keys and its webhook endpoint. */
interface AccessStack {
  readonly team: string
  readonly worker: { url: string; stop(): Promise<void> }
  stop(): Promise<void>
}
const ACCESS_AUD = 'console-e2e-aud'
const ACCESS_KEYS = JSON.parse(readFileSync(join(root, 'test/fixtures/access-keys.json'), 'utf8')) as {
  public: JWK
  private: JWK
}
/** Started with the file (its start overlaps the first tests, which mostly wait on pages). */
let access: Promise<AccessStack> | undefined

async function startAccess(gateway: string): Promise<AccessStack> {
  // The team's published keys, as Access serves them at /cdn-cgi/access/certs.
  const teamPort = await freePort()
  const team = `http://127.0.0.1:${teamPort}`
  const teamServer = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [ACCESS_KEYS.public] })),
  )
  await new Promise<void>((resolve) => teamServer.listen(teamPort, '127.0.0.1', resolve))
  // The merchant's webhook endpoint of this Worker: down (500), so its deliveries are failing.
  const receiverPort = await freePort()
  const receiver = createServer((_req, res) => res.writeHead(500).end('down'))
  await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve))
  const state = mkdtempSync(join(tmpdir(), 'pay-e2e-access-'))
  const port = await freePort()
  const worker = await startWrangler({
    config: PRODUCT_CONFIG,
    port,
    persistTo: join(state, 'worker'),
    vars: {
      ...STACK_SECRETS,
      GATEWAY_BASE_URL: gateway,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      MERCHANT_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/webhooks`,
      ACCESS_TEAM_DOMAIN: team,
      ACCESS_AUD,
      ACCESS_MERCHANTS: JSON.stringify({ '*@shop.example': 'default' }),
    },
    label: 'worker-access',
    traces: false,
  })
  return {
    team,
    worker,
    async stop() {
      await worker.stop()
      await new Promise((r) => teamServer.close(r))
      await new Promise((r) => receiver.close(r))
      rmSync(state, { recursive: true, force: true })
    },
  }
}

let refundable: Sale
let toCapture: Sale
let toVoid: Sale
let retried: Sale
let lateRefund: Sale

beforeAll(async () => {
  shop = await openShop()
  access = startAccess(shop.gateway)
  access.catch(() => undefined) // awaited by its tests; until then a failure must not go unhandled
  // axe is put into the pages by the tests: the console's CSP would refuse it.
  staff = await shop.browser.newContext({ bypassCSP: true, viewport: { width: 1100, height: 900 } })
  ;[refundable, toCapture, toVoid, retried, lateRefund] = await Promise.all([
    sale('42.00', 'DB', 'refund'),
    sale('30.00', 'PA', 'capture'),
    sale('12.00', 'PA', 'void'),
    sale('25.00', 'DB', 'retry'),
    sale('26.00', 'DB', 'late'),
  ])
  // The index follows the payments by a moment, and the overview is answered again as it is for 15 s:
  // the console opens once all of them are listed.
  for (const s of [refundable, toCapture, toVoid, retried, lateRefund])
    for (let tries = 0; ; tries++) {
      const res = await fetch(`${shop.url}/v1/payments?order=${s.mtid}`, {
        headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}` },
      })
      if (((await res.json()) as { data: unknown[] }).data.length === 1) break
      if (tries > 100) throw new Error(`${s.mtid} is not listed`)
      await new Promise((r) => setTimeout(r, 100))
    }
}, 120_000)

afterAll(async () => {
  await staff?.close()
  await (await access?.catch(() => undefined))?.stop()
  await shop?.stop()
})

describe('the merchant console', () => {
  it('the demo opens it signed in as the demo merchant, on the overview', async () => {
    const page = await staff.newPage()
    await page.goto(`${shop.url}/demo/console`)
    expect(new URL(page.url()).pathname).toBe('/console/')
    // It names an empty icon of its own (its CSP allows data: images): the browser asks for no
    // /favicon.ico, which the Worker would answer 404.
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('data:,')
    await expect.poll(() => page.locator('pay-console header .who').textContent()).toBe('default')
    // The day's payments, this file's three among them.
    await page.locator('overview-chart .figure').first().waitFor()
    expect(Number(await page.locator('overview-chart .figure').first().textContent())).toBeGreaterThanOrEqual(3)
    expect(await page.locator('overview-chart svg[role=img]').count()).toBe(1)
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-overview')
    // ?theme=dark on a light system: every view takes the dark colours (declared once, inherited).
    await page.goto(`${shop.url}/console/?theme=dark#/payments`)
    const heading = page.locator('payment-list h1')
    await heading.waitFor()
    expect(await heading.evaluate((h) => getComputedStyle(h).color)).toBe('rgb(228, 226, 230)')
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await page.close()
  })

  it('signs in with the merchant API key once (a wrong one refused) and signs out', async () => {
    const context = await shop.browser.newContext({ bypassCSP: true })
    const page = await context.newPage()
    await page.goto(`${shop.url}/console/`)
    const key = page.locator('console-sign-in #key')
    await key.fill('sk_not_a_key')
    await page.locator('console-sign-in button[type=submit]').click()
    await expect.poll(() => page.locator('console-sign-in [role=alert]').textContent()).toContain('not accepted')
    // The field is emptied whatever the answer: the key stays nowhere in the page.
    expect(await key.inputValue()).toBe('')
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-sign-in')
    await key.fill(STACK_SECRETS.MERCHANT_API_KEY)
    await page.locator('console-sign-in button[type=submit]').click()
    await expect.poll(() => page.locator('pay-console header .who').textContent()).toBe('default')
    // The form and its button are gone: the focus is on the view that replaced them, not the body.
    await expect.poll(() => deepFocus(page)).toBe('MAIN')
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    )
    expect(stored).not.toContain(STACK_SECRETS.MERCHANT_API_KEY)
    expect(await page.evaluate(() => document.cookie)).toBe('')
    await page.locator('pay-console header button', { hasText: 'Sign out' }).click()
    await expect.poll(() => page.locator('console-sign-in #key').count()).toBe(1)
    await expect.poll(() => deepFocus(page)).toBe('MAIN')
    // Signed out by choice: no reason to give.
    expect(await page.locator('console-sign-in [role=alert]').count()).toBe(0)
    await page.reload()
    await expect.poll(() => page.locator('console-sign-in #key').count()).toBe(1)
    // A session that ends under the agent (its cookie gone, as after its hour) says so at the next call.
    await key.fill(STACK_SECRETS.MERCHANT_API_KEY)
    await page.locator('console-sign-in button[type=submit]').click()
    await expect.poll(() => page.locator('pay-console header .who').textContent()).toBe('default')
    await context.clearCookies()
    await page.evaluate(() => (location.hash = '#/webhooks'))
    await expect.poll(() => page.locator('console-sign-in [role=alert]').textContent()).toContain('Your session ended')
    await context.close()
  })

  it('finds a payment by email and by order reference, refunds part of it once for a double click, and shows the refund and its webhook delivered on its timeline', async () => {
    const page = await staff.newPage()
    await page.goto(`${shop.url}/console/#/payments`)
    const rows = page.locator('payment-list tbody tr')
    await page.locator('payment-list input[name=email]').fill(refundable.email)
    await page.locator('payment-list button[type=submit]').click()
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain(refundable.mtid)
    // Its card as the checkout names it.
    expect(await rows.first().textContent()).toContain('Visa •••• 1111')
    expect(page.url()).toContain(`email=${encodeURIComponent(refundable.email)}`)
    await page.locator('payment-list button', { hasText: 'Clear' }).click()
    await expect.poll(() => page.locator('payment-list input[name=email]').inputValue()).toBe('')
    // Typed but not searched (an email the browser refuses would block every later search): Clear empties it too.
    await page.locator('payment-list input[name=email]').fill('shopper')
    await page.locator('payment-list button', { hasText: 'Clear' }).click()
    await expect.poll(() => page.locator('payment-list input[name=email]').inputValue()).toBe('')
    await page.locator('payment-list input[name=order]').fill(refundable.mtid)
    await page.locator('payment-list button[type=submit]').click()
    await expect.poll(async () => (await rows.allTextContents()).join('|')).toContain(refundable.mtid)
    expect(await rows.count()).toBe(1)
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-payments')
    // The amount as an agent may type it (a decimal comma) narrows the same search.
    await page.locator('payment-list input[name=amount]').fill('42,0')
    await page.locator('payment-list button[type=submit]').click()
    await expect.poll(() => page.url()).toContain('amount=42%2C0')
    // The list has taken the search from the address and loaded it (else what is typed next would
    // be written over by the search before it).
    await expect.poll(() => shown(page)).toBe(true)
    await expect.poll(() => rows.count()).toBe(1)
    // Another amount finds nothing, and says so; the browser's Back returns to the search before.
    await page.locator('payment-list input[name=amount]').fill('41')
    await page.locator('payment-list button[type=submit]').click()
    await expect.poll(() => page.locator('payment-list .empty').count()).toBe(1)
    await page.goBack()
    await expect.poll(() => rows.count()).toBe(1)

    await rows.first().locator('a').click()
    await expect.poll(() => page.locator('payment-page h1').textContent()).toContain('42.00')
    await page.locator('payment-page button', { hasText: 'Refund' }).click()
    const dialog = page.locator('payment-action dialog')
    await expect.poll(() => dialog.getAttribute('open')).toBe('')
    expect(await dialog.locator('input[name=amount]').inputValue()).toBe('42.00')
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    // More than can be refunded is said in the dialog, before any request; a decimal comma is read.
    await dialog.locator('input[name=amount]').fill('50')
    await dialog.locator('button[type=submit]').click()
    await expect.poll(() => dialog.locator('[role=alert]').textContent()).toContain('from 0.01 to 42.00')
    expect((await payment(refundable.paymentId)).refunds).toHaveLength(0)
    await dialog.locator('input[name=amount]').fill('10,00')
    expect(await dialog.locator('[role=alert]').count()).toBe(0)
    await dialog.locator('input[name=reason]').fill('Damaged in transit')
    await dialog.locator('button[type=submit]').dblclick()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Refund of €10.00: succeeded.')
    const timeline = page.locator('payment-page ol')
    await expect.poll(() => timeline.textContent()).toContain('Refund €10.00')
    // The webhook of the refund, delivered: the page reads it again until it is there.
    await expect
      .poll(
        async () => {
          await page.locator('payment-page button', { hasText: 'Refresh' }).click()
          return (
            await timeline.locator('li', { hasText: 'refund.succeeded' }).locator('.badge').allTextContents()
          ).join()
        },
        { timeout: 20_000 },
      )
      .toContain('delivered')
    expect((await payment(refundable.paymentId)).refunds).toHaveLength(1)
    expect(await page.locator('payment-page dd', { hasText: '€32.00' }).count()).toBeGreaterThan(0)
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-payment')
    await page.close()
  })

  it('a refund whose answer was lost, then told "in progress", is confirmed again with its one key: one refund', async () => {
    const page = await staff.newPage()
    const keys: string[] = []
    await page.route(`**/v1/payments/${retried.paymentId}/refunds`, async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '')
      // The first reaches the Worker and its answer is lost on the way back; the second is told the
      // first is still at the gateway; the third goes through.
      if (keys.length === 1) {
        await route.fetch()
        return route.abort('connectionreset')
      }
      if (keys.length === 2)
        return route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({
            error: { code: 'idempotency_in_progress', message: 'A request with this Idempotency-Key is in progress.' },
          }),
        })
      return route.continue()
    })
    await page.goto(`${shop.url}/console/#/payments/${retried.paymentId}`)
    await page.locator('payment-page button', { hasText: 'Refund' }).click()
    const dialog = page.locator('payment-action dialog')
    await dialog.locator('input[name=amount]').fill('5.00')
    const confirm = dialog.locator('button[type=submit]')
    await confirm.click()
    await expect.poll(() => dialog.locator('[role=alert]').textContent()).toContain('No answer came')
    await confirm.click()
    await expect.poll(() => dialog.locator('[role=alert]').textContent()).toContain('still being acted on')
    await confirm.click()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Refund of €5.00: succeeded.')
    expect(keys).toHaveLength(3)
    expect(new Set(keys).size).toBe(1)
    expect((await payment(retried.paymentId)).refunds).toHaveLength(1)
    await page.close()
  })

  it('a refund answered as still under way (202), settled since: the same amount again is a second refund, not the first one replayed', async () => {
    // The gateway's answer to the first refund is lost (it is made): unknown, then found by inquiry.
    await fetch(`${shop.gateway}/sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ op: 'refund', fault: 'timeout', field: 'id', value: lateRefund.paymentId }),
    })
    const page = await staff.newPage()
    await page.goto(`${shop.url}/console/#/payments/${lateRefund.paymentId}`)
    const dialog = page.locator('payment-action dialog')
    const refund = async () => {
      await page.locator('payment-page button', { hasText: 'Refund' }).click()
      await dialog.locator('input[name=amount]').fill('5.00')
      await dialog.locator('button[type=submit]').click()
    }
    await refund()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Refund of €5.00: unknown.')
    await expect
      .poll(async () => ((await payment(lateRefund.paymentId)).refunds as { status: string }[])[0]?.status, {
        timeout: 20_000,
      })
      .toBe('succeeded')
    // The page read again shows it settled (refunded: €5.00; while unknown it showed €0.00).
    await expect
      .poll(async () => {
        await page.locator('payment-page button', { hasText: 'Refresh' }).click()
        return page.locator('payment-page dd', { hasText: /^€5\.00$/ }).count()
      })
      .toBeGreaterThan(0)
    await refund()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Refund of €5.00: succeeded.')
    await expect.poll(async () => (await payment(lateRefund.paymentId)).refunds.length).toBe(2)
    await page.close()
  })

  it('captures part of an authorisation and voids another, each asked first', async () => {
    const page = await staff.newPage()
    await page.goto(`${shop.url}/console/#/payments/${toCapture.paymentId}`)
    await page.locator('payment-page button', { hasText: 'Capture' }).click()
    const dialog = page.locator('payment-action dialog')
    // Cancelled, nothing moves.
    await dialog.locator('button', { hasText: 'Cancel' }).click()
    expect((await payment(toCapture.paymentId)).status).toBe('authorized')
    await page.locator('payment-page button', { hasText: 'Capture' }).click()
    await dialog.locator('input[name=amount]').fill('20.00')
    await dialog.locator('button[type=submit]').click()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Capture of €20.00: succeeded.')
    await expect.poll(() => page.locator('payment-page h1 .badge').textContent()).toBe('captured')
    expect((await payment(toCapture.paymentId)).amountCaptured).toBe('20.00')
    // What was taken of what was authorised, in the heading and in the list: never the whole.
    expect(await page.locator('payment-page h1 .ltr').textContent()).toBe('€20.00 of €30.00')
    // The list reads the search index, which may lag the capture by a moment: read again until it is there.
    await page.goto(`${shop.url}/console/#/payments?order=${toCapture.mtid}`)
    const amount = page.locator('payment-list td[data-label=Amount]')
    await expect
      .poll(async () => {
        await page.reload()
        await amount.first().waitFor()
        return amount.first().textContent()
      })
      .toBe('€20.00 of €30.00')

    await page.goto(`${shop.url}/console/#/payments/${toVoid.paymentId}`)
    await page.locator('payment-page button', { hasText: 'Void' }).click()
    await dialog.locator('button[type=submit]').click()
    await expect
      .poll(() => page.locator('payment-page [role=status][aria-live]').textContent())
      .toContain('Void: succeeded.')
    await expect.poll(() => page.locator('payment-page h1 .badge').textContent()).toBe('voided')
    // Nothing is left to void: the focus is on the payment's heading, which says it, not on the body.
    await expect.poll(() => deepFocus(page)).toBe('H1')
    expect((await payment(toVoid.paymentId)).status).toBe('voided')
    await page.close()
  })

  it('a slow answer about a payment left behind never replaces the one the address names, in the page or the list', async () => {
    const page = await staff.newPage()
    // The first payment's answers come 1.5 s late; the agent has moved on to the second by then.
    await page.route(`**/v1/payments/${toVoid.paymentId}`, async (route) => {
      await new Promise((r) => setTimeout(r, 1_500))
      await route.continue()
    })
    const slowPage = page.waitForRequest(`**/v1/payments/${toVoid.paymentId}`)
    await page.goto(`${shop.url}/console/#/payments/${toVoid.paymentId}`)
    await slowPage
    await page.evaluate((id) => (location.hash = `#/payments/${id}`), toCapture.paymentId)
    const heading = page.locator('payment-page h1')
    await expect.poll(() => heading.textContent()).toContain('€30.00')
    await page.waitForTimeout(2_000)
    expect(
      await page.locator('payment-page').evaluate((e) => (e as HTMLElement & { paymentId: string }).paymentId),
    ).toBe(toCapture.paymentId)
    expect(await heading.textContent()).toContain('€30.00')
    // The list: a slow search, then another that answers first.
    await page.route(`**/v1/payments?*order=${toVoid.mtid}*`, async (route) => {
      await new Promise((r) => setTimeout(r, 1_500))
      await route.continue()
    })
    const slowList = page.waitForRequest(`**/v1/payments?*order=${toVoid.mtid}*`)
    await page.goto(`${shop.url}/console/#/payments?order=${toVoid.mtid}`)
    await slowList
    await page.evaluate((mtid) => (location.hash = `#/payments?order=${mtid}`), refundable.mtid)
    const rows = page.locator('payment-list tbody tr')
    await expect.poll(async () => (await rows.allTextContents()).join('|')).toContain(refundable.mtid)
    await page.waitForTimeout(2_000)
    expect((await rows.allTextContents()).join('|')).not.toContain(toVoid.mtid)
    await page.close()
  })

  it('lists webhook deliveries with their status; a delivered one offers no second sending', async () => {
    const page = await staff.newPage()
    await page.goto(`${shop.url}/console/#/webhooks`)
    const rows = page.locator('webhook-list tbody tr')
    await expect.poll(() => rows.count()).toBeGreaterThan(3)
    const delivered = rows.filter({ has: page.locator('.badge', { hasText: 'delivered' }) })
    expect(await delivered.count()).toBeGreaterThan(0)
    expect(await delivered.locator('button', { hasText: 'Send again' }).count()).toBe(0)
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await page.close()
  })

  it('in dark theme at 390 px and in every locale: no axe violation, money and dates in the locale’s formats, the words English', async () => {
    const phone = await shop.browser.newContext({
      bypassCSP: true,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    })
    await phone.addCookies((await staff.cookies()).map((c) => ({ ...c })))
    const page = await phone.newPage()
    await page.goto(`${shop.url}/console/?locale=de#/payments?order=${refundable.mtid}`)
    // German: the comma and the euro after, as Intl writes it (with a no-break space).
    await expect
      .poll(async () =>
        (await page.locator('payment-list tbody td[data-label=Amount]').textContent())?.replace(/\s/g, ' '),
      )
      .toBe('42,00 €')
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-phone-dark')
    for (const view of ['#/overview', `#/payments/${refundable.paymentId}`, '#/webhooks']) {
      await page.goto(`${shop.url}/console/?locale=ar${view}`)
      await expect.poll(() => page.locator('pay-console main h1').count()).toBe(1)
      await expect.poll(() => main(page).locator('[role=status]:has-text("Loading")').count()).toBe(0)
      // The console's words are English, whatever the formats: said and laid out as English.
      expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
        'en',
        '',
      ])
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      expect(await axeViolations(page, ALL_RULES), view).toEqual([])
      // The chart's days stay legible on the phone (the chart scales with its width): every other
      // day is drawn, at 10 px or more.
      if (view === '#/overview') {
        const heights: number[] = []
        const chart = await page.locator('overview-chart svg').boundingBox()
        const labels = await page.locator('overview-chart text.label').all()
        for (const label of labels) {
          if (!(await label.isVisible())) continue
          const box = await label.boundingBox()
          heights.push(box?.height ?? 0)
          // Drawn whole, inside the chart: the first day's label is not cut at its edge.
          expect(box && chart && box.x >= chart.x && box.x + box.width <= chart.x + chart.width).toBe(true)
        }
        expect(heights.length).toBe(7)
        expect(Math.min(...heights)).toBeGreaterThanOrEqual(10)
        // Today's is one of them.
        expect(await labels.at(-1)?.isVisible()).toBe(true)
      }
    }
    // Each of the 48 locales, picked in the console: the amount as Intl writes it there.
    await page.goto(`${shop.url}/console/#/payments?order=${refundable.mtid}`)
    const amount = page.locator('payment-list tbody td[data-label=Amount]')
    await expect.poll(() => amount.count()).toBe(1)
    // Picked one after another in the page itself (one round trip for the 48): each locale's
    // amount and date as Intl writes them there, and the page's language still English.
    const seen = await page.evaluate(
      async (locales) => {
        const app = document.querySelector('pay-console') as HTMLElement & { updateComplete: Promise<boolean> }
        const root = app.shadowRoot as ShadowRoot
        const select = root.querySelector('header select') as HTMLSelectElement
        const list = root.querySelector('payment-list') as HTMLElement & { updateComplete: Promise<boolean> }
        const wrong: string[] = []
        for (const l of locales) {
          select.value = l
          select.dispatchEvent(new Event('change'))
          await app.updateComplete
          await list.updateComplete
          const cell = (name: string) =>
            list.shadowRoot?.querySelector(`tbody td[data-label=${name}]`)?.textContent?.trim()
          const amount = new Intl.NumberFormat(l, { style: 'currency', currency: 'EUR' }).format(42)
          if (cell('Amount') !== amount || document.documentElement.lang !== 'en') wrong.push(`${l}: ${cell('Amount')}`)
          if (!cell('Date')?.length) wrong.push(`${l}: no date`)
        }
        return wrong
      },
      LOCALES as readonly string[],
    )
    expect(seen).toEqual([])
    await phone.close()
  })
})

describe('the console behind Cloudflare Access', () => {
  const aud = ACCESS_AUD
  const keys = ACCESS_KEYS
  let team = ''
  let worker: { url: string; stop(): Promise<void> }

  beforeAll(async () => {
    ;({ team, worker } = await (access as Promise<AccessStack>))
  }, 120_000)

  const token = async (key: CryptoKey | Awaited<ReturnType<typeof importJWK>>, over: { exp?: number } = {}) =>
    new SignJWT({ email: 'agent@shop.example' })
      .setProtectedHeader({ alg: 'RS256', kid: keys.public.kid ?? '' })
      .setIssuer(team)
      .setAudience(aud)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 60)
      .setExpirationTime(over.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(key)

  /**
   * A browser as Access leaves it: the user's JWT added as a header to requests through the Access
   * application (`/console/*` only) and in Access's `CF_Authorization` cookie, which the browser
   * sends with the console's calls to the merchant routes (`/v1/*`, not behind Access).
   */
  async function consoleWith(assertion: string): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await shop.browser.newContext({ bypassCSP: true })
    await context.addCookies([{ name: 'CF_Authorization', value: assertion, url: worker.url, httpOnly: true }])
    await context.route(`${worker.url}/console/**`, (route) =>
      route.continue({ headers: { ...route.request().headers(), 'cf-access-jwt-assertion': assertion } }),
    )
    const page = await context.newPage()
    await page.goto(`${worker.url}/console/`)
    return { page, close: () => context.close() }
  }

  it('a valid Access token signs the user in for their merchant (no key form, no sign-out of its own); a failing delivery is tried again at once', async () => {
    // A session paid on this Worker: its webhooks fail at the receiver.
    const created = (await (
      await fetch(`${worker.url}/v1/sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ flow: 'card', amount: '9.00', currency: 'EUR', merchantTransactionId: `access-${run}` }),
      })
    ).json()) as { id: string; clientSecret: string }
    const paid = await fetch(`${worker.url}/v1/checkout/${created.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${created.clientSecret}`,
        'Content-Type': 'application/json',
        Origin: worker.url,
        'Idempotency-Key': `access-${run}-pay`,
      },
      body: JSON.stringify({
        card: { number: '4111111111111111', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
        customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
      }),
    })
    expect(((await paid.json()) as { status: string }).status).toBe('succeeded')

    const { page, close } = await consoleWith(await token(await importJWK(keys.private, 'RS256')))
    await expect.poll(() => page.locator('pay-console header .who').textContent()).toBe('default')
    await expect.poll(() => page.locator('overview-chart h2').count()).toBeGreaterThan(0)
    expect(await page.locator('console-sign-in').count()).toBe(0)
    expect(await page.locator('pay-console header button', { hasText: 'Sign out' }).count()).toBe(0)

    await page.locator('pay-console nav a', { hasText: 'Webhooks' }).click()
    const failing = page
      .locator('webhook-list tbody tr')
      .filter({ has: page.locator('.badge', { hasText: 'failing' }) })
    await expect
      .poll(async () => {
        await page.locator('webhook-list button', { hasText: 'Refresh' }).click()
        return failing.count()
      })
      .toBeGreaterThan(0)
    expect(await failing.first().textContent()).toContain('(500)')
    await failing.first().locator('button', { hasText: 'Send again' }).click()
    await expect
      .poll(() => page.locator('webhook-list [role=status]').textContent())
      .toContain('queued to be sent again')
    expect(await axeViolations(page, ALL_RULES)).toEqual([])
    await shotOf(page, 'console-webhooks')
    await close()
  })

  it('a forged Access token (signed with another key) and an expired one are refused: nothing of the console opens', async () => {
    const forger = await generateKeyPair('RS256')
    for (const assertion of [
      await token(forger.privateKey),
      await token(await importJWK(keys.private, 'RS256'), { exp: Math.floor(Date.now() / 1000) - 30 }),
    ]) {
      const { page, close } = await consoleWith(assertion)
      await expect.poll(() => page.locator('console-sign-in [role=alert]').textContent()).toContain('Cloudflare Access')
      expect(await page.locator('console-sign-in #key').count()).toBe(0)
      expect(await page.locator('pay-console nav').count()).toBe(0)
      expect(await axeViolations(page, ALL_RULES)).toEqual([])
      await close()
    }
  })
})
