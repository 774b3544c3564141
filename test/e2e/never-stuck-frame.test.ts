/**
 * Never silent, never stuck (issue 15) in the default `isolation="frame"`: the merchant page on its
 * own origin (http://localhost:PORT) embeds `<pay-checkout>` from the Worker's origin
 * (http://127.0.0.1:PORT), and the card form lives in the Worker's frame. The widget tests
 * (test/widget/never-stuck.test.ts) check these behaviours inline, where they can read the form;
 * here Chromium reads the frame's document itself, so each test asserts what the shopper sees in
 * the frame (text, visibility, geometry) and the events the merchant page receives.
 *
 * One demo stack and one Chromium for the file. The Worker runs with a low CARD_VELOCITY_LIMIT,
 * so every payment here uses a card number of its own (random, Luhn-valid), and the sandbox's
 * magic numbers are left alone.
 */
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { Frame, FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, STACK_SECRETS } from '../../tools/stacks.mjs'
import { wirePayment } from '../../tools/wire-payment.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { chargesFor, openShop, type Shop } from './shop.ts'
import {
  freshCard,
  spaced,
  mtid,
  events,
  waitForEvent,
  CUSTOMER,
  fillCard,
  formValues,
  payButton,
  status,
  inView,
} from './frame-page.ts'

/** Card attempts per card in ten minutes, across sessions (the Worker's default is 5). */
const VELOCITY_LIMIT = 3

let shop: Shop
let merchant: Server
let merchantOrigin = ''

/** The merchant page's own script: records the element's events, then gives it its attributes. */
const PAGE_JS = `
window.seen = []
const el = document.querySelector('pay-checkout')
for (const t of ['pay-ready', 'pay-change', 'pay-submit', 'pay-success', 'pay-declined', 'pay-pending', 'pay-error', 'pay-action']) el.addEventListener(t, (e) => window.seen.push({ type: t, detail: JSON.parse(JSON.stringify(e.detail ?? null)) }))
const q = new URLSearchParams(location.search)
for (const a of ['endpoint', 'session', 'client-secret', 'locale']) if (q.has(a)) el.setAttribute(a, q.get(a))
if (q.has('collect-shipping')) el.setAttribute('collect-shipping', '')
`

beforeAll(async () => {
  shop = await openShop({ vars: { CARD_VELOCITY_LIMIT: String(VELOCITY_LIMIT) } })
  const port = await freePort()
  merchant = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/page.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(PAGE_JS)
    // No isolation attribute: the default, frame mode.
    res.writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<script type="module" src="${shop.url}/widget/pay-checkout.js"></script><script type="module" src="/page.js"></script></head>
<body><h1>Checkout</h1><pay-checkout></pay-checkout></body></html>`)
  })
  await new Promise<void>((r) => merchant.listen(port, '127.0.0.1', () => r()))
  merchantOrigin = `http://localhost:${port}`
})

afterAll(async () => {
  merchant?.close()
  await shop?.stop()
})

// ---- helpers ------------------------------------------------------------------------------

/** A session the merchant's server creates (card, 30.00 EUR, this page's origin allowed), `extra` over it. */
async function session(extra: Record<string, unknown> = {}): Promise<{ id: string; clientSecret: string }> {
  const res = await fetch(`${shop.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      flow: 'card',
      amount: '30.00',
      currency: 'EUR',
      merchantTransactionId: mtid('nsf'),
      allowedOrigins: [merchantOrigin],
      ...extra,
    }),
  })
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; clientSecret: string }
}

/** The merchant page for a session, with the card frame's inputs on screen. */
async function open(
  s: { id: string; clientSecret: string },
  attrs: Record<string, string> = {},
  viewport = { width: 900, height: 1000 },
): Promise<{ page: Page; ui: FrameLocator; frame: Frame }> {
  const page = await shop.browser.newPage({ viewport })
  const q = new URLSearchParams({
    endpoint: shop.url,
    session: s.id,
    'client-secret': s.clientSecret,
    locale: 'en',
    ...attrs,
  })
  await page.goto(`${merchantOrigin}/?${q}`)
  const ui = page.frameLocator('pay-checkout iframe')
  await ui.locator('pay-checkout-inline').waitFor()
  const frame = page.frames().find((f) => f.url().startsWith(`${shop.url}/frame/${s.id}`))
  if (!frame) throw new Error('no card frame')
  // The frame is on the Worker's origin, the page on another one: the cross-origin case.
  expect(new URL(frame.url()).origin).not.toBe(new URL(page.url()).origin)
  return { page, ui, frame }
}

/** A card payment straight through the browser route (what a shopper's browser does), in a session of its own. */
async function payByApi(card: string): Promise<string> {
  const s = await session()
  const res = await fetch(`${shop.url}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.clientSecret}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': randomUUID(),
    },
    body: JSON.stringify({
      'card.number': card,
      'card.expiryMonth': '12',
      'card.expiryYear': '2030',
      'card.cvv': '123',
      'customer.givenName': 'Ada',
      'customer.surname': 'Lovelace',
      'customer.email': 'ada@example.com',
    }),
  })
  return `${res.status} ${((await res.json()) as { status?: string }).status}`
}

/** Signed as the README's "A signed request by hand" (member, secure key, order reference, amount). */
const checksum = (ref: string, amount: string) =>
  createHash('md5').update([SANDBOX.memberId, SANDBOX.secureKey, ref, amount].join('|')).digest('hex')

/** A charge made at the sandbox directly (another system of the merchant's): it holds `ref` at the gateway. */
async function chargeAtGateway(ref: string, amount: string, card: string): Promise<string> {
  const res = await fetch(`${shop.gateway}/transactionServices/REST/v1/payments`, {
    method: 'POST',
    headers: {
      AuthToken: SANDBOX.authToken,
      Accept: 'application/json',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(
      wirePayment({
        'authentication.checksum': checksum(ref, amount),
        merchantTransactionId: ref,
        amount,
        'card.number': card,
      }),
    ),
  })
  return ((await res.json()) as { result: { code: string } }).result.code
}

/** An invoice the merchant's dashboard holds at the sandbox, already expired. */
async function expiredInvoice(): Promise<string> {
  const ref = mtid('inv-old')
  const res = await fetch(`${shop.gateway}/invoiceServices/REST/v1/generate`, {
    method: 'POST',
    headers: { AuthToken: SANDBOX.authToken, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      'authentication.memberId': SANDBOX.memberId,
      'authentication.checksum': checksum(ref, '250.00'),
      merchantInvoiceId: ref,
      amount: '250.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
    }),
  })
  return ((await res.json()) as { invoiceDetails: { systemInvoiceId: string } }).invoiceDetails.systemInvoiceId
}

const SOMETHING_WENT_WRONG = 'Something went wrong. Please try again.'

// ---- the tests ----------------------------------------------------------------------------

describe('never silent, never stuck: isolation="frame" on a merchant page of another origin', () => {
  it('frame: a gateway refusal (an order reference the gateway already holds) keeps the form as filled and the button usable, says what to do, and the page gets pay-error gateway_rejected', async () => {
    const ref = mtid('dup')
    // The gateway already charged this order reference (outside this Worker): it refuses a second
    // payment with it (30005), after the Worker accepted the session.
    expect(await chargeAtGateway(ref, '30.00', freshCard())).toBe('00001')
    const s = await session({ merchantTransactionId: ref })
    const { page, ui, frame } = await open(s)
    const card = freshCard()
    await fillCard(ui, card)
    await payButton(ui).click()

    const error = await waitForEvent(page, 'pay-error')
    expect(error.detail).toMatchObject({ code: 'gateway_rejected', fields: [] })
    expect(await events(page, 'pay-success')).toEqual([])
    expect(await events(page, 'pay-declined')).toEqual([])
    // The shopper reads what to do next, not a shrug, and reads it in the frame as it is sized.
    await expect
      .poll(() => status(ui).textContent())
      .toBe('The payment could not be processed. Nothing was charged. Please try again in a few minutes.')
    expect(await status(ui).textContent()).not.toContain(SOMETHING_WENT_WRONG)
    expect(await status(ui).isVisible()).toBe(true)
    await expect.poll(() => inView(frame, '[part=status]')).toBe(true)
    // The form as the shopper filled it (CVV included: nothing was declined), the button usable.
    expect(await formValues(ui)).toEqual({ ...CUSTOMER, number: spaced(card), expiry: '12 / 30' })
    expect(await payButton(ui).isEnabled()).toBe(true)
    expect(await payButton(ui).textContent()).toContain('Pay €30.00')
    await expect.poll(() => inView(frame, 'pay-card-form')).toBe(true)
    expect(await page.locator('pay-checkout iframe').isVisible()).toBe(true)
    // Nothing was charged under this reference beyond the first charge.
    expect(await chargesFor(shop, ref)).toBe(1)

    // The button works: a second try reaches the Worker and is told again, the form still there.
    await payButton(ui).click()
    expect((await waitForEvent(page, 'pay-error', 2)).detail.code).toBe('gateway_rejected')
    expect(await status(ui).textContent()).toBe(
      'The payment could not be processed. Nothing was charged. Please try again in a few minutes.',
    )
    expect(await ui.locator('pay-checkout #number').inputValue()).toBe(spaced(card))
    expect(await payButton(ui).isEnabled()).toBe(true)
    await page.close()
  })

  it('frame: a card-velocity refusal says to use another card, keeps the form and the button, and another card then pays', async () => {
    const used = freshCard()
    // The card was used up to the limit in other checkouts (across sessions, ten minutes).
    for (let i = 0; i < VELOCITY_LIMIT; i++) expect(await payByApi(used)).toBe('200 succeeded')
    const { page, ui, frame } = await open(await session())
    await fillCard(ui, used)
    await payButton(ui).click()

    const error = await waitForEvent(page, 'pay-error')
    expect(error.detail.code).toBe('too_many_attempts')
    await expect
      .poll(() => status(ui).textContent())
      .toBe('This card has been tried too many times. Please use another card, or try again later.')
    expect(await status(ui).isVisible()).toBe(true)
    await expect.poll(() => inView(frame, '[part=status]')).toBe(true)
    expect(await formValues(ui)).toEqual({ ...CUSTOMER, number: spaced(used), expiry: '12 / 30' })
    expect(await payButton(ui).isEnabled()).toBe(true)

    // Another card, in the same form: it pays.
    const other = freshCard()
    await ui.locator('pay-checkout #number').fill(other)
    await payButton(ui).click()
    const paid = await waitForEvent(page, 'pay-success')
    expect(paid.detail).toMatchObject({ status: 'succeeded', brand: 'visa', last4: other.slice(-4) })
    await expect.poll(() => status(ui).textContent()).toBe('Payment successful.')
    expect(await events(page, 'pay-error')).toHaveLength(1)
    await page.close()
  })

  it('frame: on a 390 px phone (German, with shipping) the inputs of each row of the card form stay on one line (the phone code above the number), and nothing overflows sideways', async () => {
    const { page, ui, frame } = await open(
      await session(),
      { locale: 'de', 'collect-shipping': '1' },
      { width: 390, height: 844 },
    )
    // The session has answered (the amount is shown), the shipping address is asked for, and the
    // country list has loaded (its own chunk, just after the first render).
    await ui.locator('[part=amount]').waitFor()
    await ui.locator('pay-checkout #street').waitFor()
    await expect.poll(() => ui.locator('pay-checkout #country option').count()).toBeGreaterThan(100)
    expect(await payButton(ui).textContent()).toContain('bezahlen')
    await page.waitForTimeout(200)

    const layout = await frame.evaluate(() => {
      const form = document.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('pay-card-form')?.shadowRoot
      const container = document
        .querySelector('pay-checkout-inline')
        ?.shadowRoot?.querySelector<HTMLElement>('.container')
      const rows = [...(form?.querySelectorAll('.row') ?? [])].map((row) => ({
        phone: row.classList.contains('phone'),
        labels: [...row.querySelectorAll('label')].map((l) => ({
          text: l.textContent,
          height: Math.round(l.getBoundingClientRect().height),
        })),
        tops: [...row.querySelectorAll('input, select')].map((i) => Math.round(i.getBoundingClientRect().top)),
      }))
      const controls = [...(form?.querySelectorAll('input, select, button') ?? [])].map((c) =>
        c.getBoundingClientRect(),
      )
      return {
        rows,
        lang: container?.lang,
        frameWidth: innerWidth,
        doc: { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth },
        container: container ? { scroll: container.scrollWidth, client: container.clientWidth } : null,
        widestRight: Math.max(...controls.map((r) => r.right)),
        leftmost: Math.min(...controls.map((r) => r.left)),
      }
    })
    expect(layout.lang).toBe('de')
    // Card (expiry, CVV), name, and phone rows; each row's inputs share one top, wrapped labels or
    // not; but the phone's: on a phone its code's list stands above the number, whole.
    expect(layout.rows.length).toBeGreaterThanOrEqual(3)
    // At this width a German label wraps (the expiry's, two lines beside the CVV's one): the case at stake.
    expect(layout.rows.some((row) => new Set(row.labels.map((l) => l.height)).size > 1)).toBe(true)
    for (const row of layout.rows) {
      expect(row.tops.length, JSON.stringify(row.labels)).toBeGreaterThan(1)
      expect(new Set(row.tops).size, JSON.stringify(row)).toBe(row.phone ? 2 : 1)
    }
    // Nothing sideways: not in the frame's document, not in the checkout's box, no control past the frame's edge.
    expect(layout.doc.scroll).toBeLessThanOrEqual(layout.doc.client)
    expect(layout.container && layout.container.scroll <= layout.container.client + 1).toBe(true)
    expect(layout.widestRight).toBeLessThanOrEqual(layout.frameWidth + 0.5)
    expect(layout.leftmost).toBeGreaterThanOrEqual(0)
    // And not on the merchant's page: the frame fits the phone's width.
    const box = await page.locator('pay-checkout iframe').boundingBox()
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    // The pay button is reachable: the frame is as tall as the form (nothing cut off at its bottom).
    await expect.poll(() => inView(frame, 'button[type=submit]')).toBe(true)
    await page.close()
  })

  it('frame: a declined QR wallet (a QR session renders its wallet in the frame) says the wallet payment was declined, not the card', async () => {
    const s = await session({
      flow: 'qr',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const { page, ui, frame } = await open(s)
    // The QR wallet, not the card form, is in the frame.
    await ui.locator('pay-qr-wallet #walletId').waitFor()
    expect(await ui.locator('pay-card-form').count()).toBe(0)
    await ui.locator('pay-qr-wallet #walletId').fill('wallet-declined')
    await ui.getByRole('button', { name: 'Continue' }).click()
    await ui.locator('svg[part=qr]').waitFor()
    await expect.poll(() => inView(frame, 'svg[part=qr]')).toBe(true)
    // The frame grows to the code in a short transition: the shopper can press the button once it is
    // inside the frame, not while it is still clipped below it (a click there lands on the page).
    await expect.poll(() => inView(frame, 'button[type=submit]')).toBe(true)
    await ui.getByRole('button', { name: 'I have paid' }).click()

    const declined = await waitForEvent(page, 'pay-declined')
    expect(declined.detail).toMatchObject({ status: 'declined', attemptsRemaining: 2 })
    await expect.poll(() => status(ui).textContent()).toMatch(/^Your wallet payment was declined\. /)
    const text = (await status(ui).textContent()) ?? ''
    expect(text).not.toMatch(/card/i)
    expect(text).toContain('2 attempts left')
    expect(await status(ui).isVisible()).toBe(true)
    await expect.poll(() => inView(frame, '[part=status]')).toBe(true)
    expect(await events(page, 'pay-error')).toEqual([])
    await page.close()
  })

  it('frame: the invoice (an invoice session renders in the frame) puts its pay link below the Expires row, not over it', async () => {
    const s = await session({
      flow: 'invoice',
      amount: '250.00',
      invoiceId: await expiredInvoice(),
      merchantInvoiceId: mtid('inv-new'),
      invoiceExpirationPeriod: '24',
    })
    const { page, ui, frame } = await open(s)
    await ui.getByRole('button', { name: 'Get a new invoice' }).click()
    const link = ui.locator('[part=pay-link]')
    await link.waitFor()
    expect(await link.textContent()).toBe('Pay invoice')
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^${shop.gateway}/`))
    await expect.poll(() => ui.locator('[part=details] dt').allTextContents()).toContain('Expires')
    // The frame grows with the invoice (by the frame's resize messages): the link ends up inside it, not cut off below.
    await expect.poll(() => inView(frame, '[part=pay-link]')).toBe(true)

    const geometry = await frame.evaluate(() => {
      const view = document
        .querySelector('pay-checkout-inline')
        ?.shadowRoot?.querySelector('pay-invoice-view')?.shadowRoot
      const rect = (el: Element | null | undefined) => {
        const r = el?.getBoundingClientRect()
        return r ? { top: r.top, bottom: r.bottom, height: r.height } : null
      }
      const expires = [...(view?.querySelectorAll('dt') ?? [])].find((dt) => dt.textContent === 'Expires')
      return {
        dl: rect(view?.querySelector('dl')),
        expires: rect(expires),
        expiresValue: rect(expires?.nextElementSibling),
        link: rect(view?.querySelector('[part=pay-link]')),
        innerHeight,
      }
    })
    expect(geometry.dl && geometry.link && geometry.expires && geometry.expiresValue).toBeTruthy()
    const {
      dl,
      link: l,
      expires,
      expiresValue,
    } = geometry as Record<'dl' | 'link' | 'expires' | 'expiresValue', { top: number; bottom: number; height: number }>
    expect(l.height).toBeGreaterThan(0)
    expect(l.top).toBeGreaterThanOrEqual(dl.bottom)
    expect(l.top).toBeGreaterThanOrEqual(Math.max(expires.bottom, expiresValue.bottom))
    expect(l.bottom).toBeLessThanOrEqual(geometry.innerHeight + 0.5)
    expect(await link.isVisible()).toBe(true)
    await page.close()
  })

  it('frame: while a pay is in flight the frame shows a spinner in the status and on the (disabled) pay button; both go when it is paid', async () => {
    const { page, ui, frame } = await open(await session())
    // The frame's pay request is held until the busy state has been looked at, then goes on to the Worker.
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    let intercepted = 0
    await page.route('**/v1/checkout/*/pay', async (route) => {
      intercepted += 1
      await held
      await route.continue()
    })
    const card = freshCard()
    await fillCard(ui, card)
    await payButton(ui).click()
    try {
      await expect.poll(() => intercepted).toBe(1)
      await expect.poll(() => status(ui).textContent()).toBe('Processing your payment…')
      expect(await ui.locator('pay-checkout-inline [part=status] .spinner').count()).toBe(1)
      expect(await ui.locator('pay-checkout-inline [part=status] .spinner').isVisible()).toBe(true)
      await expect.poll(() => inView(frame, '[part=status]')).toBe(true)
      await expect.poll(() => payButton(ui).locator('.spinner').count()).toBe(1)
      expect(await payButton(ui).locator('.spinner').isVisible()).toBe(true)
      expect(await payButton(ui).isDisabled()).toBe(true)
      expect(await ui.locator('pay-checkout-inline .container').getAttribute('aria-busy')).toBe('true')
      expect(await events(page, 'pay-success')).toEqual([])
      // The page heard the submit from the frame, as it does inline.
      expect((await events(page, 'pay-submit')).map((e) => e.detail)).toEqual([{ flow: 'card' }])
    } finally {
      release()
    }
    const paid = await waitForEvent(page, 'pay-success')
    expect(paid.detail).toMatchObject({ status: 'succeeded', last4: card.slice(-4) })
    await expect.poll(() => status(ui).textContent()).toBe('Payment successful.')
    expect(await ui.locator('pay-checkout-inline .spinner').count()).toBe(0)
    expect(intercepted).toBe(1)
    await page.close()
  })
})
