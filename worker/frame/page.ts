/**
 * @module
 * The card frame's document (`/frame/{id}`), rendered here in full: the card form's markup and
 * styles in the shopper's language, so its inputs exist and accept typing as soon as the HTML is
 * parsed, before any script. Then one small script (`/widget/frame.js`, no Lit) formats, checks,
 * pays and talks to the page. The page does not wait for it: a stub of a few lines right after the
 * form tells the page the form is ready (`shared/frame-stub.ts`), and keeps what the page says
 * until the script takes over, so the script is fetched beside the form and is never on the path
 * to `ready` (on a mobile network, its bytes would be: written into the page, they would arrive
 * with it, 45 ms later at 1.6 Mbit/s).
 *
 * A template function over the field table (`shared/card-markup.ts`, over `shared/card-inputs.ts`,
 * which the widget's card form renders too; the light inline form writes the same markup into the
 * page), not `@lit-labs/ssr`: the form is a few dozen elements, known from the URL alone,
 * and the script that takes it over is not Lit, so there is nothing to hydrate; the renderer
 * costs the Worker no dependency and no time worth measuring.
 *
 * The markup is the element's own shape (`<pay-checkout-inline>` holding `<pay-card-form>`, each
 * with an open shadow root, declared in the HTML), so what a test or a screen reader finds in the
 * frame is what it finds inline. Styles are inline `<style>` blocks; the frame's CSP lists their
 * hashes and the stub's (`pageHashes`).
 */
import { CARD, CUSTOMER, PHONE, SHIPPING } from '../../shared/card-inputs.ts'
import { cardFormMarkup, CARD_SHEETS } from '../../shared/card-markup.ts'
import { MORE_KEYS } from '../../shared/i18n/parts.ts'
import { FRAME_TITLE } from './title.ts'
import { FRAME_STUB } from '../../shared/frame-stub.ts'
import { direction, resolveLocale } from '../../shared/locales.ts'
import { MESSAGES } from './messages.ts'

/** The script that takes the form over, as built (`vite.config.ts`). */
export const FRAME_SCRIPT = '/widget/frame.js'

/** The frame's three style sheets: the document's, the checkout's and the card form's. */
const SHEETS = ['html{background:transparent}body{margin:0}pay-checkout{display:block}', ...CARD_SHEETS] as const

/** A CSP hash source, `'sha256-...'`. */
export const sha256 = async (text: string): Promise<string> => {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`
}

let hashes: Promise<{ styles: string[]; stub: string }> | undefined
/** The CSP sources (`'sha256-...'`) of the page's inline style sheets and of its stub, computed once per isolate. */
export function pageHashes(): Promise<{ styles: string[]; stub: string }> {
  hashes ??= Promise.all([Promise.all(SHEETS.map(sha256)), sha256(FRAME_STUB)]).then(([styles, stub]) => ({
    styles,
    stub,
  }))
  return hashes
}

/** What the script never says: the other methods' words, and the form's, which are in the markup already. */
const NOT_SAID: ReadonlySet<string> = new Set([
  ...MORE_KEYS,
  ...[...CARD, ...CUSTOMER, ...PHONE, ...SHIPPING].map((s) => s.label),
  'shippingTitle',
  'optional',
  'choose',
])

export interface FrameOptions {
  /** As the element sent it (`pt-BR`, `de-AT`): resolved as the element resolves it. */
  readonly locale: string | undefined
  readonly theme: string | undefined
  readonly shipping: boolean
  /** The customer's inputs the merchant gave (a verified frame token says which): not asked for. */
  readonly prefilled?: readonly string[]
}

/**
 * The whole document. It holds nothing of the session (no origins, no amount), so its body says
 * nothing about whether the session exists (SECURITY.md R21); the script reads the session when
 * the page hands it the client secret. The messages the script shows later (statuses, errors, the
 * pay button's label) travel as a JSON data block, which no CSP runs.
 */
export function framePage(options: FrameOptions): string {
  const lang = resolveLocale(options.locale ? [options.locale] : [])
  const m = MESSAGES[lang]
  const dir = direction(lang)
  const theme = options.theme === 'dark' || options.theme === 'auto' ? options.theme : 'light'
  const words = Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_SAID.has(k)))
  const [doc, checkout, card] = SHEETS
  const prefill = Object.fromEntries((options.prefilled ?? []).map((id) => [id, 'given']))
  return `<!doctype html>
<html lang="${lang}" dir="${dir}" data-pay-frame><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${FRAME_TITLE[lang]}</title><script type="module" src="${FRAME_SCRIPT}"></script><style>${doc}</style></head><body><pay-checkout><pay-checkout-inline theme="${theme}"><template shadowrootmode="open"><style>${checkout}</style><div class="container" part="container" lang="${lang}" dir="${dir}" aria-busy="true"><p class="status loading" part="status" role="status" aria-live="polite"></p><pay-card-form exportparts="form, field, input, error, brand, submit"><template shadowrootmode="open"><style>${card}</style>${cardFormMarkup(m, lang, options.shipping, prefill)}</template></pay-card-form></div></template></pay-checkout-inline></pay-checkout>
<script>${FRAME_STUB}</script>
<script type="application/json" id="pay-words">${JSON.stringify(words).replace(/</g, '\\u003c')}</script>
</body></html>`
}
