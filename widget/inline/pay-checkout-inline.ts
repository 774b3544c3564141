/**
 * @module
 * `<pay-checkout-inline>`: the full checkout, every way to pay, rendered in this document.
 * `<pay-checkout isolation="inline">` puts it in the merchant's page for the sessions its light
 * card form hands over (a QR wallet, an invoice, several ways to pay: `./light.ts`), and the card
 * frame in the frame's page for those its script hands over. It renders the card form at once and
 * loads the session beside it: the amount and the pay button fill in when the session answers,
 * another flow replaces the form.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import type { FieldError } from '../../shared/errors.ts'
import { ApiClient, NOT_MADE, type ApiError, type CheckoutView, type PayResult } from '../api-client.ts'
import '../card-form/card-form.ts'
import type { PayCardForm } from '../card-form/card-form.ts'
import { takeTyped } from '../card-form/kept.ts'
import { PayDeclinedEvent, PayErrorEvent, PayReadyEvent, PaySuccessEvent } from '../events.ts'
import { direction, en, format, formatMoney, loadMessages, resolveLocale, type Messages } from '../i18n/index.ts'
import { classify, followRedirect } from '../navigate.ts'
import { payByCard, refuse, resultDetail, settle } from './attempt.ts'
import { renderCardForm } from './card-view.ts'
import { declinedMessage, METHOD_TAGS, METHOD_VIEWS, usesCardForm } from './method-views.ts'
import { payCheckoutStyles } from './pay-checkout-inline.styles.ts'
import {
  cardDeclined,
  ERROR_MESSAGE,
  foundNotMade,
  POLL_MAX,
  POLL_MS,
  POLL_SLOW_MS,
  STATUS_MESSAGE,
  stateOf,
  stateOfUnreadable,
  WATCHED,
  type CheckoutState,
  type Notice,
} from './states.ts'

export type { CheckoutState }

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
export const PARTS =
  'container, amount, badge, status, form, field, input, error, brand, submit, retry, qr, wallet-id, details, pay-link, methods, method, method-note'

/** The QR wallet's and the invoice's steps in this checkout (./other-methods.ts). */
const loadOthers = () => import('./other-methods.ts')

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
    loadedViews: { state: true },
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
  // Not private: the steps (./attempt.ts, ./other-methods.ts) use these too (their host interfaces).
  /** @internal */
  declare state: CheckoutState
  /** @internal */
  declare view: CheckoutView | null
  /** @internal */
  declare messages: Messages
  /** What the status line says beside the state, in whatever language the checkout speaks now. @internal */
  declare notice: Notice
  /** The methods whose component (a chunk of its own) is loaded. */
  declare private loadedViews: ReadonlySet<CheckoutFlow>
  /** The QR and invoice steps, loaded with their components. */
  declare private others: typeof import('./other-methods.ts') | null
  declare private pickerLoaded: boolean
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
  /** The QR code this page asked for last (./other-methods.ts). @internal */
  qrIssued: string | undefined

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
    this.notice = null
    this.loadedViews = new Set()
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
  /** @internal */
  lastRead: CheckoutView['status'] | undefined
  /** The flow `pay-ready` last announced, so it is said once per flow. */
  private announced = ''
  /** The view shown came from loading the session (not from a result of paying here). */
  private fresh?: boolean
  private loads = 0
  /** The session whose typing kept over the bank's step was looked for (`../card-form/kept.ts`). */
  private took = ''

  /** The language in use, after fallback. */
  get resolvedLocale(): string {
    return resolveLocale(this.locale ? [this.locale] : typeof navigator === 'undefined' ? [] : navigator.languages)
  }

  /**
   * The method shown: the one under way or done (the Worker refuses the others), else the chosen
   * one, else the session's first; in the card frame, a card method only.
   */
  /** @internal */
  get current(): CheckoutFlow {
    return this.methodIn(this.view)
  }

  private methodIn(view: CheckoutView | null): CheckoutFlow {
    // Before the session answers: the method asked for (the element in frame mode never shows a
    // card form, even while loading), else the card form, which renders at once.
    if (!view) return this.method || 'card'
    const methods = view.methods ?? [view.flow]
    const here = (m: CheckoutFlow | '' | null | undefined): m is CheckoutFlow =>
      !!m && methods.includes(m) && (this.only !== 'card' || methods.length < 2 || usesCardForm(m))
    return [view.method, this.method, ...methods].find(here) ?? 'card'
  }

  private loaded(m: CheckoutFlow): boolean {
    return !METHOD_VIEWS[m].load || this.loadedViews.has(m)
  }

  /** Loads the code of the method shown (a component of its own, and its steps here: ./other-methods.ts). */
  private async loadMethod(view = this.view): Promise<void> {
    const m = this.methodIn(view)
    const load = METHOD_VIEWS[m].load
    if (!load || this.loadedViews.has(m)) return
    await Promise.all([load(), this.others ?? loadOthers().then((o) => (this.others = o))])
    this.loadedViews = new Set([...this.loadedViews, m])
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
    this.notice = null
    this.attemptKey = null
    await this.loadMethod()
    // Read afresh: a QR code shown before a card payment started is withdrawn by now.
    const view = await this.api?.view()
    if (view?.ok && this.method === method) this.applyView(view.value)
  }

  override connectedCallback(): void {
    super.connectedCallback()
    // Put back on the page (a framework moved it): a payment still settling is read again.
    if (this.view && WATCHED.includes(this.state)) this.poll()
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    clearTimeout(this.pollTimer)
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (
      (changed.has('endpoint') || changed.has('session') || changed.has('clientSecret')) &&
      this.endpoint &&
      this.session &&
      this.clientSecret
    ) {
      void this.load()
    }
    if (changed.has('locale'))
      void loadMessages(this.resolvedLocale, this.moreMessages).then((m) => (this.messages = m))
    // Before the session answers, load() shows the method asked for; after, the switch is here.
    if (changed.has('method') && this.view) void this.showMethod(this.method)
    // Whatever changed it (the view, the method), the method shown has its code.
    else if (this.view && !this.loaded(this.current)) void this.loadMethod()
  }

  protected override updated(): void {
    // Ready as soon as the inputs are in the document and accept typing: the card form renders
    // before the session answers (its pay button shownWhileWaiting), the other flows once it has. It needs a
    // session to be for (in the card frame, the id is known from the URL before the secret arrives).
    if (!this.session) return
    const flow = this.current
    const formShown = this.renderRoot.querySelector(METHOD_TAGS)
    if (formShown) {
      // A loaded session with a form to fill in is "ready" by its form: what follows is its result.
      this.fresh = false
      if (this.announced !== flow) {
        this.announced = flow
        void (formShown as LitElement).updateComplete.then(() =>
          this.dispatchEvent(new PayReadyEvent({ flow, status: this.view?.status ?? 'loading' })),
        )
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
    this.notice = null
    // A pay of the session before is no longer this element's (attempt.ts): this one starts afresh.
    this.inFlight = false
    this.attemptKey = null
    this.polls = 0
    this.api = new ApiClient(this.endpoint, this.session, this.clientSecret)
    const [messages, view] = await Promise.all([loadMessages(this.resolvedLocale), this.api.view()])
    if (n !== this.loads) return
    this.messages = messages
    if (!view.ok) return this.fail(await classify(this.endpoint, view.error))
    // The picker, and then only the chosen method's code, load only for the sessions that need them
    // (before the view is set: the method is shown complete, never an empty place for it).
    const several = (view.value.methods ?? []).length > 1
    // The QR wallet's, the invoice's and the picker's messages are a chunk of their own, loaded
    // only for the sessions that show them.
    this.moreMessages = several || !usesCardForm(view.value.flow)
    const more = this.moreMessages
      ? loadMessages(this.resolvedLocale, true).then((m) => (this.messages = m))
      : undefined
    await Promise.all([
      this.loadMethod(view.value),
      more,
      several && this.picker && !this.pickerLoaded ? loadPicker().then(() => (this.pickerLoaded = true)) : undefined,
    ])
    // Another method may have been chosen while that code loaded (the element in frame mode sets
    // `method` at any time): its code too, before the view is set.
    while (n === this.loads && !this.loaded(this.methodIn(view.value))) await this.loadMethod(view.value)
    if (n !== this.loads) return
    this.fresh = true
    this.applyView(view.value)
  }

  /** Maps the session's status to what the shopper sees; resumes after a 3-D Secure return. */
  /** @internal */
  applyView(view: CheckoutView): void {
    // A decline is told once, where the card is, when the session is read in it: not again when it
    // is read again (another method picked), nor by the other methods' view of a card's decline.
    const before = this.view?.status
    this.view = view
    this.lastRead = view.status
    this.announceMethods()
    const state = (this.state = stateOf(view))
    const elsewhere = METHOD_VIEWS[this.current].declinedElsewhere
    const notMade = foundNotMade(before, view.status)
    // What the session says beside its state, when the page was loaded (again) after a pay: a
    // decline (the bank refused 3-D Secure, the page came back), the form again with the tries left.
    if (cardDeclined(view) && state === 'ready' && usesCardForm(this.current))
      this.notice = { key: declinedMessage(this.current, 0), n: view.attemptsRemaining }
    // A try of this method declined on the gateway's page (an invoice's): said, above its link to pay again.
    else if (view.status === 'declined' && state === 'ready' && view.method === this.current && elsewhere)
      this.notice = { key: elsewhere }
    // A payment being confirmed found never made (states.ts): the shopper may pay again.
    else if (notMade) {
      this.notice = { key: 'error' }
      // The next pay has a key of its own: the one before is answered as the payment it never was.
      this.attemptKey = null
    }
    // A bank step still waiting, which render() offers a button to (the page never goes there by
    // itself: Back from the bank's page would come here and go straight back).
    else if (state !== 'ready')
      this.notice = state === 'action_required' && view.redirect ? { key: 'actionWaiting' } : null
    if (WATCHED.includes(state)) this.poll()
    else if (this.api && this.took !== this.api.sessionId) this.putBack(this.api.sessionId, state)
    if (state === 'succeeded')
      this.dispatchEvent(
        new PaySuccessEvent(resultDetail('succeeded', view.result?.paymentId ?? null, view.result?.card)),
      )
    else if (
      (view.status === 'declined' || state === 'declined') &&
      view.status !== before &&
      usesCardForm(this.current)
    )
      this.dispatchEvent(
        new PayDeclinedEvent({
          ...resultDetail('declined', view.result?.paymentId, view.result?.card),
          attemptsRemaining: view.attemptsRemaining,
        }),
      )
    else if (notMade) this.dispatchEvent(new PayErrorEvent(NOT_MADE))
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
  /** @internal */
  announceMethods(): void {
    const view = this.view
    if (view)
      this.dispatchEvent(
        new CustomEvent('methods-change', {
          detail: { methods: view.methods ?? [view.flow], method: view.method ?? null },
        }),
      )
  }

  /** The session could not be read: say what to do, and fire `pay-error`. */
  private fail(error: ApiError): void {
    const code: string = error.code
    this.state = stateOfUnreadable(code)
    const key = ERROR_MESSAGE[code]
    // Without words of its own, the error says its state's (a deleted saved card: contact the shop).
    this.notice =
      this.state === 'blocked' || this.state === 'error' ? { key: key ?? STATUS_MESSAGE[this.state] ?? 'error' } : null
    this.inFlight = false
    this.dispatchEvent(new PayErrorEvent({ code, message: error.message, fields: error.fields ?? [] }))
  }

  /** Checks a pending or unknown payment again until it settles. */
  /** @internal */
  poll(): void {
    clearTimeout(this.pollTimer)
    if (!this.api || !this.isConnected) return
    this.pollTimer = setTimeout(
      async () => {
        this.polls += 1
        const view = await this.api?.view()
        // Taken off the page meanwhile: nothing more until it is back (connectedCallback).
        if (!this.isConnected) return
        if (!view?.ok) return this.poll()
        if (view.value.status === this.lastRead) return this.poll()
        // A new step of the payment (the bank's step done, now pending): checked often again.
        this.polls = 0
        this.applyView(view.value)
      },
      this.polls < POLL_MAX ? POLL_MS : POLL_SLOW_MS,
    )
  }

  /** The bank's page (again), while its step waits. */
  private toBank(): void {
    const redirect = this.view?.redirect
    if (redirect && followRedirect(this, redirect)) this.notice = null
  }

  /** Submits the current flow's form, as the pay button does. */
  submit(): void {
    const flow = this.current
    if (usesCardForm(flow)) this.cardForm?.shadowRoot?.querySelector('form')?.requestSubmit()
    else this.shadowRoot?.querySelector<HTMLElement & { submit?: () => void }>(METHOD_VIEWS[flow].tag)?.submit?.()
  }

  /** Clears the form and any error, and shows the form again if the session can still be paid. */
  reset(): void {
    this.cardForm?.clear()
    this.notice = null
    this.attemptKey = null
    if (this.state === 'error' || this.state === 'declined') void this.load()
  }

  private get cardForm(): PayCardForm | null {
    return this.shadowRoot?.querySelector('pay-card-form') ?? null
  }

  /** @internal */
  clearCvv(): void {
    this.cardForm?.clear('cvv')
  }

  /** @internal */
  showRefused(fields: readonly FieldError[]): void {
    const flow = this.current
    if (usesCardForm(flow)) this.cardForm?.showRefused(fields)
    else
      this.shadowRoot
        ?.querySelector<HTMLElement & { showRefused?: (f: readonly FieldError[]) => void }>(METHOD_VIEWS[flow].tag)
        ?.showRefused?.(fields)
  }

  /**
   * Back from the bank's step (a decline, the page loaded again): what the shopper typed besides
   * the card, into the card form's inputs still empty, once it is drawn. Taken out whatever the
   * state, unless the bank's step still waits (its button takes the shopper there again) or the
   * card's form is not the one shown yet.
   */
  private putBack(session: string, state: CheckoutState): void {
    // A session shown with another way to pay first: kept until the card's form is shown.
    if (state === 'ready' && !usesCardForm(this.current)) return
    this.took = session
    const kept = takeTyped(session)
    if (state !== 'ready' || !Object.keys(kept).length) return
    void (async () => {
      // Drawn: the form's values are its own once its mode is set (its willUpdate clears them).
      await this.updateComplete
      await this.cardForm?.updateComplete
      this.cardForm?.putBack(kept)
    })()
  }

  /** @internal */
  keepTyped(): void {
    if (!this.api) return
    this.cardForm?.keepTyped(this.api.sessionId)
    // Taken out by this page too, should it read the session settled (a bank's page in a popup).
    this.took = ''
  }

  /**
   * The Worker refused an attempt (./attempt.ts).
   * @internal
   */
  refused(error: ApiError): void {
    refuse(this, error)
  }

  /**
   * An attempt's result (./attempt.ts).
   * @internal
   */
  onResult(r: PayResult): void {
    settle(this, r)
  }

  private renderFlow(view: CheckoutView | null): TemplateResult | typeof nothing {
    const flow = this.current
    if (usesCardForm(flow)) return renderCardForm(this, flow, view, (fields) => payByCard(this, fields))
    const render = this.others?.RENDER[flow]
    return view && render && this.loadedViews.has(flow) ? render(this, view) : nothing
  }

  protected override render(): TemplateResult {
    const view = this.view
    const key = STATUS_MESSAGE[this.state]
    const method = this.current
    const said = this.notice
    const status =
      (said && format(this.messages, said.key, said.n === undefined ? {} : { n: said.n }, this.resolvedLocale)) ||
      (key
        ? this.messages[
            key === 'declinedFinal'
              ? declinedMessage(method, 1)
              : key === 'succeeded' && view?.setup
                ? 'cardSaved'
                : key
          ]
        : '')
    const busy = this.state === 'submitting' || (this.state === 'loading' && !!view)
    const payable =
      this.state === 'ready' ||
      this.state === 'submitting' ||
      (this.state === 'loading' && (!view || usesCardForm(method)))
    const showForm =
      payable ||
      (view &&
        METHOD_VIEWS[method].shownWhileWaiting &&
        this.state !== 'succeeded' &&
        this.state !== 'declined' &&
        this.state !== 'expired' &&
        this.state !== 'error' &&
        this.state !== 'blocked')
    // The picker stands above the box, where frame mode's page shows it (outside the frame), in
    // the shopper's language as the box is.
    return html`${
      view && this.picker && this.pickerLoaded && (view.methods ?? []).length > 1
        ? html`<pay-method-picker exportparts="methods, method, method-note" lang=${this.resolvedLocale} dir=${direction(this.resolvedLocale)} .methods=${view.methods} .selected=${method} .locked=${view.method} .messages=${this.messages} @pay-change=${(e: Event) => this.pick(e)}></pay-method-picker>`
        : nothing
    }<div class="container" part="container" lang=${this.resolvedLocale} dir=${direction(this.resolvedLocale)} aria-busy=${busy || this.state === 'loading' ? 'true' : 'false'}>
      ${
        view
          ? html`<div class="head">
            ${view.setup ? nothing : html`<p class="amount" part="amount" dir="ltr">${formatMoney(view.amount, view.currency, this.resolvedLocale)}</p>`}
            ${view.testMode ? html`<span class="badge" part="badge">${this.messages.testMode}</span>` : nothing}
          </div>`
          : nothing
      }
      <p class="status ${this.state}" part="status" role="status" aria-live="polite">${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${status}</p>
      ${showForm ? this.renderFlow(view) : nothing}
      ${this.state === 'error' ? html`<button part="retry" class="secondary" @click=${() => this.reset()}>${this.messages.tryAgain}</button>` : nothing}
      ${this.state === 'action_required' && view?.redirect ? html`<button part="retry" class="secondary" @click=${() => this.toBank()}>${this.messages.continueToBank}</button>` : nothing}
    </div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-checkout-inline': PayCheckoutInline
  }
}

if (!customElements.get('pay-checkout-inline')) customElements.define('pay-checkout-inline', PayCheckoutInline)
