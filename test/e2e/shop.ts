/**
 * The e2e harness: the demo chain (sandbox, product Worker, demo shop Worker in front of it) and
 * Chromium, with helpers that act as a shopper would (through the element's inputs and buttons).
 * The demo binds orders to a visitor cookie, so the shop's pages open in one browser context:
 * one shopper, whose orders and webhooks the merchant-side helpers read with the same cookie.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { chromium, type Browser, type BrowserContext, type Frame, type FrameLocator, type Page } from 'playwright-core'
import { inject } from 'vitest'
import { CHROME_ARGS, findChrome } from '../../tools/chrome.mjs'
import { loadContract } from '../support/contract.ts'
import { root, startDemoStack } from '../../tools/stacks.mjs'
import { SHOP_SANDBOX_VARS, SHOP_VARS } from './global-setup.ts'

const CONTRACT = loadContract(join(root, 'docs/openapi.json'))

export interface Shop {
  readonly url: string
  readonly gateway: string
  readonly browser: Browser
  /** The shopper: every demo page opens here, so they share the demo's visitor cookie. */
  readonly shopper: BrowserContext
  stop(): Promise<void>
}

/**
 * The shop and a browser for one test file. Without `vars`, the demo stack the global setup
 * started for every file; `vars` (product Worker variables over SHOP_VARS, e.g. a lower
 * `CARD_VELOCITY_LIMIT`) start a stack of the file's own.
 */
export async function openShop(options: { vars?: Record<string, string> } = {}): Promise<Shop> {
  let own: { stop(): Promise<void>; state: string } | undefined
  let urls = inject('shopStack')
  if (options.vars) {
    const state = mkdtempSync(join(tmpdir(), 'pay-e2e-'))
    const stack = await startDemoStack({
      stateDir: state,
      vars: { ...SHOP_VARS, ...options.vars },
      sandboxVars: SHOP_SANDBOX_VARS,
    })
    own = { stop: stack.stop, state }
    urls = { demo: stack.demo.url, sandbox: stack.sandbox.url }
  }
  const browser = await chromium.launch({
    executablePath: findChrome(),
    args: CHROME_ARGS.filter((a: string) => a !== '--headless'),
    headless: true,
  })
  const shopper = await browser.newContext({ viewport: { width: 900, height: 1000 } })
  const shop: Shop = {
    // The demo's origin: the shop at /demo/, the product Worker behind it at every other path.
    url: urls.demo,
    gateway: urls.sandbox,
    browser,
    shopper,
    async stop() {
      // The events the demo shop received in this file's flows, against the API document: a
      // field the document promises and an event lacks fails the file.
      const hooks = await orders(shop).then(
        (o) => o.webhooks,
        () => [],
      )
      await browser.close()
      if (own) {
        await own.stop()
        rmSync(own.state, { recursive: true, force: true })
      }
      const errors = hooks.flatMap((h) => CONTRACT.event({ id: h.id, type: h.type, created: 0, data: h.data }))
      if (errors.length > 0)
        throw new Error(`events the demo received break the API document:\n${[...new Set(errors)].join('\n')}`)
    },
  }
  return shop
}

/** WCAG 2.2 A and AA, as axe tags them. */
export const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

/**
 * axe's violations in a page or frame (`id (nodes)`), axe put in by the test: the page's CSP would
 * refuse it, so the page's context must bypass CSP (`newContext({ bypassCSP: true })`).
 */
export async function axeViolations(target: Page | Frame, tags: readonly string[] = WCAG): Promise<string[]> {
  if (!(await target.evaluate(() => 'axe' in window)))
    await target.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core') })
  return target.evaluate(async (values) => {
    const axe = (
      window as unknown as {
        axe: { run(c: Document, o: unknown): Promise<{ violations: { id: string; nodes: unknown[] }[] }> }
      }
    ).axe
    return (await axe.run(document, { runOnly: { type: 'tag', values } })).violations.map(
      (v) => `${v.id} (${v.nodes.length})`,
    )
  }, tags)
}

export const SCREENSHOTS = join(root, 'docs', 'screenshots')
mkdirSync(SCREENSHOTS, { recursive: true })

export async function shot(page: Page, name: string): Promise<void> {
  await page.locator('pay-checkout').screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

export async function fillCard(
  page: Page | FrameLocator,
  number: string,
  extra: Record<string, string> = {},
): Promise<void> {
  const values: Record<string, string> = {
    number,
    expiry: '1230',
    cvv: number.startsWith('37') ? '1234' : '123',
    givenName: 'Ada',
    surname: 'Lovelace',
    ...extra,
  }
  for (const [id, value] of Object.entries(values)) await page.locator(`pay-checkout #${id}`).fill(value)
}

export const result = (page: Page) => page.locator('#result')

/** The demo backend's view of the shopper's orders (the merchant side), with the shopper's cookie. */
export async function orders(shop: Shop): Promise<{
  orders: { sessionId: string; kind: string; session: Record<string, unknown> }[]
  webhooks: { id: string; type: string; verified: boolean; data: Record<string, unknown> }[]
}> {
  return (await (await shop.shopper.request.get(`${shop.url}/demo/api/orders`)).json()) as never
}

export async function chargesFor(shop: Shop, mtid: string): Promise<number> {
  return (
    (await (await fetch(`${shop.gateway}/sandbox/stats?mtid=${encodeURIComponent(mtid)}`)).json()) as { byMtid: number }
  ).byMtid
}

export async function latestSession(shop: Shop): Promise<Record<string, unknown>> {
  const o = await orders(shop)
  return o.orders[0]?.session ?? {}
}
