/**
 * The whole chain in a real browser: shopper -> demo shop Worker -> <pay-checkout> -> Worker ->
 * sandbox gateway -> notification -> merchant webhook, through every page of the demo shop, as one
 * shopper (one visitor cookie). Also takes the README's screenshots.
 */
import type { FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chargesFor, fillCard, latestSession, openShop, orders, result, shot, type Shop } from './shop.ts'

let shop: Shop
let page: Page

beforeAll(async () => {
  shop = await openShop()
})

afterAll(async () => {
  await shop?.stop()
})

type Mode = 'inline' | 'frame'

/** Where the card form is: in the page, or in the Worker's frame (`?isolation=frame`). */
const ui = (p: Page, mode: Mode): Page | FrameLocator => (mode === 'frame' ? p.frameLocator('pay-checkout iframe') : p)

async function open(path: string, colorScheme: 'light' | 'dark' = 'light', mode: Mode = 'inline'): Promise<Page> {
  page = await shop.shopper.newPage()
  await page.emulateMedia({ colorScheme })
  await page.goto(`${shop.url}${path}${path.includes('?') ? '&' : '?'}isolation=${mode}`)
  return page
}

describe.each(['inline', 'frame'] as const)('card entry %s', (mode) => {
  describe('product page (card)', () => {
    it('pays with a test card and tells the shopper; light and dark screenshots', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const p = await open('/demo/product', scheme, mode)
        await ui(p, mode).locator('pay-checkout #number').waitFor()
        await fillCard(ui(p, mode), '4111111111111111')
        if (mode === 'inline') await shot(p, `card-${scheme}`)
        await ui(p, mode).locator('pay-checkout button[type=submit]').click()
        await expect.poll(() => result(p).textContent()).toContain('Paid')
        // The brand as shoppers read it.
        expect(await result(p).textContent()).toContain(' with Visa ending 1111.')
        if (mode === 'inline') await shot(p, `success-${scheme}`)
        await p.close()
      }
    })

    it('shows field errors after submit, then a decline and a success on the same session', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await ui(p, mode).locator('pay-checkout #number').fill('4111111111111112')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => ui(p, mode).locator('pay-checkout #number-error').textContent()).toContain('not valid')
      if (mode === 'inline') {
        await shot(p, 'errors-light')
        await p.emulateMedia({ colorScheme: 'dark' })
        await shot(p, 'errors-dark')
        await p.emulateMedia({ colorScheme: 'light' })
      }
      await fillCard(ui(p, mode), '4000000000000002')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Declined')
      await fillCard(ui(p, mode), '4111111111111111')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      const session = await latestSession(shop)
      expect(session.status).toBe('succeeded')
      expect((session.attempts as unknown[]).length).toBe(2)
      await p.close()
    })

    it('a double click charges once', async () => {
      const p = await open('/demo/product', 'light', mode)
      const pays: string[] = []
      p.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/pay') && pays.push(r.url()))
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4111111111111111')
      await ui(p, mode).locator('pay-checkout button[type=submit]').dblclick()
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      expect(pays).toHaveLength(1)
      expect(await chargesFor(shop, String((await latestSession(shop)).merchantTransactionId))).toBe(1)
      await p.close()
    })

    it('a reload shows the same order (its address names it), and a payment made before it stays paid', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      const session = String((await latestSession(shop)).id)
      const count = (await orders(shop)).orders.length
      expect(new URL(p.url()).searchParams.get('session')).toBe(session)
      await p.reload()
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      expect(await p.locator('pay-checkout').getAttribute('session')).toBe(session)
      await fillCard(ui(p, mode), '4111111111111111')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      await p.reload()
      await expect
        .poll(() => ui(p, mode).locator('pay-checkout [role=status]').textContent())
        .toContain('Payment successful')
      expect((await orders(shop)).orders).toHaveLength(count)
      expect(await chargesFor(shop, String((await latestSession(shop)).merchantTransactionId))).toBe(1)
      await p.close()
    })

    it('in forced colors the pay button keeps a border to see it by; in reduced motion its spinner pulses instead of turning', async () => {
      const p = await open('/demo/product', 'light', mode)
      await p.emulateMedia({ forcedColors: 'active', reducedMotion: 'reduce' })
      const pay = ui(p, mode).locator('pay-checkout button[type=submit]')
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      const border = await pay.evaluate((b) => {
        const s = getComputedStyle(b)
        return { width: s.borderTopWidth, style: s.borderTopStyle, color: s.borderTopColor }
      })
      expect(border).toMatchObject({ width: '1px', style: 'solid' })
      expect(border.color).not.toMatch(/^rgba\(\d+, \d+, \d+, 0\)$|^transparent$/)
      // The gateway answers this card after 30 s: the button is busy meanwhile.
      await fillCard(ui(p, mode), '4000000000009995')
      await pay.click()
      const spinner = ui(p, mode).locator('pay-checkout button[type=submit] .spinner')
      await spinner.waitFor()
      expect(await spinner.evaluate((el) => getComputedStyle(el).animationName)).toBe('pay-pulse')
      await p.close()
    })

    it('3-D Secure: the sandbox bank page, back to the shop, the widget shows the result', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4000000000003220')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await p.waitForURL(/\/acs\//)
      if (mode === 'inline') await p.screenshot({ path: `${(await import('./shop.ts')).SCREENSHOTS}/3ds-acs.png` })
      await p.getByRole('button', { name: 'Authenticate' }).click()
      await p.waitForURL(/\/demo\/product\?session=.*status=succeeded/)
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      await p.close()
    })

    it('3-D Secure refused by the bank: back to the shop, the form says the card was declined and how many tries are left, with the name typed before and no card', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4000000000003220')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await p.waitForURL(/\/acs\//)
      await p.getByRole('button', { name: 'Fail authentication' }).click()
      await p.waitForURL(/\/demo\/product\?session=.*status=declined/)
      await expect
        .poll(() => ui(p, mode).locator('pay-checkout [role=status]').textContent())
        .toBe('Your card was declined. Please try again or use another card. 2 attempts left.')
      await expect.poll(() => result(p).textContent()).toContain('Declined. Attempts left: 2.')
      // What the shopper typed besides the card is there again (kept in the tab over the bank's step).
      await expect.poll(() => ui(p, mode).locator('pay-checkout #givenName').inputValue()).toBe('Ada')
      expect(await ui(p, mode).locator('pay-checkout #surname').inputValue()).toBe('Lovelace')
      for (const id of ['number', 'expiry', 'cvv'])
        expect(await ui(p, mode).locator(`pay-checkout #${id}`).inputValue(), id).toBe('')
      await p.close()
    })

    it('3-D Secure left half-way: the shop page loaded again offers the bank’s page, which then pays', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4000000000003220')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await p.waitForURL(/\/acs\//)
      // The shopper opens the shop's page of this checkout again (the demo keeps it by its id).
      const session = String((await latestSession(shop)).id)
      await p.goto(`${shop.url}/demo/product?session=${session}&isolation=${mode}`)
      const toBank = ui(p, mode).getByRole('button', { name: 'Continue to your bank’s page' })
      await toBank.waitFor()
      expect(await ui(p, mode).locator('pay-checkout [role=status]').textContent()).toBe(
        'Your bank needs you to confirm this payment.',
      )
      await toBank.click()
      await p.waitForURL(/\/acs\//)
      await p.getByRole('button', { name: 'Authenticate' }).click()
      await p.waitForURL(/\/demo\/product\?session=.*status=succeeded/)
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      expect(await chargesFor(shop, String((await latestSession(shop)).merchantTransactionId))).toBe(1)
      await p.close()
    })

    it('a pending card is settled by the notification', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4000000000000259')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Waiting')
      await expect.poll(() => result(p).textContent(), { timeout: 20_000 }).toContain('Paid')
      await p.close()
    })

    it('the timed-out card is settled (by its notification or an inquiry) and charged once; the shopper is told it is paid or being confirmed, never to pay again', async () => {
      const p = await open('/demo/product', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '4000000000009995')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      // The gateway's notification may settle it before the Worker gives up waiting for the
      // answer: then the shopper is told it is paid at once, else it is being confirmed.
      await expect
        .poll(() => ui(p, mode).locator('pay-checkout [role=status]').textContent(), { timeout: 10_000 })
        .toMatch(/confirming|Payment successful/)
      await expect.poll(() => result(p).textContent(), { timeout: 30_000 }).toContain('Paid')
      expect(await ui(p, mode).locator('pay-checkout [role=status]').textContent()).toBe('Payment successful.')
      expect(await chargesFor(shop, String((await latestSession(shop)).merchantTransactionId))).toBe(1)
      await p.close()
    })
  })

  describe('subscription, charge again, saved card', () => {
    it('first payment stores the card; the server charges again; the saved card pays with the CVV only', async () => {
      const p = await open('/demo/subscription', 'light', mode)
      await ui(p, mode).locator('pay-checkout #number').waitFor()
      await fillCard(ui(p, mode), '5555555555554444')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      await p.getByRole('button', { name: /Charge again/ }).click()
      await expect.poll(() => result(p).textContent()).toContain('Charged again: succeeded')
      await p.goto(`${shop.url}/demo/saved-card?isolation=${mode}`)
      await ui(p, mode).locator('pay-checkout #cvv').waitFor()
      expect(await ui(p, mode).locator('pay-checkout .saved').textContent()).toContain('4444')
      await ui(p, mode).locator('pay-checkout #cvv').fill('123')
      await ui(p, mode).locator('pay-checkout button[type=submit]').click()
      await expect.poll(() => result(p).textContent()).toContain('Paid')
      await p.close()
    })
  })

  describe('QR wallet', () => {
    it('verifies the wallet, shows the code, confirms', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const p = await open('/demo/qr', scheme, mode)
        await ui(p, mode).locator('pay-checkout #walletId').waitFor()
        await ui(p, mode).locator('pay-checkout #walletId').fill('wallet-ok')
        await ui(p, mode).locator('pay-checkout button[type=submit]').click()
        await ui(p, mode).locator('pay-checkout svg[part=qr]').waitFor()
        if (mode === 'inline') await shot(p, `qr-${scheme}`)
        await ui(p, mode).getByRole('button', { name: 'I have paid' }).click()
        await expect.poll(() => result(p).textContent()).toContain('Paid')
        await p.close()
      }
    })
  })

  describe('invoice', () => {
    it('regenerates the expired invoice, pays it on the gateway page, the order is paid', async () => {
      const p = await open('/demo/invoice', 'light', mode)
      await ui(p, mode).getByRole('button', { name: 'Get a new invoice' }).waitFor()
      if (mode === 'inline') await shot(p, 'invoice-expired-light')
      await ui(p, mode).getByRole('button', { name: 'Get a new invoice' }).click()
      await ui(p, mode).getByRole('link', { name: 'Pay invoice' }).waitFor()
      if (mode === 'inline') {
        await shot(p, 'invoice-light')
        await p.emulateMedia({ colorScheme: 'dark' })
        await shot(p, 'invoice-dark')
        await p.emulateMedia({ colorScheme: 'light' })
      }
      await ui(p, mode).getByRole('link', { name: 'Pay invoice' }).click()
      await p.waitForURL(/\/invoice\/pay\//)
      await p.locator('#holder').fill('Ada Lovelace')
      await p.locator('#number').fill('4111111111111111')
      await p.locator('#month').fill('12')
      await p.locator('#year').fill('2030')
      await p.locator('#cvv').fill('123')
      await p.getByRole('button', { name: /Pay/ }).click()
      // Back on the invoice's page, which shows it paid.
      await p.waitForURL(/\/demo\/invoice\?/)
      await expect.poll(() => p.locator('#result').textContent(), { timeout: 15_000 }).toMatch(/^Paid: payment /)
      await expect
        .poll(async () => (await orders(shop)).orders.find((o) => o.kind === 'invoice')?.session.status, {
          timeout: 15_000,
        })
        .toBe('succeeded')
      await p.close()
    })
  })
})

describe('a new visitor', () => {
  it('the saved-card page before any subscription says to pay one first, with no request refused', async () => {
    const browser = shop.shopper.browser()
    if (!browser) throw new Error('no browser')
    const visitor = await browser.newContext()
    const p = await visitor.newPage()
    const refused: string[] = []
    p.on('response', (r) => {
      if (r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`)
    })
    await p.goto(`${shop.url}/demo/saved-card`)
    await expect.poll(() => result(p).textContent()).toBe('Pay a subscription first: its card is the saved card.')
    expect(refused).toEqual([])
    await visitor.close()
  })
})

describe('orders and webhooks', () => {
  it('the merchant received signed webhooks for the payments, and the orders page shows them', async () => {
    await expect
      .poll(async () => (await orders(shop)).webhooks.filter((w) => w.type === 'checkout.session.succeeded').length, {
        timeout: 15_000,
      })
      .toBeGreaterThan(3)
    const hooks = (await orders(shop)).webhooks
    expect(hooks.every((h) => h.verified)).toBe(true)
    const p = await open('/demo/orders')
    await expect.poll(() => p.locator('#webhooks tbody tr').count()).toBeGreaterThan(3)
    expect(await p.locator('#webhooks tbody').textContent()).toContain('valid')
    expect(await p.locator('#orders tbody').textContent()).toContain('succeeded')
    // On a phone the page does not scroll sideways: the sessions' wide table scrolls in its own box.
    await p.setViewportSize({ width: 375, height: 800 })
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    const box = p.locator('.wide:has(#orders)')
    expect(await box.evaluate((b) => b.scrollWidth > b.clientWidth)).toBe(true)
    await p.close()
  })

  it("the demo pages' links read on the dark theme's background (4.5:1 or more)", async () => {
    const p = await open('/demo/product', 'dark')
    const ratios = await p.evaluate(() => {
      const rgb = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).map(Number)
      const lum = (c: string) => {
        const [r = 0, g = 0, b = 0] = rgb(c).map((v) => {
          const s = v / 255
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
        })
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
      }
      const bg = lum(getComputedStyle(document.body).backgroundColor)
      return [...document.querySelectorAll('main a')].map((a) => {
        const fg = lum(getComputedStyle(a).color)
        return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)
      })
    })
    expect(ratios.length).toBeGreaterThan(0)
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(4.5)
    await p.close()
  })

  it('refunds part of a paid order from the orders page, then the rest; the refunds show and refund.succeeded arrives', async () => {
    const paid = await open('/demo/product')
    await paid.locator('pay-checkout #number').waitFor()
    await fillCard(paid, '4111111111111111')
    await paid.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => result(paid).textContent()).toContain('Paid')
    await paid.close()
    const session = (await orders(shop)).orders[0]?.sessionId ?? ''
    const p = await open('/demo/orders')
    // The button appears once the payment record follows the session's success.
    const refund = p.locator(`button[data-action=refund][data-session="${session}"]`)
    await refund.waitFor({ timeout: 15_000 })
    await p.locator(`input[data-amount-for="${session}"]`).fill('10.00')
    await refund.click()
    await expect
      .poll(() => result(p).textContent(), { timeout: 15_000 })
      .toContain('Refund: succeeded (10.00 EUR), payment partially_refunded')
    const row = p.locator(`#orders tbody tr[data-session="${session}"]`)
    await expect.poll(() => row.textContent()).toContain('10.00 succeeded')
    await p.locator(`button[data-action=refund][data-session="${session}"]`).click()
    await expect
      .poll(() => result(p).textContent(), { timeout: 15_000 })
      .toContain('Refund: succeeded (39.00 EUR), payment refunded')
    await expect.poll(() => row.textContent()).toContain('39.00 succeeded')
    // Nothing left to refund: no button.
    expect(await p.locator(`button[data-action=refund][data-session="${session}"]`).count()).toBe(0)
    await expect
      .poll(
        async () =>
          (await orders(shop)).webhooks.filter((w) => w.type === 'refund.succeeded' && w.data.sessionId === session)
            .length,
        { timeout: 15_000 },
      )
      .toBe(2)
    await p.close()
  })

  it('captures an authorisation from the orders page ("Authorise only" on the product page)', async () => {
    const paid = await open('/demo/product?authorize=1')
    await paid.locator('pay-checkout #number').waitFor()
    await fillCard(paid, '4111111111111111')
    await paid.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => result(paid).textContent()).toContain('Paid')
    await paid.close()
    const session = (await orders(shop)).orders[0]?.sessionId ?? ''
    const p = await open('/demo/orders')
    const capture = p.locator(`button[data-action=capture][data-session="${session}"]`)
    await capture.waitFor({ timeout: 15_000 })
    expect(await p.locator(`#orders tbody tr[data-session="${session}"]`).textContent()).toContain('authorized')
    await capture.click()
    await expect
      .poll(() => result(p).textContent(), { timeout: 15_000 })
      .toContain('Capture: succeeded (49.00 EUR), payment captured')
    await p.locator(`button[data-action=refund][data-session="${session}"]`).waitFor()
    expect(await p.locator(`button[data-action=void][data-session="${session}"]`).count()).toBe(0)
    await p.close()
  })
})
