/**
 * @module
 * `<pay-checkout>`: the element merchants put on their page. It loads the checkout session from
 * the Worker and shows the flow the session names: card, saved card, QR wallet or invoice.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit'
import type { CardBrand } from '../../shared/card.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import { ApiClient, type ApiError, type CheckoutView, type PayResult } from '../api-client.ts'
import '../card-form/card-form.ts'
import type { PayCardForm } from '../card-form/card-form.ts'
import { CHANNEL, isSafeCssValue, parseFrameMessage, THEME_PROPERTIES, type ParentToFrame } from '../card-frame/messages.ts'
import { PayActionEvent, PayChangeEvent, PayDeclinedEvent, PayErrorEvent, PayPendingEvent, PayReadyEvent, PaySubmitEvent, PaySuccessEvent, type PayResultDetail } from '../events.ts'
import { en, format, formatMoney, loadMessages, resolveLocale, type MessageKey, type Messages } from '../i18n/index.ts'
import { payCheckoutStyles } from './pay-checkout.styles.ts'

export type CheckoutState = 'loading' | 'ready' | 'submitting' | 'action_required' | 'succeeded' | 'declined' | 'pending' | 'unknown' | 'expired' | 'error'

const STATUS_MESSAGE: Partial<Record<CheckoutState, MessageKey>> = {
  loading: 'loading',
  submitting: 'processing',
  action_required: 'actionRequired',
  succeeded: 'succeeded',
  declined: 'declined',
  pending: 'pending',
  unknown: 'unknown',
  expired: 'expired',
  error: 'error',
}

/** How often, and how long, a pending or unknown payment is checked again. */
const POLL_MS = 2_000
const POLL_MAX = 60

/**
 * @summary A checkout for one payment: card, saved card, QR wallet or invoice.
 *
 * @fires pay-ready - The session is loaded and the form can be used. `detail: { flow, status }`
 * @fires pay-change - Validity or card brand changed. `detail: { valid, brand }` (never the number)
 * @fires pay-submit - A payment was sent. `detail: { flow }`
 * @fires pay-action - 3-D Secure is needed; cancel it to redirect yourself. `detail: { redirect }`
 * @fires pay-success - Paid. `detail: { status, paymentId, brand, last4 }`
 * @fires pay-pending - Accepted, the result comes later (or is being confirmed).
 * @fires pay-declined - Declined; retry is allowed while `detail.attemptsRemaining > 0`.
 * @fires pay-error - Could not pay. `detail: { code, message, fields }` (field names, not values)
 *
 * @csspart container - The outer box.
 * @csspart amount - The amount heading.
 * @csspart status - The status message (a polite live region).
 * @csspart form - The card form.
 * @csspart field - Each label, input and error of the card form.
 * @csspart input - Each input of the card form.
 * @csspart error - Each field error.
 * @csspart brand - The detected card brand.
 * @csspart submit - The pay button.
 * @csspart retry - The retry button after an error.
 * @csspart qr - The QR code (QR flow).
 * @csspart wallet-id - The merchant wallet id text (QR flow).
 * @csspart details - The invoice details (invoice flow).
 * @csspart pay-link - The link to pay the invoice (invoice flow).
 * @csspart frame - The card frame (the default `isolation="frame"`). Parts inside it cannot be
 *   reached from the page; the `--pay-*` custom properties and the theme are passed in.
 *
 * @cssproperty [--pay-accent=#0b57d0] - Buttons, focus and links.
 * @cssproperty [--pay-accent-text=#ffffff] - Text on accent.
 * @cssproperty [--pay-bg=#ffffff] - Background of the box and inputs.
 * @cssproperty [--pay-text=#1b1b1f] - Text.
 * @cssproperty [--pay-muted=#4a4a52] - Hints.
 * @cssproperty [--pay-border=#767680] - Input borders.
 * @cssproperty [--pay-error=#b3261e] - Errors.
 * @cssproperty [--pay-success=#146c2e] - Success.
 * @cssproperty [--pay-radius=8px] - Corner radius.
 * @cssproperty [--pay-font=system-ui] - Font family.
 * @cssproperty [--pay-spacing=0.75rem] - Gap between fields.
 * @cssproperty [--pay-focus=#0b57d0] - Focus ring.
 */
export class PayCheckout extends LitElement {
  static override styles = payCheckoutStyles
  static override properties = {
    endpoint: {},
    session: {},
    clientSecret: { attribute: 'client-secret' },
    locale: {},
    theme: { reflect: true },
    collectShipping: { type: Boolean, attribute: 'collect-shipping' },
    isolation: {},
    state: { state: true },
    frameHeight: { state: true },
    view: { state: true },
    messages: { state: true },
    notice: { state: true },
    qrLoaded: { state: true },
    invoiceLoaded: { state: true },
  }

  /** The Worker's origin, e.g. `https://pay.example.workers.dev`. */
  declare endpoint: string
  /** The checkout session id (`cs_...`), from your server. */
  declare session: string
  /** The session's client secret, from your server. Never logged or stored by the element. */
  declare clientSecret: string
  /** A BCP 47 tag (`de-AT`); defaults to the browser's languages. */
  declare locale: string
  /** `light`, `dark` or `auto` (follows the system). */
  declare theme: 'light' | 'dark' | 'auto'
  /** Ask for a shipping address. */
  declare collectShipping: boolean
  /**
   * `frame` (default: the form in a frame on the Worker's origin, so no script on this page can
   * read card data) or `inline` (the form in this page's DOM).
   */
  declare isolation: 'inline' | 'frame'
  private declare frameHeight: number

  private declare state: CheckoutState
  private declare view: CheckoutView | null
  private declare messages: Messages
  private declare notice: string
  private declare qrLoaded: boolean
  private declare invoiceLoaded: boolean

  constructor() {
    super()
    this.endpoint = ''
    this.session = ''
    this.clientSecret = ''
    this.locale = ''
    this.theme = 'light'
    this.collectShipping = false
    this.isolation = 'frame'
    this.frameHeight = 320
    this.state = 'loading'
    this.view = null
    this.messages = en
    this.notice = ''
    this.qrLoaded = false
    this.invoiceLoaded = false
  }
  private api: ApiClient | null = null
  private inFlight = false
  private attemptKey: string | null = null
  private pollTimer: ReturnType<typeof setTimeout> | undefined
  private polls = 0

  /** The language in use, after fallback. */
  get resolvedLocale(): string {
    return resolveLocale(this.locale ? [this.locale] : typeof navigator === 'undefined' ? [] : navigator.languages)
  }

  override connectedCallback(): void {
    super.connectedCallback()
    window.addEventListener('message', this.onFrameMessage)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearTimeout(this.pollTimer)
    window.removeEventListener('message', this.onFrameMessage)
  }

  private get frame(): HTMLIFrameElement | null {
    return this.shadowRoot?.querySelector('iframe') ?? null
  }

  private get endpointOrigin(): string {
    try {
      return new URL(this.endpoint).origin
    } catch {
      return ''
    }
  }

  private toFrame(message: ParentToFrame extends infer M ? (M extends { channel: string } ? Omit<M, 'channel'> : never) : never): void {
    this.frame?.contentWindow?.postMessage({ channel: CHANNEL, ...message }, this.endpointOrigin)
  }

  /** The page's `--pay-*` values, for the frame (styles cannot cross into another origin). */
  private themeProperties(): Record<string, string> {
    const computed = getComputedStyle(this)
    const out: Record<string, string> = {}
    for (const name of THEME_PROPERTIES) {
      const value = computed.getPropertyValue(name).trim()
      if (value && isSafeCssValue(value)) out[name] = value
    }
    return out
  }

  /** Messages from the card frame: exact origin, our frame's window, exact shapes only. */
  private onFrameMessage = (e: MessageEvent): void => {
    if (this.isolation !== 'frame' || !this.frame || e.source !== this.frame.contentWindow || e.origin !== this.endpointOrigin) return
    const m = parseFrameMessage(e.data)
    if (!m) return
    switch (m.type) {
      case 'loaded':
        this.toFrame({ type: 'init', clientSecret: this.clientSecret, locale: this.resolvedLocale, theme: this.theme, collectShipping: this.collectShipping, style: this.themeProperties() })
        break
      case 'ready':
        this.state = 'ready'
        this.dispatchEvent(new PayReadyEvent({ flow: m.flow as PayReadyEvent['detail']['flow'], status: m.status }))
        break
      case 'change':
        this.dispatchEvent(new PayChangeEvent({ valid: m.valid, brand: (m.brand as CardBrand | null) ?? null }))
        break
      case 'resize':
        this.frameHeight = Math.min(m.height, 4000)
        break
      case 'result': {
        const detail = this.detail(m.status, m.paymentId, { ...(m.brand ? { brand: m.brand as CardBrand } : {}), ...(m.last4 ? { last4: m.last4 } : {}) })
        if (m.status === 'succeeded') this.dispatchEvent(new PaySuccessEvent(detail))
        else if (m.status === 'declined') this.dispatchEvent(new PayDeclinedEvent({ ...detail, attemptsRemaining: m.attemptsRemaining ?? 0 }))
        else this.dispatchEvent(new PayPendingEvent(detail))
        break
      }
      case 'action':
        this.redirect(m.redirect)
        break
      case 'error':
        this.dispatchEvent(new PayErrorEvent({ code: m.code, message: m.message, fields: m.fields as PayErrorEvent['detail']['fields'] }))
        break
    }
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('endpoint') || changed.has('session') || changed.has('clientSecret')) && this.endpoint && this.session && this.clientSecret && this.isolation !== 'frame') {
      void this.load()
    }
    if (changed.has('locale')) void loadMessages(this.resolvedLocale).then((m) => (this.messages = m))
  }

  /** Loads (or reloads) the session and shows its flow. */
  private async load(): Promise<void> {
    this.state = 'loading'
    this.api = new ApiClient(this.endpoint, this.session, this.clientSecret)
    const [messages, view] = await Promise.all([loadMessages(this.resolvedLocale), this.api.view()])
    this.messages = messages
    if (!view.ok) return this.fail(view.error)
    this.applyView(view.value)
    if (view.value.flow === 'qr') await import('../qr-wallet/qr-wallet.ts').then(() => (this.qrLoaded = true))
    if (view.value.flow === 'invoice') await import('../invoice-view/invoice-view.ts').then(() => (this.invoiceLoaded = true))
    await this.updateComplete
    this.dispatchEvent(new PayReadyEvent({ flow: view.value.flow, status: view.value.status }))
  }

  /** Maps the session's status to what the shopper sees; resumes after a 3-D Secure return. */
  private applyView(view: CheckoutView): void {
    this.view = view
    switch (view.status) {
      case 'open':
        this.state = 'ready'
        break
      case 'declined':
        this.state = view.attemptsRemaining > 0 ? 'ready' : 'declined'
        break
      case 'failed':
        // No attempt left: shown as the final decline.
        this.state = 'declined'
        break
      case 'processing':
      case 'unknown':
        this.state = 'unknown'
        this.poll()
        break
      case 'pending':
        this.state = 'pending'
        this.poll()
        break
      case 'succeeded':
        this.state = 'succeeded'
        this.dispatchEvent(new PaySuccessEvent(this.detail('succeeded', view.result?.paymentId ?? null, view.result?.card)))
        break
      case 'action_required':
        this.state = 'action_required'
        this.poll()
        break
      default:
        this.state = view.status === 'expired' ? 'expired' : 'error'
    }
  }

  private detail(status: string, paymentId: string | null | undefined, card?: { brand?: CardBrand; last4?: string } | null): PayResultDetail {
    return { status, paymentId: paymentId ?? null, brand: card?.brand ?? null, last4: card?.last4 ?? null }
  }

  private fail(error: ApiError): void {
    this.state = error.code === 'session_expired' ? 'expired' : error.code === 'session_completed' ? 'succeeded' : 'error'
    this.notice = ''
    this.inFlight = false
    this.dispatchEvent(new PayErrorEvent({ code: error.code, message: error.message, fields: error.fields ?? [] }))
  }

  /** Checks a pending or unknown payment again until it settles. */
  private poll(): void {
    clearTimeout(this.pollTimer)
    if (this.polls >= POLL_MAX || !this.api) return
    this.pollTimer = setTimeout(async () => {
      this.polls += 1
      const view = await this.api?.view()
      if (!view?.ok) return this.poll()
      if (view.value.status === this.view?.status) return this.poll()
      this.applyView(view.value)
      if (view.value.status === 'declined' || view.value.status === 'failed') this.dispatchEvent(new PayDeclinedEvent({ ...this.detail('declined', view.value.result?.paymentId, view.value.result?.card), attemptsRemaining: view.value.attemptsRemaining }))
    }, POLL_MS)
  }

  /** Submits the current flow's form, as the pay button does. */
  submit(): void {
    if (this.isolation === 'frame') return this.toFrame({ type: 'submit' })
    const flow = this.view?.flow
    if (flow === 'card' || flow === 'saved-card') this.cardForm?.shadowRoot?.querySelector('form')?.requestSubmit()
    else this.shadowRoot?.querySelector<HTMLElement & { submit?: () => void }>('pay-qr-wallet, pay-invoice-view')?.submit?.()
  }

  /** Clears the form and any error, and shows the form again if the session can still be paid. */
  reset(): void {
    this.cardForm?.clear()
    this.notice = ''
    this.attemptKey = null
    if (this.state === 'error' || this.state === 'declined') void this.load()
  }

  private get cardForm(): PayCardForm | null {
    return this.shadowRoot?.querySelector('pay-card-form') ?? null
  }

  /** One Idempotency-Key per attempt; a request that never got an answer keeps its key. */
  private async pay(fields: Record<string, unknown>): Promise<void> {
    if (this.inFlight || !this.api || !this.view) return
    this.inFlight = true
    this.state = 'submitting'
    this.notice = ''
    this.attemptKey ??= crypto.randomUUID()
    this.dispatchEvent(new PaySubmitEvent({ flow: this.view.flow }))
    const result = await this.api.pay(fields, this.attemptKey)
    this.inFlight = false
    if (!result.ok && result.error.status === 0) {
      this.state = 'ready'
      this.notice = this.messages.error
      return this.fail(result.error)
    }
    this.attemptKey = null
    if (!result.ok) {
      this.state = result.error.code === 'session_expired' ? 'expired' : result.error.code === 'session_completed' ? 'succeeded' : 'ready'
      this.notice = result.error.code === 'invalid_request' || result.error.code === 'too_many_attempts' ? this.messages.error : ''
      this.dispatchEvent(new PayErrorEvent({ code: result.error.code, message: result.error.message, fields: result.error.fields ?? [] }))
      if (result.error.code === 'too_many_attempts') this.state = 'declined'
      return
    }
    this.onResult(result.value)
  }

  private onResult(r: PayResult): void {
    const detail = this.detail(r.status, r.paymentId, r.card)
    this.view = this.view ? { ...this.view, attemptsRemaining: r.attemptsRemaining } : this.view
    switch (r.status) {
      case 'succeeded':
        this.state = 'succeeded'
        this.dispatchEvent(new PaySuccessEvent(detail))
        break
      case 'declined':
        this.state = r.attemptsRemaining > 0 ? 'ready' : 'declined'
        this.notice = r.attemptsRemaining > 0 ? `${this.messages.declined} ${format(this.messages, 'retry', { n: r.attemptsRemaining })}` : ''
        this.cardForm?.clear('cvv')
        this.dispatchEvent(new PayDeclinedEvent({ ...detail, attemptsRemaining: r.attemptsRemaining }))
        break
      case 'pending':
      case 'unknown':
        this.state = r.status
        this.dispatchEvent(new PayPendingEvent(detail))
        this.poll()
        break
      case 'action_required':
        this.state = 'action_required'
        if (r.redirect) this.redirect(r.redirect)
        break
    }
  }

  /**
   * 3-D Secure: the merchant may take over; otherwise the top window goes to the bank. Checked
   * again here, whoever handed it over (the Worker, or the card frame by message), with the rule
   * the Worker uses: a `javascript:` or `data:` target would run on this page (SECURITY.md R28).
   * A redirect that fails it is never followed nor announced: the payment is being confirmed.
   */
  private redirect(given: { url: string; method?: string | undefined; parameters: readonly { name: string; value: string }[] }): void {
    const redirect = safeRedirect(given)
    if (!redirect) {
      this.state = 'unknown'
      this.dispatchEvent(new PayPendingEvent(this.detail('unknown', null)))
      this.poll()
      return
    }
    const event = new PayActionEvent({ redirect })
    this.dispatchEvent(event)
    if (event.defaultPrevented) return
    const form = document.createElement('form')
    form.method = redirect.method === 'GET' ? 'get' : 'post'
    form.action = redirect.url
    form.target = '_top'
    form.hidden = true
    for (const p of redirect.parameters) {
      const input = document.createElement('input')
      input.type = 'hidden'
      input.name = p.name
      input.value = p.value
      form.append(input)
    }
    document.body.append(form)
    form.submit()
  }

  private async qrStep(e: CustomEvent<{ step: 'verify' | 'complete'; fields?: Record<string, unknown> }>): Promise<void> {
    if (!this.api || this.inFlight) return
    this.inFlight = true
    this.notice = ''
    if (e.detail.step === 'verify') {
      const r = await this.api.qrVerify(e.detail.fields ?? {})
      this.inFlight = false
      if (!r.ok) return this.fail(r.error)
      if (r.value.status === 'declined') {
        this.notice = this.messages.declined
        return
      }
      const view = await this.api.view()
      if (view.ok) this.view = view.value
      return
    }
    this.state = 'submitting'
    this.attemptKey ??= crypto.randomUUID()
    const r = await this.api.qrComplete(this.attemptKey)
    this.inFlight = false
    this.attemptKey = null
    if (!r.ok) return this.fail(r.error)
    this.onResult(r.value)
  }

  private async regenerate(): Promise<void> {
    if (!this.api || this.inFlight) return
    this.inFlight = true
    const r = await this.api.regenerateInvoice()
    this.inFlight = false
    if (!r.ok) return this.fail(r.error)
    const view = await this.api.view()
    if (view.ok) this.view = view.value
    this.notice = this.messages.invoiceReady
  }

  private renderFlow(view: CheckoutView): TemplateResult | typeof nothing {
    const amount = formatMoney(view.amount, view.currency, this.resolvedLocale)
    if (view.flow === 'card' || view.flow === 'saved-card') {
      return html`${view.flow === 'saved-card' && view.savedCard ? html`<p class="saved">${format(this.messages, 'savedCard', { last4: view.savedCard.last4 })}</p>` : nothing}
        <pay-card-form
          exportparts="form, field, input, error, brand, submit"
          .mode=${view.flow}
          .messages=${this.messages}
          .prefill=${view.customer}
          .savedBrand=${view.savedCard?.brand ?? null}
          .collectShipping=${this.collectShipping}
          .submitLabel=${format(this.messages, 'pay', { amount })}
          .disabled=${this.state === 'submitting'}
          @card-form-submit=${(e: CustomEvent<Record<string, string>>) => this.pay(e.detail)}
        ></pay-card-form>`
    }
    if (view.flow === 'qr' && this.qrLoaded) {
      return html`<pay-qr-wallet
        exportparts="qr, wallet-id"
        .messages=${this.messages}
        .view=${view}
        .busy=${this.state === 'submitting'}
        @qr-step=${(e: CustomEvent<{ step: 'verify' | 'complete'; fields?: Record<string, unknown> }>) => this.qrStep(e)}
      ></pay-qr-wallet>`
    }
    if (view.flow === 'invoice' && this.invoiceLoaded) {
      return html`<pay-invoice-view exportparts="details, pay-link" .messages=${this.messages} .view=${view} .locale=${this.resolvedLocale} @invoice-regenerate=${() => this.regenerate()}></pay-invoice-view>`
    }
    return nothing
  }

  protected override render(): TemplateResult {
    if (this.isolation === 'frame') {
      // The client secret goes in by message once the frame says it is loaded, never in the URL.
      return html`<iframe
        part="frame"
        title=${this.messages.cardNumber}
        src=${`${this.endpointOrigin}/frame/${encodeURIComponent(this.session)}`}
        height=${this.frameHeight}
        allow="payment"
      ></iframe>`
    }
    const view = this.view
    const key = STATUS_MESSAGE[this.state]
    const status = this.notice || (key ? this.messages[key] : '')
    const showForm = view && (this.state === 'ready' || this.state === 'submitting' || (view.flow === 'qr' && this.state !== 'succeeded' && this.state !== 'declined' && this.state !== 'expired'))
    return html`<div class="container" part="container" lang=${this.resolvedLocale} aria-busy=${this.state === 'loading' || this.state === 'submitting' ? 'true' : 'false'}>
      ${view ? html`<p class="amount" part="amount">${formatMoney(view.amount, view.currency, this.resolvedLocale)}</p>` : nothing}
      <p class="status ${this.state}" part="status" role="status" aria-live="polite">${status}</p>
      ${showForm && view ? this.renderFlow(view) : nothing}
      ${this.state === 'error' ? html`<button part="retry" class="secondary" @click=${() => this.reset()}>${this.messages.continue}</button>` : nothing}
    </div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-checkout': PayCheckout
  }
}
