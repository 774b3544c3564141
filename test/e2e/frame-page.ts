/**
 * What a test of the card frame reads on the merchant's page and in the frame (never-stuck-frame
 * and the other frame tests can share it): the events the page heard, the form's inputs, status and
 * pay button, whether something is on screen, and card numbers of their own.
 */
import type { Frame, FrameLocator, Page } from 'playwright-core'

/** A Visa number of its own (49..., none of the sandbox's magic cards): it succeeds at the sandbox. */
export function freshCard(): string {
  const digits = [4, 9, ...Array.from({ length: 13 }, () => Math.floor(Math.random() * 10))]
  const sum = digits
    .slice()
    .reverse()
    .reduce((acc, d, i) => acc + (i % 2 === 0 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0)
  return [...digits, (10 - (sum % 10)) % 10].join('')
}

export const spaced = (card: string) => card.replace(/(\d{4})(?=\d)/g, '$1 ')
export const mtid = (prefix: string) => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`

export type Seen = { type: string; detail: Record<string, unknown> }
export const seen = (page: Page): Promise<Seen[]> => page.evaluate(() => (window as unknown as { seen: Seen[] }).seen)
export const events = async (page: Page, type: string) => (await seen(page)).filter((e) => e.type === type)
export async function waitForEvent(page: Page, type: string, count = 1): Promise<Seen> {
  try {
    await page.waitForFunction(
      ([t, n]) => (window as unknown as { seen: Seen[] }).seen.filter((e) => e.type === t).length >= (n as number),
      [type, count] as const,
      { timeout: 20_000 },
    )
  } catch (e) {
    // What the page heard instead, and what the frame says: a timeout alone tells nothing.
    const frame = page.frames().find((f) => f.url().includes('/frame/'))
    const said = await frame
      ?.evaluate(
        () =>
          document.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('[part=status]')?.textContent ??
          '(no status)',
      )
      .catch(() => '(frame gone)')
    throw new Error(
      `no ${type} x${count}; the page heard ${JSON.stringify(await seen(page))}; the frame says ${JSON.stringify(said)}`,
      { cause: e },
    )
  }
  return (await events(page, type))[count - 1] as Seen
}

export const CUSTOMER = { expiry: '1230', cvv: '123', givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' }

export async function fillCard(ui: FrameLocator, number: string): Promise<void> {
  for (const [id, value] of Object.entries({ number, ...CUSTOMER })) await ui.locator(`pay-checkout #${id}`).fill(value)
}

/** What the card form's inputs hold, as the shopper sees them. */
export async function formValues(ui: FrameLocator): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const id of ['number', 'expiry', 'cvv', 'givenName', 'surname', 'email'])
    out[id] = await ui.locator(`pay-checkout #${id}`).inputValue()
  return out
}

export const payButton = (ui: FrameLocator) => ui.locator('pay-checkout button[type=submit]')
export const status = (ui: FrameLocator) => ui.locator('pay-checkout-inline [part=status]')

/** Whether an element of the frame lies wholly inside the frame's viewport (the frame is as tall as its content). */
export const inView = (frame: Frame, selector: string) =>
  frame.evaluate((sel) => {
    const find = (root: Document | ShadowRoot): Element | null => {
      const hit = root.querySelector(sel)
      if (hit) return hit
      for (const el of root.querySelectorAll('*')) {
        const inner = el.shadowRoot && find(el.shadowRoot)
        if (inner) return inner
      }
      return null
    }
    const r = find(document)?.getBoundingClientRect()
    return (
      !!r && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5
    )
  }, selector)
