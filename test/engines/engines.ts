/**
 * One small interface over three browser engines, so that the same shopper's flows run in each:
 * Chromium (puppeteer-core over CDP), Firefox ESR (puppeteer-core over WebDriver BiDi) and WebKitGTK
 * (webdriverio against Debian's WebKitWebDriver, which drives MiniBrowser under Xvfb). Every engine
 * is the machine's own (Debian packages); nothing here downloads a browser or a driver: puppeteer is
 * given the executable, webdriverio the port of a driver started here.
 *
 * Selectors are CSS with `>>>` where they enter a shadow root (`pay-checkout >>> #number`: the card
 * number anywhere in the element's shadow trees). Each action names its scope: `page`, the top
 * document, or `form`, where the card form is: the top document in inline mode, the Worker's frame
 * (an iframe in the element's shadow root) in frame mode.
 */
import { existsSync } from 'node:fs'
import puppeteer, { type Browser as PBrowser, type ElementHandle, type Frame, type Page } from 'puppeteer-core'
import { remote } from 'webdriverio'
import { CHROME_ARGS, findChrome } from '../../tools/chrome.mjs'
import { freePort, waitFor } from '../../tools/stacks.mjs'
import { spawnTracked, stopProcess } from '../../worker/dev/processes.mjs'

export type EngineName = 'chromium' | 'firefox' | 'webkit'
export type Mode = 'frame' | 'inline'
/** `page`: the top document; `form`: where the card form is in this mode. */
export type Scope = 'page' | 'form'

export interface Tab {
  readonly engine: EngineName
  /** Opens `url` in the one tab; `mode` decides where `form` actions look afterwards. */
  goto(url: string, mode?: Mode): Promise<void>
  url(): Promise<string>
  /** Waits for the element, empties it and types `value` as keys. */
  fill(scope: Scope, selector: string, value: string): Promise<void>
  /** Waits for the element and clicks it. */
  click(scope: Scope, selector: string): Promise<void>
  /** Waits until the element exists (and, for a frame scope, the frame too). */
  waitFor(scope: Scope, selector: string, timeoutMs?: number): Promise<void>
  /** The element's textContent, or null if it is not there (now: no waiting). */
  text(scope: Scope, selector: string): Promise<string | null>
  attribute(scope: Scope, selector: string, name: string): Promise<string | null>
  /** A computed style property of the element, or null if it is not there. */
  style(scope: Scope, selector: string, property: string): Promise<string | null>
  /** A PNG of one element of the top document (WebKit: of the window, the element at its top). */
  screenshot(selector: string, path: string): Promise<void>
  /** The browser's cookies for the current page, as a Cookie header. */
  cookieHeader(): Promise<string>
  close(): Promise<void>
}

/**
 * The engines `npm run test:engines` drives: Firefox and WebKit. Chromium runs the same flows, and
 * more, in `npm run test:e2e` (demo, methods and locales files), so `npm test` does not run them a
 * second time in it (two cores, ten minutes for all of CI); `ENGINES=chromium,firefox,webkit`
 * runs this file's flows in all three.
 */
export const ENGINES: readonly EngineName[] = (process.env.ENGINES ?? 'firefox,webkit').split(',').map((e) => {
  if (e !== 'chromium' && e !== 'firefox' && e !== 'webkit') throw new Error(`ENGINES: unknown engine ${e}`)
  return e
})

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr'
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver'
const MINIBROWSER =
  process.env.MINIBROWSER_PATH ??
  [
    '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser',
  ].find((p) => existsSync(p)) ??
  ''
const VIEWPORT = { width: 900, height: 1000 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `probe` until it gives a value other than null/undefined/false. */
async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== null && v !== undefined && v !== false) return v
    } catch (e) {
      // A context torn down by a navigation, a frame not attached yet: try again.
      last = e
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not there after ${timeoutMs} ms${last ? ` (${String(last)})` : ''}`)
    await sleep(100)
  }
}

/**
 * Runs an action until it goes through: as a shopper would, it waits for the element to be there,
 * enabled and interactable (a frame still sizing itself, a button disabled while a request runs).
 */
function act(what: string, action: () => Promise<unknown>, timeoutMs = 15_000): Promise<true> {
  return until(
    what,
    async () => {
      await action()
      return true as const
    },
    timeoutMs,
  )
}

/** The field took the keys (the form may format them: `4111 1111 …`, `12 / 30`); else act() tries again. */
async function typed(now: string, value: string, selector: string): Promise<void> {
  const plain = (v: string) => v.replace(/[^\p{L}\p{N}]/gu, '')
  if (plain(now) !== plain(value))
    throw new Error(`${selector} holds ${JSON.stringify(now.length)} characters, not what was typed`)
}

export async function openEngine(engine: EngineName): Promise<Tab> {
  return engine === 'webkit' ? openWebKit() : openPuppeteer(engine)
}

async function openPuppeteer(engine: 'chromium' | 'firefox'): Promise<Tab> {
  const browser: PBrowser =
    engine === 'firefox'
      ? await puppeteer.launch({
          browser: 'firefox',
          executablePath: FIREFOX,
          headless: true,
          // As Firefox before `location.ancestorOrigins` (and any browser without it): the card
          // frame finds its page by the Referer, and after loading itself again by its address.
          // Chromium and WebKit run the other way.
          extraPrefsFirefox: { 'dom.location.ancestorOrigins.enabled': false },
          defaultViewport: VIEWPORT,
        })
      : await puppeteer.launch({
          executablePath: findChrome(),
          args: CHROME_ARGS.filter((a: string) => a !== '--headless'),
          headless: true,
          defaultViewport: VIEWPORT,
        })
  try {
    const page: Page = await browser.newPage()
    let mode: Mode = 'inline'
    const context = async (scope: Scope): Promise<Page | Frame> => {
      if (scope === 'page' || mode === 'inline') return page
      const iframe = await page.$('pay-checkout >>> iframe')
      const frame = await iframe?.contentFrame()
      if (!frame) throw new Error('no card frame yet')
      return frame
    }
    const find = async (scope: Scope, selector: string): Promise<ElementHandle | null> =>
      (await context(scope)).$(selector)
    const found = (scope: Scope, selector: string, timeoutMs?: number) =>
      until(`${engine}: ${selector} (${scope})`, () => find(scope, selector), timeoutMs)
    const ready = async (scope: Scope, selector: string) => {
      const el = await found(scope, selector)
      if (await el.evaluate((e) => (e as HTMLButtonElement).disabled === true))
        throw new Error(`${selector} is disabled`)
      return el
    }
    return {
      engine,
      async goto(url, m = 'inline') {
        mode = m
        await page.goto(url)
      },
      async url() {
        return page.url()
      },
      async fill(scope, selector, value) {
        await act(`${engine}: fill ${selector}`, async () => {
          const el = await ready(scope, selector)
          await el.evaluate((input) => {
            ;(input as HTMLInputElement).value = ''
            input.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
          })
          await el.type(value)
          await typed(await el.evaluate((i) => (i as HTMLInputElement).value), value, selector)
        })
      },
      async click(scope, selector) {
        await act(`${engine}: click ${selector}`, async () => {
          const el = await ready(scope, selector)
          // Puppeteer scrolls an element into view within its own frame only; a button low in a
          // frame that reaches below the window would be clicked outside it. scrollIntoView
          // scrolls every ancestor document too.
          await el.evaluate((e) => e.scrollIntoView({ block: 'center' }))
          // And it clicks where the element was when it looked: wait until it stays put (a frame
          // growing to fit a new step, with its .15 s height transition, moves what is in it).
          let box = ''
          for (let i = 0; i < 30; i++) {
            const now = JSON.stringify(await el.boundingBox())
            if (now === box && now !== 'null') break
            box = now
            await sleep(100)
          }
          await el.click()
        })
      },
      async waitFor(scope, selector, timeoutMs) {
        await found(scope, selector, timeoutMs)
      },
      async text(scope, selector) {
        const el = await find(scope, selector).catch(() => null)
        return el ? el.evaluate((e) => e.textContent) : null
      },
      async attribute(scope, selector, name) {
        const el = await find(scope, selector).catch(() => null)
        return el ? el.evaluate((e, n) => e.getAttribute(n), name) : null
      },
      async style(scope, selector, property) {
        const el = await find(scope, selector).catch(() => null)
        return el ? el.evaluate((e, p) => getComputedStyle(e).getPropertyValue(p), property) : null
      },
      async screenshot(selector, path) {
        await (await found('page', selector)).screenshot({ path: path as `${string}.png` })
      },
      async cookieHeader() {
        return (await page.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
      },
      async close() {
        await browser.close()
      },
    }
  } catch (e) {
    await browser.close()
    throw e
  }
}

/**
 * WebKitGTK: Debian's WebKitWebDriver on a free loopback port, under `xvfb-run` (MiniBrowser has no
 * headless mode in this build: it needs a display, and Xvfb is one in memory). The driver runs in a
 * process group of its own, tracked like the wrangler processes: if this process dies, it goes too.
 */
async function openWebKit(): Promise<Tab> {
  if (!MINIBROWSER)
    throw new Error('MiniBrowser not found: apt-get install -y webkit2gtk-driver (or set MINIBROWSER_PATH)')
  const port = await freePort()
  const driver = spawnTracked(
    'xvfb-run',
    ['-a', '-s', '-screen 0 1280x1024x24', WEBKIT_DRIVER, `--port=${port}`, '--host=local'],
    { stdio: 'ignore' },
  )
  let browser: WebdriverIO.Browser | undefined
  try {
    await waitFor(`http://127.0.0.1:${port}/status`, 30_000, driver)
    browser = await remote({
      hostname: '127.0.0.1',
      port,
      path: '/',
      // Retried refusals (an element not focusable yet) would be logged as errors; failures throw.
      logLevel: 'silent',
      capabilities: {
        browserName: 'MiniBrowser',
        // Classic WebDriver: WebKitWebDriver speaks no BiDi.
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
      } as WebdriverIO.Capabilities,
    })
  } catch (e) {
    await stopProcess(driver)
    throw e
  }
  const b = browser
  await b.setWindowSize(VIEWPORT.width, VIEWPORT.height)
  let mode: Mode = 'inline'
  // The driver's current browsing context: the top document or the card frame.
  let inFrame = false
  // webdriverio's deep selector (`>>>` at the start) searches every shadow root for the whole
  // selector; the `>>>` inside ours only say where shadow roots are.
  const deep = (selector: string) =>
    selector.includes('>>>') ? `>>>${selector.replaceAll(/\s*>>>\s*/g, ' ')}` : selector
  const enter = async (scope: Scope) => {
    if (scope === 'form' && mode === 'frame') {
      await b.switchFrame(null)
      const iframe = await b.$(deep('pay-checkout >>> iframe')).getElement()
      if (!iframe.elementId) throw new Error('no card frame yet')
      await b.switchFrame(iframe)
      inFrame = true
    } else if (inFrame) {
      await b.switchFrame(null)
      inFrame = false
    }
  }
  const find = async (scope: Scope, selector: string) => {
    await enter(scope)
    const el = await b.$(deep(selector)).getElement()
    return el.elementId ? el : null
  }
  const found = (scope: Scope, selector: string, timeoutMs?: number) =>
    until(`webkit: ${selector} (${scope})`, () => find(scope, selector), timeoutMs)
  const ready = async (scope: Scope, selector: string) => {
    const el = await found(scope, selector)
    if (await b.execute((e: Element) => (e as HTMLButtonElement).disabled === true, el as unknown as Element))
      throw new Error(`${selector} is disabled`)
    return el
  }
  return {
    engine: 'webkit',
    async goto(url, m = 'inline') {
      mode = m
      if (inFrame) await b.switchFrame(null)
      inFrame = false
      await b.url(url)
    },
    async url() {
      if (inFrame) await b.switchFrame(null)
      inFrame = false
      return b.getUrl()
    },
    async fill(scope, selector, value) {
      // Element Clear, then Element Send Keys: the driver types each character. In the Worker's
      // frame on a page of another origin, WebKitWebDriver answers "Element is not focusable" for
      // the first field for a second or two after it appears: act() tries again.
      await act(`webkit: fill ${selector}`, async () => {
        const el = await ready(scope, selector)
        await el.setValue(value)
        await typed(
          await b.execute((i: HTMLInputElement) => i.value, el as unknown as HTMLInputElement),
          value,
          selector,
        )
      })
    },
    async click(scope, selector) {
      // Element Click; where the driver's hit test says the element is covered (it can take the
      // shadow host over an element for the one on top), a button or link is activated as a
      // keyboard user does (focus, Enter), anything else by a pointer press and release at its centre.
      await act(`webkit: click ${selector}`, async () => {
        const el = await ready(scope, selector)
        // The driver clicks where the element was when it looked, as Chromium's does: wait until
        // it stays put (a frame growing to fit a new step, with its .15 s height transition, moves
        // what is in it; a click at the old place lands beside the button and is lost).
        let box = ''
        for (let i = 0; i < 30; i++) {
          const now = await b.execute(
            // Its place in the frame, the frame's size, and where the frame is on the page when
            // the page lets the frame see it (the same origin).
            (e: Element) => {
              let frame: DOMRect | undefined
              try {
                frame = window.frameElement?.getBoundingClientRect()
              } catch {
                // Another origin's page: the frame's own size still says whether it is growing.
              }
              return JSON.stringify([e.getBoundingClientRect(), innerWidth, innerHeight, frame])
            },
            el as unknown as Element,
          )
          if (now === box) break
          box = now
          await sleep(100)
        }
        try {
          await el.click()
        } catch (e) {
          if (!/intercepted|interactable/i.test(String(e))) throw e
          if (
            await b.execute(
              (x: HTMLElement) => (x.matches('button, a[href]') ? (x.focus(), true) : false),
              el as unknown as HTMLElement,
            )
          )
            await b.keys(['Enter'])
          else await b.action('pointer').move({ origin: el }).down().up().perform()
        }
      })
    },
    async waitFor(scope, selector, timeoutMs) {
      await found(scope, selector, timeoutMs)
    },
    async text(scope, selector) {
      const el = await find(scope, selector).catch(() => null)
      return el ? b.execute((e: Element) => e.textContent, el as unknown as Element) : null
    },
    async attribute(scope, selector, name) {
      const el = await find(scope, selector).catch(() => null)
      return el ? el.getAttribute(name) : null
    },
    async style(scope, selector, property) {
      const el = await find(scope, selector).catch(() => null)
      return el
        ? b.execute(
            (e: Element, p: string) => getComputedStyle(e).getPropertyValue(p),
            el as unknown as Element,
            property,
          )
        : null
    },
    async screenshot(selector, path) {
      const el = await found('page', selector)
      // WebKitWebDriver's element screenshot cuts the wrong part of a scrolled page (and paints
      // black what is outside the window): the element goes to the window's top and the
      // screenshot is of the window, the element and what is below it.
      await b.execute((e: Element) => e.scrollIntoView({ block: 'start' }), el as unknown as Element)
      await b.saveScreenshot(path)
    },
    async cookieHeader() {
      if (inFrame) await b.switchFrame(null)
      inFrame = false
      return (await b.getCookies()).map((c) => `${c.name}=${c.value}`).join('; ')
    },
    async close() {
      try {
        await b.deleteSession()
      } finally {
        await stopProcess(driver)
      }
    },
  }
}
