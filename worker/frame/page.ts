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
 * A template function over the field table (`shared/card-inputs.ts`, which the widget's card form
 * renders too), not `@lit-labs/ssr`: the form is a few dozen elements, known from the URL alone,
 * and the script that takes it over is not Lit, so there is nothing to hydrate; the renderer
 * costs the Worker no dependency and no time worth measuring.
 *
 * The markup is the element's own shape (`<pay-checkout-inline>` holding `<pay-card-form>`, each
 * with an open shadow root, declared in the HTML), so what a test or a screen reader finds in the
 * frame is what it finds inline. Styles are inline `<style>` blocks; the frame's CSP lists their
 * hashes and the stub's (`pageHashes`).
 */
import { maxCardLength } from '../../shared/card.ts'
import {
  CARD,
  CUSTOMER,
  inputsFor,
  isList,
  LTR_INPUTS,
  PHONE,
  SHIPPING,
  type InputSpec,
} from '../../shared/card-inputs.ts'
import { formatMessage } from '../../shared/i18n/icu.ts'
import type { Messages } from '../../shared/i18n/messages/en.ts'
import { MORE_KEYS } from '../../shared/i18n/parts.ts'
import { FRAME_STUB } from '../../shared/frame-stub.ts'
import { direction, resolveLocale } from '../../shared/locales.ts'
import { SHOPPER_FIELDS } from '../../shared/shopper-fields.ts'
import { CARD_FORM, CHECKOUT, FORM, minifyCss, SPINNER, TOKENS } from '../../shared/styles.ts'
import { MESSAGES } from './messages.ts'

/** The script that takes the form over, as built (`vite.config.ts`). */
export const FRAME_SCRIPT = '/widget/frame.js'

/** The frame's three style sheets: the document's, the checkout's and the card form's. */
const SHEETS = [
  'html{background:transparent}body{margin:0}pay-checkout{display:block}',
  minifyCss(TOKENS + FORM + SPINNER + CHECKOUT).trim(),
  minifyCss(TOKENS + FORM + SPINNER + CARD_FORM).trim(),
] as const

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
  'choose',
])

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c)

export interface FrameOptions {
  /** As the element sent it (`pt-BR`, `de-AT`): resolved as the element resolves it. */
  readonly locale: string | undefined
  readonly theme: string | undefined
  readonly shipping: boolean
}

function input(s: InputSpec, m: Messages, lang: string): string {
  const field = SHOPPER_FIELDS[s.fields[0] ?? 'cardNumber']
  const hint = s.id === 'cvv' ? formatMessage(m.cvvHint, { n: 3 }, lang) : ''
  const common = `id="${s.id}" part="input" ${s.required ? 'required ' : ''}aria-invalid="false"${hint ? ` aria-describedby="${s.id}-hint"` : ''}`
  const control = isList(s.id)
    ? `<select ${common} name="${field.wire}" autocomplete="${field.input.autocomplete}"><option value="" selected>${escape(m.choose)}</option></select>`
    : `<input ${common} name="${s.id === 'expiry' ? 'cc-exp' : field.wire}" autocomplete="${s.id === 'expiry' ? 'cc-exp' : field.input.autocomplete}" inputmode="${field.input.inputmode ?? 'text'}"${LTR_INPUTS.includes(s.id) ? ' dir="ltr"' : ''} maxlength="${s.id === 'number' ? maxCardLength(undefined) + 4 : s.id === 'expiry' ? 7 : s.id === 'cvv' ? 4 : 100}" spellcheck="false">`
  return `<div class="field" part="field"><label for="${s.id}">${escape(m[s.label])}</label><div class="below"><div class="control">${control}</div>${hint ? `<p class="hint" id="${s.id}-hint">${escape(hint)}</p>` : ''}</div></div>`
}

/** The card form as `<pay-card-form>` renders it for a new card, before the session is known. */
function cardForm(m: Messages, lang: string, shipping: boolean): string {
  const shown = inputsFor('card', null, shipping)
  const fields = (group: readonly InputSpec[]) =>
    shown
      .filter((s) => group.includes(s))
      .map((s) => input(s, m, lang))
      .join('')
  const [number = '', ...expiryAndCvv] = CARD.map((s) => input(s, m, lang))
  const customer = CUSTOMER.filter((s) => shown.includes(s))
  return [
    '<form part="form" novalidate>',
    number,
    `<div class="row">${expiryAndCvv.join('')}</div>`,
    `<div class="row">${fields(customer.slice(0, 2))}</div>`,
    fields(customer.slice(2)),
    `<div class="row phone">${fields(PHONE)}</div>`,
    shipping ? `<fieldset><legend>${escape(m.shippingTitle)}</legend>${fields(SHIPPING)}</fieldset>` : '',
    `<button type="submit" part="submit" disabled aria-disabled="true">${escape(m.payNoAmount)}</button>`,
    '</form>',
  ].join('')
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
  return `<!doctype html>
<html lang="${lang}" dir="${dir}" data-pay-frame><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Card payment</title><script type="module" src="${FRAME_SCRIPT}"></script><style>${doc}</style></head><body><pay-checkout><pay-checkout-inline theme="${theme}"><template shadowrootmode="open"><style>${checkout}</style><div class="container" part="container" lang="${lang}" dir="${dir}" aria-busy="true"><p class="status loading" part="status" role="status" aria-live="polite"></p><pay-card-form exportparts="form, field, input, error, brand, submit"><template shadowrootmode="open"><style>${card}</style>${cardForm(m, lang, options.shipping)}</template></pay-card-form></div></template></pay-checkout-inline></pay-checkout>
<script>${FRAME_STUB}</script>
<script type="application/json" id="pay-words">${JSON.stringify(words).replace(/</g, '\\u003c')}</script>
</body></html>`
}
