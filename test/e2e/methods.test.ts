/**
 * A checkout offering several ways to pay, through the demo shop's "Card or QR" page in a real
 * browser: the shopper starts with a card (declined), picks the QR wallet with the keyboard and
 * pays with it; the session ends paid by QR, once. In both isolation modes (in frame mode the card
 * form is in the Worker's frame and the QR wallet in the element). Takes the README's picker
 * screenshots.
 */
import type { FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { latestSession, openShop, result, shot, type Shop } from './shop.ts'

let shop: Shop

beforeAll(async () => {
  shop = await openShop()
})

afterAll(async () => {
  await shop?.stop()
})

type Mode = 'inline' | 'frame'

async function open(mode: Mode, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await shop.shopper.newPage()
  await page.emulateMedia({ colorScheme })
  await page.goto(`${shop.url}/demo/checkout?isolation=${mode}`)
  return page
}

/** Card number, expiry and CVV (the name and email come with the session). */
async function fillCard(ui: Page | FrameLocator, number: string): Promise<void> {
  for (const [id, value] of Object.entries({ number, expiry: '1230', cvv: '123' }))
    await ui.locator(`pay-checkout #${id}`).fill(value)
}

describe.each(['frame', 'inline'] as const)('several methods, %s', (mode) => {
  it('starts with a card (declined), picks the QR wallet with the keyboard and pays by QR; the picker then shows QR under way', async () => {
    const p = await open(mode)
    const card = mode === 'frame' ? p.frameLocator('pay-checkout iframe') : p
    const radio = (method: string) => p.locator(`pay-checkout [role=radio][data-method=${method}]`)
    await radio('card').waitFor()
    await card.locator('pay-checkout #number').waitFor()
    expect(await radio('card').getAttribute('aria-checked')).toBe('true')
    if (mode === 'frame') {
      await fillCard(card, '4111111111111111')
      await shot(p, 'method-picker-light')
      await p.emulateMedia({ colorScheme: 'dark' })
      await shot(p, 'method-picker-dark')
      await p.emulateMedia({ colorScheme: 'light' })
    }
    await fillCard(card, '4000000000000002')
    await card.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => result(p).textContent()).toContain('Declined')

    const changes: unknown[] = []
    await p.exposeFunction('recordChange', (m: unknown) => changes.push(m))
    await p.evaluate(() =>
      document
        .querySelector('pay-checkout')
        ?.addEventListener(
          'pay-change',
          (e) =>
            void (window as unknown as { recordChange(m: unknown): void }).recordChange(
              (e as CustomEvent<{ method?: string }>).detail.method ?? null,
            ),
        ),
    )
    await radio('card').focus()
    await p.keyboard.press('ArrowRight')
    await expect.poll(() => radio('qr').getAttribute('aria-checked')).toBe('true')
    expect(
      await radio('qr').evaluate(
        (el) => el.getRootNode() instanceof ShadowRoot && (el.getRootNode() as ShadowRoot).activeElement === el,
      ),
    ).toBe(true)
    await expect.poll(() => changes).toEqual(['qr'])
    // The QR wallet renders in the element: in frame mode the frame is hidden, not used.
    await p.locator('pay-checkout #walletId').waitFor()
    if (mode === 'frame') expect(await p.locator('pay-checkout iframe').isHidden()).toBe(true)
    await p.locator('pay-checkout #walletId').fill('wallet-ok')
    await p.locator('pay-checkout button[type=submit]').click()
    await p.locator('pay-checkout svg[part=qr]').waitFor()
    if (mode === 'frame') await shot(p, 'method-picker-qr-light')
    await p.getByRole('button', { name: 'I have paid' }).click()
    await expect.poll(() => result(p).textContent()).toContain('Paid')

    // The picker says QR is under way and disables the card.
    await expect.poll(() => radio('card').getAttribute('aria-disabled')).toBe('true')
    expect(await radio('qr').getAttribute('aria-checked')).toBe('true')
    expect(await p.locator('pay-checkout [part=method-note]').first().textContent()).toContain('QR wallet')
    const session = await latestSession(shop)
    expect(session).toMatchObject({ status: 'succeeded', methods: ['card', 'qr'], method: 'qr' })
    expect((session.attempts as { method: string; status: string }[]).map((a) => `${a.method}:${a.status}`)).toEqual([
      'card:declined',
      'qr:succeeded',
    ])
    // Loaded again, the paid session says so once (in frame mode both the frame and the QR
    // wallet beside it read it paid).
    await p.addInitScript(`window.successes = 0; addEventListener('pay-success', () => window.successes++)`)
    await p.reload()
    const successes = () => p.evaluate(() => (window as { successes?: number }).successes)
    await expect.poll(successes).toBe(1)
    await new Promise((r) => setTimeout(r, 1_500))
    expect(await successes()).toBe(1)
    await p.close()
  })
})

/**
 * What a status region says, change by change, in every frame of the page (`window.said`): the
 * card frame's status is in its checkout's shadow root, written into the HTML.
 */
const RECORD_STATUS = `addEventListener('DOMContentLoaded', () => {
  const status = document.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('.status')
  if (!status) return
  window.said = [status.textContent]
  new MutationObserver(() => {
    if (status.textContent !== window.said.at(-1)) window.said.push(status.textContent)
  }).observe(status, { subtree: true, childList: true, characterData: true })
})`

describe('several methods, where the picker stands', () => {
  it('above the box, in the shopper’s language, in both modes alike', async () => {
    const places: Record<string, { gap: number; left: number; lang: string | null }> = {}
    for (const mode of ['frame', 'inline'] as const) {
      const p = await open(mode)
      const picker = p.locator('pay-checkout pay-method-picker')
      await p.locator('pay-checkout [role=radio][data-method=card]').waitFor()
      const box = mode === 'frame' ? p.locator('pay-checkout iframe') : p.locator('pay-checkout .container')
      await box.waitFor()
      const [a, b] = [await picker.boundingBox(), await box.boundingBox()]
      if (!a || !b) throw new Error(`${mode}: no picker or no box`)
      places[mode] = {
        gap: Math.round(b.y - (a.y + a.height)),
        left: Math.round(a.x - b.x),
        lang: await picker.getAttribute('lang'),
      }
      await p.close()
    }
    expect(places.frame).toEqual({ gap: 12, left: 0, lang: 'en' })
    expect(places.inline).toEqual(places.frame)
  })
})

describe.each(['frame', 'inline'] as const)('several methods, the page’s language switched, %s', (mode) => {
  it('the picker and the card form speak the new language, and the picker still picks', async () => {
    const p = await open(mode)
    const picker = p.locator('pay-checkout pay-method-picker')
    const ui = mode === 'frame' ? p.frameLocator('pay-checkout iframe') : p
    const button = ui.locator('pay-checkout button[type=submit]')
    await p.locator('pay-checkout [role=radio][data-method=card]').waitFor()
    await expect.poll(() => button.textContent()).toContain('Pay')
    await p.evaluate(() => document.querySelector('pay-checkout')?.setAttribute('locale', 'de'))
    await expect.poll(() => picker.getAttribute('lang')).toBe('de')
    await expect.poll(() => p.locator('pay-checkout [role=radio][data-method=card]').textContent()).toContain('Karte')
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toContain('bezahlen')
    await p.locator('pay-checkout [role=radio][data-method=qr]').click()
    await p.locator('pay-checkout #walletId').waitFor()
    // In the element (frame mode) as in the checkout (inline): in German too.
    expect(await p.locator('pay-checkout pay-checkout-inline .container').first().getAttribute('lang')).toBe('de')
    await p.close()
  })
})

describe('several methods, in forced colors (high contrast)', () => {
  it('the chosen method keeps its dot and a thicker border; the others have neither', async () => {
    const p = await open('frame')
    await p.emulateMedia({ forcedColors: 'active' })
    const radio = (method: string) => p.locator(`pay-checkout [role=radio][data-method=${method}]`)
    await radio('card').waitFor()
    const look = (method: string) =>
      radio(method).evaluate((r) => ({
        border: getComputedStyle(r).borderTopWidth,
        dot: getComputedStyle(r.querySelector('.dot') as Element).backgroundImage,
      }))
    expect(await look('card')).toMatchObject({ border: '2px', dot: expect.stringContaining('radial-gradient') })
    expect(await look('qr')).toEqual({ border: '1px', dot: 'none' })
    await p.close()
  })
})

describe('several methods, the card frame’s status', () => {
  it('a card declined, then the page loaded again: the frame says the decline once, never cleared in between', async () => {
    const p = await shop.shopper.newPage()
    await p.addInitScript(RECORD_STATUS)
    await p.goto(`${shop.url}/demo/checkout?isolation=frame`)
    const card = p.frameLocator('pay-checkout iframe')
    await card.locator('pay-checkout #number').waitFor()
    await fillCard(card, '4000000000000002')
    await card.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => result(p).textContent()).toContain('Declined')
    await p.reload()
    const frame = () => p.frames().find((f) => f.url().includes('/frame/'))
    const said = async () => ((await frame()?.evaluate(() => (window as { said?: string[] }).said)) ?? []) as string[]
    await expect.poll(async () => (await said()).some((t) => t.includes('declined'))).toBe(true)
    // The page tells the frame its method after it loads: nothing is said again for it.
    await new Promise((r) => setTimeout(r, 1_000))
    const after = await said()
    const first = after.findIndex((t) => t.includes('declined'))
    expect(after.slice(first)).toEqual([
      'Your card was declined. Please try again or use another card. 2 attempts left.',
    ])
    await p.close()
  })

  it('a card paid, then the page loaded again: pay-success fires once on each load, not again as the picker tells the frame its method', async () => {
    const p = await shop.shopper.newPage()
    await p.addInitScript(`window.successes = 0; addEventListener('pay-success', () => window.successes++)`)
    await p.goto(`${shop.url}/demo/checkout?isolation=frame`)
    const card = p.frameLocator('pay-checkout iframe')
    await card.locator('pay-checkout #number').waitFor()
    await fillCard(card, '4111111111111111')
    await card.locator('pay-checkout button[type=submit]').click()
    await expect.poll(() => result(p).textContent()).toContain('Paid')
    const successes = () => p.evaluate(() => (window as { successes?: number }).successes)
    expect(await successes()).toBe(1)
    await p.reload()
    await expect.poll(successes).toBe(1)
    // The page tells the frame its method after it loads, and the frame reads the session again.
    await new Promise((r) => setTimeout(r, 1_500))
    expect(await successes()).toBe(1)
    await p.close()
  })
})
