/**
 * @module
 * `<pay-qr-wallet>`: the QR wallet flow. Step 1 asks for the wallet id (and name and email unless
 * the merchant prefilled them); step 2 shows the merchant wallet id as a QR code and as copyable
 * text, with the time left, and a confirm button. Loaded only when a QR session is shown, with its
 * QR encoder (qrcode-generator, MIT).
 */
import { html, LitElement, nothing, svg, type TemplateResult } from 'lit'
import qrcode from 'qrcode-generator'
import { errorKey } from '../../shared/card-inputs.ts'
import type { FieldError } from '../../shared/errors.ts'
import { focusDropped } from '../card-form/editing.ts'
import { checkEmail, checkName, checkWalletId, checkWith } from '../../shared/shopper-formats.ts'
import type { CheckoutView } from '../api-client.ts'
import { en, format, type Messages } from '../i18n/index.ts'
import { formStyles, tokens } from '../theme.ts'
import { css } from 'lit'

/** An SVG path of the dark modules: one element, no inline styles (strict CSP). */
function qrPath(text: string): { size: number; d: string } {
  const qr = qrcode(0, 'M')
  qr.addData(text)
  qr.make()
  const n = qr.getModuleCount()
  let d = ''
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`
  return { size: n + 8, d }
}

/**
 * @summary The QR wallet steps.
 * @csspart qr - The QR code.
 * @csspart wallet-id - The merchant wallet id text.
 */
export class PayQrWallet extends LitElement {
  static override styles = [
    tokens,
    formStyles,
    css`
      :host {
        display: block;
      }
      svg {
        width: 12rem;
        height: 12rem;
        background: #fff;
        justify-self: center;
      }
      .id {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        flex-wrap: wrap;
      }
      code {
        font-size: 1.1rem;
        word-break: break-all;
      }
      #scan:focus {
        outline: none;
      }
      /* Read, not shown: the instructions are on the page beside it. */
      .sr {
        position: absolute;
        width: 1px;
        height: 1px;
        overflow: hidden;
        clip-path: inset(50%);
        white-space: nowrap;
      }
    `,
  ]
  static override properties = {
    messages: { attribute: false },
    view: { attribute: false },
    busy: { type: Boolean },
    now: { state: true },
    copied: { state: true },
    errors: { state: true },
    told: { state: true },
  }

  declare messages: Messages
  declare view: CheckoutView | null
  declare busy: boolean
  declare private now: number
  declare private copied: boolean
  declare private errors: Record<string, string>
  /** The step last rendered (`updated`). */
  private shown: 'wallet' | 'code' | undefined
  /** The code's instructions were said in the live region (the focus could not go to them). */
  declare private told: boolean

  constructor() {
    super()
    this.messages = en
    this.view = null
    this.busy = false
    this.now = Date.now()
    this.copied = false
    this.errors = {}
    this.told = false
  }
  private timer: ReturnType<typeof setInterval> | undefined

  override connectedCallback(): void {
    super.connectedCallback()
    this.timer = setInterval(() => (this.now = Date.now()), 1000)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearInterval(this.timer)
  }

  /** Submits the current step. */
  submit(): void {
    this.shadowRoot?.querySelector('form')?.requestSubmit()
  }

  /**
   * Shows the inputs the Worker refused (a card number as the wallet id, which only it checks) as
   * the form's own checks are, and moves focus to the first.
   * @internal
   */
  showRefused(fields: readonly FieldError[]): void {
    const input = (name: string) => this.shadowRoot?.querySelector<HTMLInputElement>(`[name="${name}"]`)
    const refused = fields.filter((f) => input(f.field))
    if (!refused.length) return
    const errors = { ...this.errors }
    for (const f of refused) errors[f.field] ??= this.messages[errorKey(f.field.replace('customer.', ''), f.code)]
    this.errors = errors
    void this.updateComplete.then(() => input(refused[0]?.field ?? '')?.focus())
  }

  private step(step: 'verify' | 'complete', fields?: Record<string, unknown>): void {
    this.dispatchEvent(new CustomEvent('qr-step', { detail: { step, fields } }))
  }

  private onVerify(e: Event): void {
    e.preventDefault()
    const data = new FormData(e.target as HTMLFormElement)
    const fields: Record<string, string> = {}
    const errors: Record<string, string> = {}
    const rules: [string, (v: string) => string | null][] = [
      ['walletId', checkWalletId],
      ['customer.givenName', checkName],
      ['customer.surname', checkName],
      ['customer.email', checkEmail],
    ]
    for (const [name, rule] of rules) {
      if (!data.has(name)) continue
      const value = String(data.get(name) ?? '').trim()
      const code = checkWith(rule as Parameters<typeof checkWith>[0], value)
      // The table's field (`customer.email` is `email`): its message, as the card forms say it.
      if (code) errors[name] = this.messages[errorKey(name.replace('customer.', ''), code)]
      else fields[name] = value
    }
    this.errors = errors
    const first = Object.keys(errors)[0]
    if (first) return void this.shadowRoot?.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus()
    const customer = {
      givenName: fields['customer.givenName'],
      surname: fields['customer.surname'],
      email: fields['customer.email'],
    }
    this.step('verify', {
      walletId: fields.walletId,
      ...(Object.values(customer).some(Boolean)
        ? { customer: Object.fromEntries(Object.entries(customer).filter(([, v]) => v)) }
        : {}),
    })
  }

  private async copy(id: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(id)
      this.copied = true
    } catch {
      // Clipboard refused (permissions): the id stays selectable text.
    }
  }

  private field(name: string, label: string, autocomplete: string, inputmode = 'text'): TemplateResult {
    const error = this.errors[name]
    const id = name.replace('.', '-')
    return html`<div class="field">
      <label for=${id}>${label}</label>
      <input id=${id} name=${name} autocomplete=${autocomplete} inputmode=${inputmode} required aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? `${id}-error` : nothing} />
      ${error ? html`<p class="error" id="${id}-error">${error}</p>` : nothing}
    </div>`
  }

  /**
   * One step replaced by the other (the code after the wallet's details; the details again after a
   * decline or an expired code): the new one takes the focus the shopper lost with the old one's
   * button (`focusDropped` says when it may), so a keyboard shopper is in it and a screen reader
   * reads the code's instructions or the wallet id's label. Where the focus may not be taken (a
   * frame), the live region says the instructions instead. Never on the first render, nor from
   * where the shopper went.
   */
  protected override updated(): void {
    const root = this.shadowRoot
    const step = root?.querySelector('[part=qr]') ? 'code' : 'wallet'
    const before = this.shown
    this.shown = step
    if (!before || before === step) return
    if (focusDropped()) root?.querySelector<HTMLElement>(step === 'code' ? '#scan' : '#walletId')?.focus()
    else this.told = step === 'code'
  }

  /** A live region that stays from one step to the other, so what it says when it changes is read. */
  protected override render(): TemplateResult {
    const qr = this.view?.qr
    // A code whose time is up can no longer be paid: the wallet's details again, for a new one.
    const expired = !!qr && Date.parse(qr.expiresAt) <= this.now
    const code = !!qr && !expired
    const said = expired
      ? html`<p>${this.messages.qrExpired}</p>`
      : code && this.told
        ? html`<p class="sr">${this.messages.scanQr}</p>`
        : nothing
    return html`<div role="status">${said}</div>
      ${code ? this.codeStep(qr) : this.walletStep()}`
  }

  private walletStep(): TemplateResult {
    const prefill: Partial<Record<string, string | undefined>> = this.view?.customer ?? {}
    return html`<form novalidate @submit=${this.onVerify}>
        ${this.field('walletId', this.messages.walletId, 'off')}
        ${prefill.givenName ? nothing : this.field('customer.givenName', this.messages.givenName, 'given-name')}
        ${prefill.surname ? nothing : this.field('customer.surname', this.messages.surname, 'family-name')}
        ${prefill.email ? nothing : this.field('customer.email', this.messages.email, 'email', 'email')}
        <button type="submit" ?disabled=${this.busy}>${this.messages.continue}</button>
      </form>`
  }

  private codeStep(qr: NonNullable<CheckoutView['qr']>): TemplateResult {
    const left = Math.max(0, Math.floor((Date.parse(qr.expiresAt) - this.now) / 1000))
    const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
    const { size, d } = qrPath(qr.merchantWalletId)
    // The image is named by the instructions (a code to scan), not by the wallet id's label beside it.
    return html`<form novalidate @submit=${(e: Event) => (e.preventDefault(), this.step('complete'))}>
      <p id="scan" tabindex="-1">${this.messages.scanQr}</p>
      ${svg`<svg part="qr" viewBox="0 0 ${size} ${size}" role="img" aria-labelledby="scan"><path d=${d} fill="#000"/></svg>`}
      <div class="id">
        <span>${this.messages.merchantWalletId}</span>
        <code part="wallet-id" dir="ltr">${qr.merchantWalletId}</code>
        <button type="button" class="secondary" @click=${() => this.copy(qr.merchantWalletId)}>${this.copied ? this.messages.copied : this.messages.copy}</button>
      </div>
      <p class="hint">${format(this.messages, 'timeLeft', { time })}</p>
      <button type="submit" ?disabled=${this.busy || left === 0}>${this.messages.confirmQr}</button>
    </form>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-qr-wallet': PayQrWallet
  }
}

if (!customElements.get('pay-qr-wallet')) customElements.define('pay-qr-wallet', PayQrWallet)
