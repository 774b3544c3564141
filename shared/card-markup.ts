/**
 * @module
 * The card form's markup for a new card, before the session is known, as `<pay-card-form>`
 * renders it: written by the Worker into the card frame's HTML (`worker/frame/page.ts`), and by the
 * light inline form into the element (`widget/inline/light.ts`), from the shared field table.
 * A template function, not Lit: the script that takes the form over is not Lit either.
 */
import {
  CARD,
  CUSTOMER,
  inputsFor,
  isList,
  labelOf,
  LTR_INPUTS,
  maxTyped,
  PHONE,
  SHIPPING,
  shippingLegend,
  type InputSpec,
} from './card-inputs.ts'
import { formatMessage } from './i18n/icu.ts'
import type { Messages } from './i18n/messages/en.ts'
import { SHOPPER_FIELDS } from './shopper-fields.ts'
import { CARD_FORM, CHECKOUT, FORM, minifyCss, SPINNER, TOKENS } from './styles.ts'

/** The two shadow roots' style sheets: the checkout's (the box, status, amount) and the card form's. */
export const CARD_SHEETS = [
  minifyCss(TOKENS + FORM + SPINNER + CHECKOUT).trim(),
  minifyCss(TOKENS + FORM + SPINNER + CARD_FORM).trim(),
] as const

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
export const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c)

function input(s: InputSpec, m: Messages, lang: string): string {
  const field = SHOPPER_FIELDS[s.fields[0] ?? 'cardNumber']
  const hint = s.id === 'cvv' ? formatMessage(m.cvvHint, { n: 3 }, lang) : ''
  const common = `id="${s.id}" part="input" ${s.required ? 'required ' : ''}aria-invalid="false"${hint ? ` aria-describedby="${s.id}-hint"` : ''}`
  const control = isList(s.id)
    ? `<select ${common} name="${field.wire}" autocomplete="${field.input.autocomplete}"><option value="" selected>${escapeHtml(m.choose)}</option></select>`
    : `<input ${common} name="${s.id === 'expiry' ? 'cc-exp' : field.wire}" autocomplete="${s.id === 'expiry' ? 'cc-exp' : field.input.autocomplete}" inputmode="${field.input.inputmode ?? 'text'}"${LTR_INPUTS.includes(s.id) ? ' dir="ltr"' : ''} maxlength="${maxTyped(s.id)}" spellcheck="false">`
  return `<div class="field" part="field"><label for="${s.id}">${escapeHtml(labelOf(s, m, lang))}</label><div class="below"><div class="control">${control}</div>${hint ? `<p class="hint" id="${s.id}-hint">${escapeHtml(hint)}</p>` : ''}</div></div>`
}

/**
 * The card form as `<pay-card-form>` renders it for a new card, before the session is read: the
 * customer's inputs that `prefill` gives (by input id, as `inputsFor` takes them) are left out, as
 * the element leaves out those the session gives.
 */
export function cardFormMarkup(
  m: Messages,
  lang: string,
  shipping: boolean,
  prefill: Partial<Record<string, string>> | null = null,
): string {
  const shown = inputsFor('card', prefill, shipping)
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
    shipping ? `<fieldset><legend>${escapeHtml(shippingLegend(m, lang))}</legend>${fields(SHIPPING)}</fieldset>` : '',
    `<button type="submit" part="submit" disabled aria-disabled="true">${escapeHtml(m.payNoAmount)}</button>`,
    '</form>',
  ].join('')
}
