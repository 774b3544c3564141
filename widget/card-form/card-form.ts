/**
 * @module
 * `<pay-card-form>`: the card and customer form, rendered from the shopper part of the field table
 * (`shared/shopper-fields.ts`: wire names, autofill tokens, keyboards, required-ness) and validated
 * with the shared rules. It knows nothing
 * of the network: on a valid submit it hands the wire fields to its host, which pays. That keeps it
 * usable inline in `<pay-checkout>` and inside the isolated card frame.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit'
import { cvvLength, formatCardNumber, type CardBrand } from '../../shared/card.ts'
import {
  BRAND_NAMES,
  brandOf,
  CARD,
  checkInput,
  collectInputs,
  CUSTOMER,
  errorKey,
  formatExpiry,
  inputsFor,
  isList,
  labelOf,
  LTR_INPUTS,
  maxTyped,
  PHONE,
  SAVED,
  SHIPPING,
  refusedInputs,
  shippingLegend,
  type InputSpec,
} from '../../shared/card-inputs.ts'
import { focusDropped, retype } from './editing.ts'
import { keepTyped } from './kept.ts'
import type { FieldError, FieldErrorCode } from '../../shared/errors.ts'
import { SHOPPER_FIELDS, type ShopperField } from '../../shared/shopper-fields.ts'
import { brandIcon } from './brand-icons.ts'
import type { Choice } from './lists.ts'
import { PayChangeEvent } from '../events.ts'
import { en, format, type Messages } from '../i18n/index.ts'
import { cardFormStyles } from './card-form.styles.ts'

/**
 * @summary The card and customer form, from the shared field table.
 * @fires pay-change - Validity or brand changed through the shopper's input (or what they typed before a bank's step, put back); never the number.
 * @csspart form - The form.
 * @csspart field - Each label, input and error.
 * @csspart input - Each input.
 * @csspart error - Each field error.
 * @csspart brand - The detected card brand.
 * @csspart submit - The pay button.
 */
export class PayCardForm extends LitElement {
  static override styles = cardFormStyles
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true }
  static override properties = {
    mode: {},
    messages: { attribute: false },
    prefill: { attribute: false },
    collectShipping: { type: Boolean, attribute: 'collect-shipping' },
    savedBrand: { attribute: false },
    submitLabel: { attribute: false },
    disabled: { type: Boolean },
    busy: { type: Boolean },
    locale: {},
    values: { state: true },
    errors: { state: true },
    lists: { state: true },
  }

  /** `card` (full form) or `saved-card` (CVV only). */
  declare mode: 'card' | 'saved-card'
  declare messages: Messages
  /** Customer details the merchant already knows: their inputs are left out. */
  declare prefill: Partial<Record<string, string>> | null
  /** Ask for a shipping address too. */
  declare collectShipping: boolean
  /** The saved card's brand, for the CVV length. */
  declare savedBrand: CardBrand | null
  declare submitLabel: string
  /** While a payment is in flight: the button is disabled, so a double click sends once. */
  declare disabled: boolean
  /** The pay button had the focus when it was disabled (willUpdate). */
  private refocus = false
  /** A payment is in flight: the button shows a spinner beside its label. */
  declare busy: boolean
  /** For the country names in the lists. */
  declare locale: string
  declare private values: Record<string, string>
  /** Field errors shown to the shopper: only after a field's blur, or after a submit. */
  declare private errors: Record<string, FieldErrorCode>
  /** Inputs the Worker refused, with the value it refused and its rule: held while that value is. */
  private refused: Record<string, readonly [string, FieldErrorCode]> = {}
  /** The country and phone-code lists' module, once loaded (./lists.ts, a chunk of its own). */
  declare private lists: typeof import('./lists.ts') | null
  private listsLoading = false

  constructor() {
    super()
    this.mode = 'card'
    this.messages = en
    this.prefill = null
    this.collectShipping = false
    this.savedBrand = null
    this.submitLabel = ''
    this.disabled = false
    this.busy = false
    this.locale = 'en'
    this.values = {}
    this.errors = {}
    this.lists = null
  }

  /**
   * The lists (about 250 names from Intl.DisplayNames, sorted, and the calling codes) are a chunk
   * of their own, loaded once the form is on screen: the card flow does not wait for them. Should
   * it fail to load, the next update asks again. The saved card's form (CVV only) has no list.
   */
  protected override updated(): void {
    const button = this.shadowRoot?.querySelector<HTMLButtonElement>('button[type=submit]')
    if (button && this.refocus && !this.disabled) {
      this.refocus = false
      if (focusDropped()) button.focus()
    }
    if (this.lists || this.listsLoading || this.mode !== 'card') return
    this.listsLoading = true
    import('./lists.ts').then(
      (m) => {
        this.listsLoading = false
        this.lists = m
      },
      () => (this.listsLoading = false),
    )
  }
  private lastReported = ''

  private get specs(): readonly InputSpec[] {
    return inputsFor(this.mode, this.prefill, this.collectShipping)
  }

  private get brand(): CardBrand | undefined {
    return brandOf(this.mode, this.values, this.savedBrand)
  }

  /** The rule a value breaks, or null: the Worker's, for the value it refused, else the form's own. */
  private check(s: InputSpec): FieldErrorCode | null {
    const r = this.refused[s.id]
    return r && r[0] === (this.values[s.id] ?? '') ? r[1] : checkInput(s, this.values, this.brand)
  }

  /** The wire fields of a valid form (card data goes only to the caller, never into an event). */
  collect(): Record<string, string> {
    return collectInputs(this.specs, this.values)
  }

  /** Shows every error and moves focus to the first invalid field; true when the form is valid. */
  showErrors(): boolean {
    const errors: Record<string, FieldErrorCode> = {}
    for (const s of this.specs) {
      const code = this.check(s)
      if (code) errors[s.id] = code
    }
    this.errors = errors
    const first = this.specs.find((s) => errors[s.id])
    if (first)
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLInputElement>(`#${first.id}`)?.focus())
    return !first
  }

  /**
   * Shows the inputs the Worker refused (a card number in the street, which only it checks) as the
   * form's own checks are, and moves focus to the first.
   * @internal
   */
  showRefused(fields: readonly FieldError[]): void {
    const refused = refusedInputs(this.specs, fields)
    if (!refused.length) return
    for (const [id, code] of refused) this.refused[id] = [this.values[id] ?? '', code]
    this.errors = { ...this.errors, ...Object.fromEntries(refused) }
    this.reportChange()
    const [first] = refused[0] ?? []
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLInputElement>(`#${first}`)?.focus())
  }

  /**
   * Keeps what the shopper typed besides the card, for `session`, over the bank's step (`./kept.ts`).
   * @internal
   */
  keepTyped(session: string): void {
    keepTyped(session, this.values)
  }

  /**
   * Puts back what was kept (`./kept.ts`'s `takeTyped`) into the inputs shown and still empty.
   * @internal
   */
  putBack(kept: Readonly<Record<string, string>>): void {
    const values = { ...this.values }
    let filled = false
    for (const s of this.specs) {
      const value = kept[s.id]
      if (value && !values[s.id]) {
        values[s.id] = value
        filled = true
      }
    }
    if (!filled) return
    this.values = values
    this.reportChange()
  }

  /** Empties the form (all of it, or only the CVV after a decline). */
  clear(only?: 'cvv'): void {
    if (only) {
      const { [only]: _, ...rest } = this.values
      this.values = rest
    } else {
      this.values = {}
    }
    this.errors = {}
    this.refused = {}
    this.lastReported = ''
  }

  private onInput(s: InputSpec, e: Event): void {
    const input = e.target as HTMLInputElement
    const typed = e as InputEvent
    // An input method's text is the shopper's until it is committed (`compositionend` comes then).
    if (typed.isComposing) return
    const value = retype(typed, input, s.id)
    this.values = { ...this.values, [s.id]: value }
    // Errors already shown update as the shopper fixes them; new ones wait for blur or submit.
    if (this.errors[s.id]) {
      const code = this.check(s)
      const { [s.id]: _, ...rest } = this.errors
      this.errors = code ? { ...rest, [s.id]: code } : rest
    }
    this.reportChange()
  }

  private onBlur(s: InputSpec): void {
    if (s.id === 'phone') this.splitCode()
    const code = (this.values[s.id] ?? '') === '' && !this.errors[s.id] ? null : this.check(s)
    const { [s.id]: _, ...rest } = this.errors
    this.errors = code ? { ...rest, [s.id]: code } : rest
  }

  /** A phone typed with its country code: the code goes to its list (`splitPhone`), once the lists are here. */
  private splitCode(): void {
    const { phone = '', telnocc = '', country } = this.values
    const split = this.lists?.splitPhone(
      phone,
      this.lists.callingCodes(this.locale).map((c) => c.value),
      [telnocc.slice(0, 2), country, this.locale.split('-')[1]?.toUpperCase()],
    )
    if (!split) return
    this.values = { ...this.values, telnocc: split.code, phone: split.phone }
    // A list the shopper already chose from no longer follows its options' `selected`: set it here.
    const list = this.renderRoot.querySelector<HTMLSelectElement>('#telnocc')
    if (list) list.value = split.code
    const { telnocc: _, ...rest } = this.errors
    this.errors = rest
    this.reportChange()
  }

  /** Fires pay-change when validity or brand changed: no values, ever. */
  private reportChange(): void {
    // By the rules the pay would meet: a value the Worker refused is not valid while it is there.
    const valid = !this.specs.some((s) => this.check(s))
    const brand = this.brand ?? null
    const key = `${valid}|${brand}`
    if (key === this.lastReported) return
    this.lastReported = key
    this.dispatchEvent(new PayChangeEvent({ valid, brand }))
  }

  /** Browsers autofill by setting values without input events on some paths: read them back. */
  private syncFromInputs(): void {
    const values = { ...this.values }
    for (const s of this.specs) {
      const el = this.renderRoot.querySelector<HTMLInputElement>(`#${s.id}`)
      if (!el) continue
      let value = el.value
      if (s.id === 'number') value = formatCardNumber(value)
      if (s.id === 'expiry') value = formatExpiry(value)
      values[s.id] = value
    }
    this.values = values
  }

  private onSubmit(e: Event): void {
    e.preventDefault()
    if (this.disabled) return
    this.syncFromInputs()
    this.splitCode()
    if (!this.showErrors()) return
    this.dispatchEvent(new CustomEvent('card-form-submit', { detail: this.collect() }))
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('mode')) this.clear()
    // A button disabled while it has the focus drops it (to the page's body): it takes it back
    // when it is enabled (updated) where `focusDropped` allows, so a keyboard or screen-reader
    // shopper is where they were after a decline, and the status says what happened.
    if (this.disabled && this.shadowRoot?.activeElement?.matches('button[type=submit]')) this.refocus = true
  }

  private input(s: InputSpec): TemplateResult {
    const name = s.fields[0] ?? 'cardNumber'
    const field: ShopperField = SHOPPER_FIELDS[name]
    const error = this.errors[s.id]
    const isCard = s.id === 'number'
    const hint = s.id === 'cvv' ? format(this.messages, 'cvvHint', { n: cvvLength(this.brand) }, this.locale) : ''
    const described = [hint ? `${s.id}-hint` : '', error ? `${s.id}-error` : ''].filter(Boolean).join(' ')
    const brand = this.brand
    // Empty until the lists have loaded (just after the first render).
    const lists = this.lists
    const list: readonly Choice[] | null = !isList(s.id)
      ? null
      : !lists
        ? []
        : s.id === 'country'
          ? lists.countries(this.locale)
          : lists.callingCodes(this.locale)
    const value = this.values[s.id] ?? ''
    const control = list
      ? html`<select
          id=${s.id}
          part="input"
          name=${field.wire}
          autocomplete=${field.input.autocomplete}
          ?required=${s.required}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${described || nothing}
          @input=${(e: Event) => this.onInput(s, e)}
          @change=${(e: Event) => this.onInput(s, e)}
          @blur=${() => this.onBlur(s)}
        >
          <option value="" ?selected=${value === ''}>${this.messages.choose}</option>
          ${list.map((c) => html`<option value=${c.value} ?selected=${c.value === value}>${c.label}</option>`)}
        </select>`
      : html`<input
          id=${s.id}
          part="input"
          name=${s.id === 'expiry' ? 'cc-exp' : field.wire}
          .value=${value}
          autocomplete=${s.id === 'expiry' ? 'cc-exp' : field.input.autocomplete}
          inputmode=${field.input.inputmode ?? 'text'}
          dir=${LTR_INPUTS.includes(s.id) ? 'ltr' : nothing}
          ?required=${s.required}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${described || nothing}
          maxlength=${maxTyped(s.id)}
          spellcheck="false"
          @input=${(e: Event) => this.onInput(s, e)}
          @compositionend=${(e: Event) => this.onInput(s, e)}
          @blur=${() => this.onBlur(s)}
        />`
    return html`<div class="field" part="field">
      <label for=${s.id}>${labelOf(s, this.messages, this.locale)}</label>
      <div class="below">
        <div class="control">
          ${control}
          ${isCard && brand ? html`<span class="brand" part="brand" role="img" aria-label=${BRAND_NAMES[brand]}><svg viewBox="0 0 32 20" width="32" height="20" aria-hidden="true">${brandIcon(brand)}</svg></span>` : nothing}
        </div>
        ${hint ? html`<p class="hint" id="${s.id}-hint">${hint}</p>` : nothing}
        ${error ? html`<p class="error" part="error" id="${s.id}-error">${this.messages[errorKey(s.id, error)]}</p>` : nothing}
      </div>
    </div>`
  }

  protected override render(): TemplateResult {
    const specs = this.specs
    const pick = (ids: readonly InputSpec[]) => specs.filter((s) => ids.includes(s))
    const card = pick(CARD)
    const customer = pick(CUSTOMER)
    const shipping = pick(SHIPPING)
    return html`<form part="form" novalidate @submit=${this.onSubmit}>
      ${this.mode === 'saved-card' ? this.input(SAVED[0] as InputSpec) : nothing}
      ${card.length ? html`${this.input(CARD[0] as InputSpec)}<div class="row">${card.slice(1).map((s) => this.input(s))}</div>` : nothing}
      ${customer.length ? html`<div class="row">${customer.slice(0, 2).map((s) => this.input(s))}</div>${customer.slice(2).map((s) => this.input(s))}` : nothing}
      ${this.mode === 'card' ? html`<div class="row phone">${PHONE.map((s) => this.input(s))}</div>` : nothing}
      ${
        shipping.length
          ? html`<fieldset>
            <legend>${shippingLegend(this.messages, this.locale)}</legend>
            ${shipping.map((s) => this.input(s))}
          </fieldset>`
          : nothing
      }
      <button type="submit" part="submit" ?disabled=${this.disabled} aria-disabled=${this.disabled ? 'true' : 'false'}>${this.busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${this.submitLabel}</button>
    </form>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-card-form': PayCardForm
  }
}

if (!customElements.get('pay-card-form')) customElements.define('pay-card-form', PayCardForm)
