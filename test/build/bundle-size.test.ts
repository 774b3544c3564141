/**
 * Size budgets of the three downloads a merchant's deployment causes (brotli, each file compressed
 * as it is served; deterministic: the same sources give the same bytes):
 * - the script a merchant page downloads in the default frame mode;
 * - everything `isolation="inline"` downloads for the card flow;
 * - the card frame's document and all its scripts;
 * both with the country and phone-code lists the card form loads just after its first render.
 * QR, invoice and locale code are separate chunks that none of them loads for a card in English;
 * each locale's chunks are within 1.2 KB brotli.
 * The targets are printed by `npm run bench` beside these figures (bench/README.md says
 * which are met and what limits the others); the budgets here hold what is reached.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALES } from '../../shared/locales.ts'
import { FRAME_SCRIPT, framePage } from '../../worker/frame/page.ts'
import { measure, sizes } from '../../tools/bundle.mjs'
import { buildConsole } from '../../vite.config.ts'
import { root } from '../../tools/stacks.mjs'

const KB = 1024
const out = mkdtempSync(join(tmpdir(), 'pay-build-'))
let m: ReturnType<typeof measure>

beforeAll(async () => {
  // As `npm run build` does: vitest's NODE_ENV=test would make Vite pick Lit's development build.
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({
      root,
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'silent',
      mode: 'production',
      build: { outDir: out },
    })
  } finally {
    process.env.NODE_ENV = env
  }
  m = measure(out, {
    framePage: framePage({ locale: 'en', theme: 'light', shipping: false }),
    frameScripts: [FRAME_SCRIPT],
  })
}, 60_000)
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('widget bundles', () => {
  it('frame mode: the merchant page downloads one file of at most 5 KB brotli, and no card form, validators or Lit', () => {
    expect(m.frameHost.brotli).toBeLessThanOrEqual(5 * KB)
    // One file: the script tag's integrity attribute pins everything frame mode runs on the page.
    expect(m.frameHost.files).toEqual(['pay-checkout.js'])
    expect(m.frameHost.files.some((f: string) => /inline|card-form|i18n/.test(f))).toBe(false)
  })

  // 21 KB until a setup session (saving a card without paying) got its own words: "Save card" on
  // the button, "Card saved." after, no amount shown (51 bytes over 21 KB). 21.1 KB until the
  // declarative embed (a frame the shop's server writes in the element, used where it is): the
  // entry, which inline mode downloads too, took 86 bytes of it. 21.2 KB until the card frame was
  // rendered by the Worker: the card form's inputs, rules and brand marks, and the styles, became
  // tables and text in shared/ that both renderers read (43 bytes more for the Lit form). 21.25 KB
  // until the phone-code list wrote each country's code in the country list's order (255 bytes less).
  // 21 KB until inline mode showed a card with the light form (the frame's card flow over the
  // shared markup, no Lit), one file the entry imports; the full checkout (Lit) loads only for
  // the other ways to pay. 16.4 KB before its markup went through a Trusted Types policy. 16.75 KB
  // until the element handed the light form its redirect rule and the meaning of an unanswered
  // request, which the light form carried copies of (280 bytes less). 16.5 KB until a phone typed
  // with its country code put that code in the phone-code list (228 bytes more). 16.75 KB until
  // the card inputs took digits of any script, an expiry's year in four digits and its month in
  // one, left an edit in the middle or an input method's text as typed, and read `0049` as +49
  // (327 bytes more, with the frame's card flow below). 17 KB until a session read after a pay
  // said its decline or offered its waiting bank step, and the card number kept its caret where
  // the shopper typed, and the pay button its focus (176 bytes more, with the frame's; the entry 97
  // bytes less). 17.25 KB until the buttons drew a border that forced colors (high contrast) show
  // and the spinner pulsed instead of turning in reduced motion, and a pay refused for a deleted
  // saved card or the page's method read the session once (17,687 bytes: 47 more, after the style
  // sheets lost their numbers' leading zeros). 17.5 KB until what the shopper typed besides the
  // card came back after a failed bank step (`widget/card-form/kept.ts`: 345 bytes more, 18,124).
  // 17.75 KB until the optional inputs said so in their labels ("Phone (optional)"), and a shipping
  // address optional as a whole in its legend (116 bytes more, 18,227). 18 KB until a result the
  // element had told (a decline, a pending payment) was not told again by a form made again for a
  // new language, nor `pay-ready` after the payment (the entry 34 bytes more, 18,460). 18.25 KB
  // until a field the Worker refused was shown at its input (18,686), and no `pay-ready` was told
  // while a payment made here is on its way (the entry 31 bytes more, 18,717).
  it('inline card flow: the entry and the light form, one file, at most 18.5 KB brotli, with no Lit', async () => {
    const { readFileSync } = await import('node:fs')
    expect(m.inlineFlow.brotli).toBeLessThanOrEqual(18.5 * KB)
    expect(m.inlineFlow.files).toEqual(['pay-checkout.js', 'chunks/light.js'])
    const code = readFileSync(join(out, 'chunks', 'light.js'), 'utf8')
    expect(code).not.toMatch(/lit-html|reactive-element|customElements\.define/)
    // The lists are in it; what it loads later is its locale's words only.
    expect(code).toContain('Intl.DisplayNames')
    const loads = [...code.matchAll(/import\(\s*(?:\/\*[^*]*\*\/\s*)?([^)]*)\)/g)].map((x) => x[1])
    expect(loads.length).toBeGreaterThan(0)
    for (const load of loads) expect(load).toMatch(/^`\.\/\$\{\w+\}\.js`$/)
  })

  // 23 KB while the frame ran the inline checkout (Lit, the entry, three scripts). The Worker now
  // renders the form into the frame's HTML and one script without Lit takes it over: the issue's
  // target is 10 KB (bench/README.md says what the rest is). 12 KB until the phone-code list
  // wrote each country's code in the country list's order (250 bytes less). 11.75 KB until its
  // card flow became one the light inline form runs too (`widget/card-frame/card-flow.ts`: the
  // options inline mode needs, 230 bytes more). 12 KB until a phone typed with its country code
  // put that code in the phone-code list (233 bytes more: shoppers type and paste numbers so, and
  // were told two errors instead). 12.25 KB until digits typed in the shopper's script (Arabic,
  // Persian, Hindi, a Japanese IME's full width) were taken as the ASCII digits they are, where
  // the card number used to drop them as they were typed (129 bytes more). 12.5 KB until the
  // expiry took a year in four digits and a month in one, and left an edit in the middle or an
  // input method's text as typed (a value rewritten under the caret would make a corrected month
  // another date), and the phone read `0049` as +49 (182 bytes more). 12.75 KB until a session
  // read after a pay said its decline or offered its waiting bank step (a button, and two more
  // messages in the frame's words), the card number kept its caret where the shopper typed, and
  // the pay button its focus through a pay (279 bytes more). 13 KB until the frame told the page
  // its name in the shopper's language, which a screen reader says for the frame (9 bytes more:
  // one message in its first words; the words are the Worker's). 13.25 KB until what the shopper
  // typed besides the card came back after a failed bank step (342 bytes more, 13,722). 13.5 KB
  // until a pay refused because the session moved on without the page (paid in another tab, a
  // payment on its way), or answered by a bare 5xx, read the session again and told its outcome,
  // where the page said "nothing was charged" and never fired pay-success (92 bytes more, 13,845).
  // 13.75 KB until a payment being confirmed that the session showed never made brought the form
  // back asking to try again, with a key of its own for the next pay, and told the page (it used
  // to wait there for good), and a pay answered by a bare 5xx whose payment is on its way told
  // pay-pending (61 bytes more, 14,128).
  it('the card frame: its document (the form in it) and its one script, lists included, are at most 13.85 KB brotli, with no Lit', async () => {
    const { readFileSync } = await import('node:fs')
    expect(m.frameDocument.brotli).toBeLessThanOrEqual(13.85 * KB)
    expect(m.frameDocument.files).toEqual(['frame.js'])
    const code = readFileSync(join(out, 'frame.js'), 'utf8')
    expect(code).not.toMatch(/lit-html|reactive-element|customElements\.define/)
    // The lists are in it, not a chunk of their own; nothing is imported but the full checkout, for
    // a session the script does not show.
    expect(code).toContain('Intl.DisplayNames')
    expect([...code.matchAll(/import\(\s*(?:\/\*[^*]*\*\/\s*)?([^)]*)\)/g)].map((x) => x[1])).toHaveLength(1)
  })

  it('QR, invoice and locales are separate chunks loaded only when used', () => {
    expect(Object.keys(m.lazy)).toEqual(expect.arrayContaining(['qr-wallet', 'invoice-view', 'de', 'ja']))
  })

  it('each locale is within 1.2 KB brotli, loaded only when used: its card flow messages, and apart the QR, invoice and picker ones', () => {
    for (const locale of LOCALES.filter((l) => l !== 'en')) {
      for (const chunk of [locale, `${locale}.more`]) {
        expect(m.lazy[chunk], `chunks/${chunk}.js`).toBeDefined()
        expect(m.lazy[chunk]?.brotli, `chunks/${chunk}.js`).toBeLessThanOrEqual(1.2 * KB)
      }
    }
  })

  it('the browser bundles hold no gateway wire names, credentials or operations', async () => {
    const { readFileSync } = await import('node:fs')
    const files = new Set([
      ...m.frameHost.files,
      ...m.inlineFlow.files,
      ...m.frameDocument.files,
      ...Object.keys(m.lazy).map((c) => `chunks/${c}.js`),
    ])
    for (const f of files) {
      const code = readFileSync(join(out, f), 'utf8')
      for (const secret of [
        'authentication.sKey',
        'authentication.memberId',
        'authentication.checksum',
        'merchant.username',
        'paywithtoken',
        'transactionServices',
        'invoiceServices',
        'notificationUrl',
      ]) {
        expect(code, `${f}: ${secret}`).not.toContain(secret)
      }
    }
  })

  it('the merchant console is a file of its own of at most 20 KB brotli, and nothing of it is in a shopper’s bundle', async () => {
    const { readFileSync, readdirSync } = await import('node:fs')
    const consoleOut = join(out, '..', `${out.split(/[\\/]/).pop()}-console`)
    const env = process.env.NODE_ENV
    process.env.NODE_ENV = 'production'
    try {
      await buildConsole(root, consoleOut)
    } finally {
      process.env.NODE_ENV = env
    }
    try {
      expect(readdirSync(consoleOut)).toEqual(['console.js'])
      expect(sizes(readFileSync(join(consoleOut, 'console.js'))).brotli).toBeLessThanOrEqual(20 * KB)
    } finally {
      rmSync(consoleOut, { recursive: true, force: true })
    }
    const shopper = ['pay-checkout.js', ...readdirSync(join(out, 'chunks')).map((c) => `chunks/${c}`), 'frame.js']
    for (const f of shopper)
      for (const tag of ['pay-console', 'payment-list', 'webhook-list', 'console-sign-in'])
        expect(readFileSync(join(out, f), 'utf8'), `${f}: ${tag}`).not.toContain(tag)
  }, 60_000)

  it('importmap.json pins every file of the build by its SHA-384', async () => {
    const { readFileSync, readdirSync } = await import('node:fs')
    const { createHash } = await import('node:crypto')
    const map = JSON.parse(readFileSync(join(out, 'importmap.json'), 'utf8')) as { integrity: Record<string, string> }
    const built = ['pay-checkout.js', ...readdirSync(join(out, 'chunks')).map((c) => `chunks/${c}`)]
    expect(Object.keys(map.integrity).sort()).toEqual(built.map((f) => `/widget/${f}`).sort())
    for (const f of built)
      expect(map.integrity[`/widget/${f}`]).toBe(
        `sha384-${createHash('sha384')
          .update(readFileSync(join(out, f)))
          .digest('base64')}`,
      )
  })
})
