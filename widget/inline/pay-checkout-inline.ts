/**
 * @module
 * `<pay-checkout-inline>`: the checkout itself, rendered in this document. `<pay-checkout
 * isolation="inline">` puts it in the merchant's page; the card frame puts it in the frame's page
 * on the Worker's origin. It renders the card form at once and loads the session beside it: the
 * amount and the pay button fill in when the session answers, another flow replaces the form.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit'
import type { CardBrand } from '../../shared/card.ts'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import { ApiClient, type ApiError, type CheckoutView, type PayResult } from '../api-client.ts'
import '../card-form/card-form.ts'
import type { PayCardForm } from '../card-form/card-form.ts'
import { PayChangeEvent, PayDeclinedEvent, PayErrorEvent, PayPendingEvent, PayReadyEvent, PaySubmitEvent, PaySuccessEvent, type PayResultDetail } from '../events.ts'
import { direction, en, format, formatMoney, isolateLtr, loadMessages, resolveLocale, type MessageKey, type Messages } from '../i18n/index.ts'
import { followRedirect, startingPage, unanswered } from '../navigate.ts'
import { payCheckoutStyles } from './pay-checkout-inline.styles.ts'

/** For the element's own messages when the frame cannot be shown. */
export { direction, loadMessages, resolveLocale }
/** For the QR and invoice steps (./other-methods.ts): Lit as this chunk holds it. */
export { html, nothing }

/**
 * Loads the method picker, for sessions with several methods (the element in frame mode asks
 * through here: one chunk graph, so what the picker shares with this checkout stays in its chunk).
 */
export const loadPicker = (): Promise<unknown> => import('../method-picker/method-picker.ts')

/** The parts of the checkout, exported through the element that holds it (`<pay-checkout>`). */
export const PARTS = 'container, amount, badge, status, form, field, input, error, brand, submit, retry, qr, wallet-id, details, pay-link, methods, method, method-note'

/** The QR wallet's and the invoice's steps in this checkout (./other-methods.ts). */
const loadOthers = () => import('./other-methods.ts')

export type CheckoutState = 'loading' | 'ready' | 'submitting' | 'action_required' | 'succeeded' | 'declined' | 'pending' | 'unknown' | 'expired' | 'error' | 'blocked'

const STATUS_MESSAGE: Partial<Record<CheckoutState, MessageKey>> = {
  submitting: 'processing',
  action_required: 'actionRequired',
  succeeded: 'succeeded',
  declined: 'declinedFinal',
  pending: 'pending',
  unknown: 'unknown',
  expired: 'expired',
  error: 'error',
}

/**
 * What the shopper reads for an error the Worker answers, and whether the form stays usable.
 * Every message says what to do next; none says why a card was refused.
 */
const ERROR_MESSAGE: Partial<Record<string, MessageKey>> = {
  invalid_request: 'err_check_fields',
  gateway_error: 'error',
  gateway_rejected: 'err_gateway',
  gateway_auth_failed: 'err_gateway',
  gateway_unavailable: 'err_gateway_unavailable',
  duplicate_order: 'err_duplicate_order',
  invoice_mismatch: 'err_contact_shop',
  forbidden: 'err_contact_shop',
  rate_limited: 'err_rate_limited',
  payment_in_progress: 'err_in_progress',
  method_in_progress: 'err_method_in_progress',
  qr_withdrawn: 'qrWithdrawn',
  idempotency_in_progress: 'err_in_progress',
  internal_error: 'err_gateway',
  too_many_attempts: 'err_velocity',
  payments_paused: 'err_rate_limited',
  network_error: 'networkError',
  origin_not_allowed: 'originNotAllowed',
}

/** How often, and how long, a pending or unknown payment is checked again. */
const POLL_MS = 2_000
const POLL_MAX = 60

export class PayCheckoutInline extends LitElement {
  static override styles = payCheckoutStyles
  static override properties = {
    endpoint: {},
    session: {},
    clientSecret: { attribute: 'client-secret' },
    locale: {},
    theme: { reflect: true },
    collectShipping: { type: Boolean, attribute: 'collect-shipping' },
    state: { state: true },
    view: { state: true },
    messages: { state: true },
    notice: { state: true },
    qrLoaded: { state: true },
    invoiceLoaded: { state: true },
    others: { state: true },
    pickerLoaded: { state: true },
    method: {},
    picker: { type: Boolean },
    only: {},
  }

  declare endpoint: string
  declare session: string
  declare clientSecret: string
  declare locale: string
  declare theme: 'light' | 'dark' | 'auto'
  declare collectShipping: boolean
  // Not private: the QR and invoice steps (./other-methods.ts) use these too (`Checkout` there).
  /** @internal */
  declare state: CheckoutState
  private declare view: CheckoutView | null
  /** @internal */
  declare messages: Messages
  /** @internal */
  declare notice: string
  private declare qrLoaded: boolean
  private declare invoiceLoaded: boolean
  /** The QR and invoice steps, loaded with their components. */
  private declare others: typeof import('./other-methods.ts') | null
  private declare pickerLoaded: boolean
  /** The method the shopper chose (or the host asked for); empty: the session's first one. */
  declare method: CheckoutFlow | ''
  /** Show the method picker when the session offers several methods (not inside the card frame). */
  declare picker: boolean
  /**
   * `card` in the card frame of a session with several methods: only the card methods render here,
   * the others render in the merchant page's element.
   */
  declare only: 'card' | ''
  /**
   * The page that started the payment, sent with it (the result page after 3-D Secure links back
   * to it): undefined for this page's own, as it is when the shopper pays (a single-page app moves);
   * in the card frame, the merchant page's from the host, or '' for none.
   * @internal
   */
  startingPage: string | undefined

  constructor() {
    super()
    this.endpoint = ''
    this.session = ''
    this.clientSecret = ''
    this.locale = ''
    this.theme = 'light'
    this.collectShipping = false
    this.state = 'loading'
    this.view = null
    this.messages = en
    this.notice = ''
    this.qrLoaded = false
    this.invoiceLoaded = false
    this.others = null
    this.pickerLoaded = false
    this.method = ''
    this.picker = true
    this.only = ''
  }
  /** @internal */
  api: ApiClient | null = null
  /** @internal */
  inFlight = false
  /** The session shows more than the card flow: its locale's other messages are loaded too. */
  private moreMessages = false
  /** @internal */
  attemptKey: string | null = null
  private pollTimer: ReturnType<typeof setTimeout> | undefined
  private polls = 0
  /** The flow `pay-ready` last announced, so it is said once per flow. */
  private announced = ''
  /** The view shown came from loading the session (not from a result of paying here). */
  private fresh?: boolean
  private loads = 0

  /** The language in use, after fallback. */
  get resolvedLocale(): string {
    return resolveLocale(this.locale ? [this.locale] : typeof navigator === 'undefined' ? [] : navigator.languages)
  }

  /**
   * The method shown: the one under way or done (the Worker refuses the others), else the chosen
   * one, else the session's first; in the card frame, a card method only.
   */
  private get current(): CheckoutFlow {
    return this.methodIn(this.view)
  }

  private methodIn(view: CheckoutView | null): CheckoutFlow {
    // Before the session answers: the method asked for (the element in frame mode never shows a
    // card form, even while loading), else the card form, which renders at once.
    if (!view) return this.method || 'card'
    const methods = view.methods ?? [view.flow]
    const here = (m: CheckoutFlow | '' | null | undefined): m is CheckoutFlow => !!m && methods.includes(m) && (this.only !== 'card' || methods.length < 2 || m === 'card' || m === 'saved-card')
    return [view.method, this.method, ...methods].find(here) ?? 'card'
  }

  private loaded(m: CheckoutFlow): boolean {
    return (m !== 'qr' || this.qrLoaded) && (m !== 'invoice' || this.invoiceLoaded)
  }

  /** Loads the code of the method shown (QR and invoice are chunks of their own, and so are their steps here). */
  private async loadMethod(view = this.view): Promise<void> {
    const m = this.methodIn(view)
    const others = (): Promise<unknown> => (this.others ? Promise.resolve() : loadOthers().then((o) => (this.others = o)))
    if (m === 'qr' && !this.qrLoaded) await Promise.all([import('../qr-wallet/qr-wallet.ts'), others()]).then(() => (this.qrLoaded = true))
    if (m === 'invoice' && !this.invoiceLoaded) await Promise.all([import('../invoice-view/invoice-view.ts'), others()]).then(() => (this.invoiceLoaded = true))
  }

  /** The shopper picked another method in the picker: show it (its `pay-change` goes on to the page). */
  private pick(e: CustomEvent<{ method?: CheckoutFlow }> | Event): void {
    const method = (e as CustomEvent<{ method?: CheckoutFlow }>).detail?.method
    if (method) this.method = method
  }

  /**
   * Another method is shown once the session is known, whoever chose it (this element's picker, or
   * the element in frame mode setting `method`): its code loads, and the session is read afresh.
   */
  private async showMethod(method: CheckoutFlow | ''): Promise<void> {
    this.notice = ''
    this.attemptKey = null
    await this.loadMethod()
    // Read afresh: a QR code shown before a card payment started is withdrawn by now.
    const view = await this.api?.view()
    if (view?.ok && this.method === method) this.applyView(view.value)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearTimeout(this.pollTimer)
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('endpoint') || changed.has('session') || changed.has('clientSecret')) && this.endpoint && this.session && this.clientSecret) {
      void this.load()
    }
    if (changed.has('locale')) void loadMessages(this.resolvedLocale, this.moreMessages).then((m) => (this.messages = m))
    // Before the session answers, load() shows the method asked for; after, the switch is here.
    if (changed.has('method') && this.view) void this.showMethod(this.method)
    // Whatever changed it (the view, the method), the method shown has its code.
    else if (this.view && !this.loaded(this.current)) void this.loadMethod()
  }

  protected override updated(): void {
    // Ready as soon as the inputs are in the document and accept typing: the card form renders
    // before the session answers (its pay button waits), the other flows once it has. It needs a
    // session to be for (in the card frame, the id is known from the URL before the secret arrives).
    if (!this.session) return
    const flow = this.current
    const formShown = this.renderRoot.querySelector('pay-card-form, pay-qr-wallet, pay-invoice-view')
    if (formShown) {
      // A loaded session with a form to fill in is "ready" by its form: what follows is its result.
      this.fresh = false
      if (this.announced !== flow) {
        this.announced = flow
        void (formShown as LitElement).updateComplete.then(() => this.dispatchEvent(new PayReadyEvent({ flow, status: this.view?.status ?? 'loading' })))
      }
    } else if (this.view && this.fresh) {
      // A session that has nothing to fill in when the element loads it (paid, expired, a payment
      // in flight) is announced once, with that status. A payment made here ends in its result
      // event (pay-success, ...), never in another "ready".
      this.fresh = false
      this.dispatchEvent(new PayReadyEvent({ flow, status: this.view.status }))
    }
  }

  /** Loads (or reloads) the session and shows its flow. */
  private async load(): Promise<void> {
    const n = ++this.loads
    this.state = 'loading'
    this.notice = ''
    this.api = new ApiClient(this.endpoint, this.session, this.clientSecret)
    const [messages, view] = await Promise.all([loadMessages(this.resolvedLocale), this.api.view()])
    if (n !== this.loads) return
    this.messages = messages
    if (!view.ok) return this.fail(await this.classify(view.error))
    // The picker, and then only the chosen method's code, load only for the sessions that need them
    // (before the view is set: the method is shown complete, never an empty place for it).
    const several = (view.value.methods ?? []).length > 1
    // The QR wallet's, the invoice's and the picker's messages are a chunk of their own, loaded
    // only for the sessions that show them.
    this.moreMessages = several || view.value.flow === 'qr' || view.value.flow === 'invoice'
    const more = this.moreMessages ? loadMessages(this.resolvedLocale, true).then((m) => (this.messages = m)) : undefined
    await Promise.all([this.loadMethod(view.value), more, several && this.picker && !this.pickerLoaded ? loadPicker().then(() => (this.pickerLoaded = true)) : undefined])
    // Another method may have been chosen while that code loaded (the element in frame mode sets
    // `method` at any time): its code too, before the view is set.
    while (n === this.loads && !this.loaded(this.methodIn(view.value))) await this.loadMethod(view.value)
    if (n !== this.loads) return
    this.fresh = true
    this.applyView(view.value)
  }

  /**
   * A request that got no answer at all (status 0) is either this page's origin refused by CORS or
   * the network: asked once more without CORS, a Worker that answers means the origin.
   */
  private async classify(error: ApiError): Promise<ApiError> {
    if (error.status !== 0) return error
    let origin = ''
    try {
      origin = new URL(this.endpoint).origin
    } catch {
      return { ...error, code: 'network_error' as ApiError['code'] }
    }
    const why = await unanswered(origin)
    return { ...error, code: why.code as ApiError['code'], message: why.message }
  }

  /** Maps the session's status to what the shopper sees; resumes after a 3-D Secure return. */
  private applyView(view: CheckoutView): void {
    this.view = view
    this.announceMethods()
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

  /**
   * A view read again after a QR or invoice step (no state change): the picker hears of it too.
   * @internal
   */
  showView(view: CheckoutView): void {
    this.view = view
    this.announceMethods()
  }

  /**
   * Tells who holds this checkout (the card frame's page, the element in frame mode) which methods
   * the session offers and which one is under way, for a picker of its own.
   */
  private announceMethods(): void {
    const view = this.view
    if (view) this.dispatchEvent(new CustomEvent('methods-change', { detail: { methods: view.methods ?? [view.flow], method: view.method ?? null } }))
  }

  private detail(status: string, paymentId: string | null | undefined, card?: { brand?: CardBrand; last4?: string } | null): PayResultDetail {
    return { status, paymentId: paymentId ?? null, brand: card?.brand ?? null, last4: card?.last4 ?? null }
  }

  /** The session could not be read: say what to do, and fire `pay-error`. */
  private fail(error: ApiError): void {
    const code: string = error.code
    this.state = code === 'session_expired' ? 'expired' : code === 'session_completed' ? 'succeeded' : code === 'origin_not_allowed' ? 'blocked' : 'error'
    const key = ERROR_MESSAGE[code]
    this.notice = this.state === 'blocked' || this.state === 'error' ? this.messages[key ?? 'error'] : ''
    this.inFlight = false
    this.dispatchEvent(new PayErrorEvent({ code, message: error.message, fields: error.fields ?? [] }))
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
    const flow = this.current
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
    this.dispatchEvent(new PaySubmitEvent({ flow: this.current }))
    const page = this.startingPage ?? startingPage()
    let result = await this.api.pay(page ? { ...fields, returnPage: page } : fields, this.attemptKey)
    // A Worker of an earlier release knows no such field, and a page it will not link to is no
    // reason to stop the payment: once more without it, with the same key (nothing ran).
    if (page && !result.ok && result.error.status === 400 && result.error.fields?.some((f) => f.field === 'returnPage')) result = await this.api.pay(fields, this.attemptKey)
    this.inFlight = false
    if (!result.ok && result.error.status === 0) {
      // No answer: the same key is sent again on retry, so the charge cannot happen twice.
      const error = await this.classify(result.error)
      this.state = 'ready'
      this.notice = this.messages[ERROR_MESSAGE[error.code] ?? 'networkError']
      this.dispatchEvent(new PayErrorEvent({ code: error.code, message: error.message, fields: [] }))
      return
    }
    this.attemptKey = null
    if (!result.ok) return this.refused(result.error)
    this.onResult(result.value)
  }

  /**
   * The Worker refused the attempt. The form stays as the shopper left it (values kept) with a
   * message saying what to do next, unless the session itself is over.
   * @internal
   */
  refused(error: ApiError): void {
    const code: string = error.code
    // Another method took over (in another tab or the frame): read the session again, so the
    // picker shows the method under way.
    if (code === 'method_in_progress' || code === 'qr_withdrawn') void this.api?.view().then((v) => v.ok && this.applyView(v.value))
    if (code === 'session_expired') this.state = 'expired'
    else if (code === 'session_completed') this.state = 'succeeded'
    else if (code === 'too_many_attempts' && (this.view?.attemptsRemaining ?? 0) <= 0) this.state = 'declined'
    else this.state = 'ready'
    this.notice = this.state === 'ready' ? this.messages[ERROR_MESSAGE[code] ?? 'error'] : ''
    this.dispatchEvent(new PayErrorEvent({ code, message: error.message, fields: error.fields ?? [] }))
  }

  /** @internal */
  onResult(r: PayResult): void {
    const detail = this.detail(r.status, r.paymentId, r.card)
    // A payment in flight or done holds its method: the picker shows it and disables the others.
    const holds = r.status !== 'declined' && r.status !== 'failed'
    this.view = this.view ? { ...this.view, attemptsRemaining: r.attemptsRemaining, method: holds ? this.current : this.view.method } : this.view
    this.announceMethods()
    switch (r.status) {
      case 'succeeded':
        this.state = 'succeeded'
        this.dispatchEvent(new PaySuccessEvent(detail))
        break
      case 'declined':
      case 'failed':
        this.state = r.attemptsRemaining > 0 ? 'ready' : 'declined'
        const qr = this.current === 'qr'
        this.notice = r.attemptsRemaining > 0 ? format(this.messages, qr ? 'walletDeclinedRetry' : 'declinedRetry', { n: r.attemptsRemaining }, this.resolvedLocale) : ''
        this.cardForm?.clear('cvv')
        this.dispatchEvent(new PayDeclinedEvent({ ...detail, status: 'declined', attemptsRemaining: r.attemptsRemaining }))
        break
      case 'pending':
      case 'unknown':
        this.state = r.status
        this.dispatchEvent(new PayPendingEvent(detail))
        this.poll()
        break
      case 'action_required':
        this.state = 'action_required'
        if (r.redirect && !followRedirect(this, r.redirect)) {
          // A redirect that fails the shared rule (SECURITY.md R28) is never followed nor announced.
          this.state = 'unknown'
          this.dispatchEvent(new PayPendingEvent(this.detail('unknown', null)))
          this.poll()
        }
        break
    }
  }

  private renderFlow(view: CheckoutView | null): TemplateResult | typeof nothing {
    const flow = this.current
    if (flow === 'card' || flow === 'saved-card') {
      // A setup saves the card and charges nothing the shopper should read as a price.
      const submitLabel = view?.setup ? this.messages.saveCard : view ? format(this.messages, 'pay', { amount: isolateLtr(formatMoney(view.amount, view.currency, this.resolvedLocale), this.resolvedLocale) }) : this.messages.payNoAmount
      return html`${flow === 'saved-card' && view?.savedCard ? html`<p class="saved">${format(this.messages, 'savedCard', { last4: view.savedCard.last4 })}</p>` : nothing}
        <pay-card-form
          exportparts="form, field, input, error, brand, submit"
          .mode=${flow}
          .messages=${this.messages}
          .locale=${this.resolvedLocale}
          .prefill=${view?.customer ?? null}
          .savedBrand=${view?.savedCard?.brand ?? null}
          .collectShipping=${this.collectShipping}
          .submitLabel=${submitLabel}
          .disabled=${!view || this.state === 'submitting'}
          .busy=${this.state === 'submitting'}
          @card-form-submit=${(e: CustomEvent<Record<string, string>>) => this.pay(e.detail)}
        ></pay-card-form>`
    }
    const others = this.others
    if (!view || !others) return nothing
    if (flow === 'qr' && this.qrLoaded) return others.renderQr(this, view)
    if (flow === 'invoice' && this.invoiceLoaded) return others.renderInvoice(this, view)
    return nothing
  }

  protected override render(): TemplateResult {
    const view = this.view
    const key = STATUS_MESSAGE[this.state]
    const method = this.current
    const status = this.notice || (key ? this.messages[key === 'declinedFinal' && method === 'qr' ? 'walletDeclinedFinal' : key === 'succeeded' && view?.setup ? 'cardSaved' : key] : '')
    const busy = this.state === 'submitting' || (this.state === 'loading' && !!view)
    const payable = this.state === 'ready' || this.state === 'submitting' || (this.state === 'loading' && (!view || method === 'card' || method === 'saved-card'))
    const showForm = payable || (view && method === 'qr' && this.state !== 'succeeded' && this.state !== 'declined' && this.state !== 'expired' && this.state !== 'error' && this.state !== 'blocked')
    return html`<div class="container" part="container" lang=${this.resolvedLocale} dir=${direction(this.resolvedLocale)} aria-busy=${busy || this.state === 'loading' ? 'true' : 'false'}>
      ${view
        ? html`<div class="head">
            ${view.setup ? nothing : html`<p class="amount" part="amount" dir="ltr">${formatMoney(view.amount, view.currency, this.resolvedLocale)}</p>`}
            ${view.testMode ? html`<span class="badge" part="badge">${this.messages.testMode}</span>` : nothing}
          </div>`
        : nothing}
      ${view && this.picker && this.pickerLoaded && (view.methods ?? []).length > 1
        ? html`<pay-method-picker exportparts="methods, method, method-note" .methods=${view.methods} .selected=${method} .locked=${view.method} .messages=${this.messages} @pay-change=${(e: Event) => this.pick(e)}></pay-method-picker>`
        : nothing}
      <p class="status ${this.state}" part="status" role="status" aria-live="polite">${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${status}</p>
      ${showForm ? this.renderFlow(view) : nothing}
      ${this.state === 'error' ? html`<button part="retry" class="secondary" @click=${() => this.reset()}>${this.messages.tryAgain}</button>` : nothing}
    </div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-checkout-inline': PayCheckoutInline
  }
}

if (!customElements.get('pay-checkout-inline')) customElements.define('pay-checkout-inline', PayCheckoutInline)
