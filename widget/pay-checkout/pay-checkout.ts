/**
 * @module
 * `<pay-checkout>`: the element merchants put on their page. A plain custom element, small on
 * purpose: in the default `isolation="frame"` it creates the card frame on the Worker's origin as
 * soon as it has a session and relays the frame's events; the card form, the validators and Lit
 * load only inside that frame. With `isolation="inline"` it loads, into its own shadow root on
 * first use, the light form for a card (`../inline/light.ts`: the frame's card flow over the same
 * markup, no Lit), whose messages it hears as the frame's; and the full checkout
 * (`<pay-checkout-inline>`, Lit) for a session the light form hands over (a QR wallet, an invoice,
 * several ways to pay), or when the page has loaded it already.
 */
import type { CardBrand } from '../../shared/card.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import type { CardFlow } from '../card-frame/card-flow.ts'
import type { LightForm } from '../inline/light.ts'
import {
  CHANNEL,
  isSafeCssValue,
  parseFrameMessage,
  THEME_PROPERTIES,
  type FrameSays,
  type PageSays,
} from '../card-frame/messages.ts'
import {
  PayChangeEvent,
  PayDeclinedEvent,
  PayErrorEvent,
  PayPendingEvent,
  PayReadyEvent,
  PaySubmitEvent,
  PaySuccessEvent,
  type PayResultDetail,
} from '../events.ts'
import type { PayCheckoutInline } from '../inline/pay-checkout-inline.ts'
import { classify, followRedirect, startingPage, unanswered } from '../navigate.ts'
import type { FrameMethods } from './methods.ts'
import { showNotice, styleSheet } from './notice.ts'

/** How long after the frame's `load` event its script must have said hello: else it was refused. */
const FRAME_GRACE_MS = 1_500
/** The same for a frame the page wrote, from when this element finds it (its load may not be seen). */
const WRITTEN_FRAME_GRACE_MS = 10_000

/**
 * @summary A checkout for one payment: card, saved card, QR wallet or invoice.
 *
 * @attr {string} endpoint - The Worker's origin, e.g. `https://pay.example.workers.dev`.
 * @attr {string} session - The checkout session id (`cs_...`), from your server.
 * @attr {string} client-secret - The session's client secret, from your server. Never logged or stored by the element.
 * @attr {string} frame-token - The session's `frameToken`, from your server (optional, not secret): the card frame then loads without the Worker looking the session up, its form without the customer's details the session gives.
 * @attr {string} locale - A BCP 47 tag (`de-AT`); defaults to the browser's languages.
 * @attr {'light' | 'dark' | 'auto'} theme - `light`, `dark` or `auto` (follows the system).
 * @attr {boolean} collect-shipping - Ask for a shipping address.
 * @attr {'frame' | 'inline'} isolation - `frame` (default: the form in a frame on the Worker's origin, so no script on this page can read card data) or `inline` (the form in this page's DOM).
 *
 * @fires pay-ready - The card inputs are in the page and accept typing (`detail.status` is `loading` while the session has not answered yet; the pay button waits for it). Fired again if the session turns out to be another flow, or when the form is made again (a new `locale` or `collect-shipping`, the element moved in frame mode). A session with nothing to fill in when the element loads it (already paid, expired, a payment in flight) fires it once more with that status (`succeeded`, `expired`, `processing`, ...) after the card form's early `loading` one; a payment made in the element never fires it again (its result event does), unless it was not found (`pay-error` `payment_not_made`, below). `detail: { flow, status }`
 * @fires pay-change - Validity or card brand changed, `detail: { valid, brand }` (never the number); or the shopper picked another way to pay in the method picker, `detail: { method, valid: false, brand: null }`.
 * @fires pay-submit - A payment was sent. `detail: { flow }`
 * @fires pay-action - 3-D Secure is needed; cancel it to redirect yourself. `detail: { redirect }`
 * @fires pay-success - Paid: once per session for the element, also when it loads a session already paid (the page loaded again after the payment), never again for that session. `detail: { status, paymentId, brand, last4 }`
 * @fires pay-pending - Accepted, the result comes later (or is being confirmed); told once per pay, not again when the form is made again. Also after a `pay-error` `internal_error` (a bare 5xx from something in between) when the session, read again, has the payment on its way (its `paymentId`, `brand` and `last4` are then null). `detail: { status, paymentId, brand, last4 }`
 * @fires pay-declined - Declined; retry is allowed while `detail.attemptsRemaining > 0`. Also when the element loads a session whose last attempt was declined (a 3-D Secure the bank refused, then the page again); told once per attempt, not again when the form is made again (a new `locale`, the element moved). `detail: { status, paymentId, brand, last4, attemptsRemaining }`
 * @fires pay-error - Could not pay. `detail: { code, message, fields }` (field names, not values); `code` is the Worker's error code (all of them, with their HTTP status: `ERROR_CODES` in `shared/errors.ts`; a page meets `forbidden`, `too_many_attempts`, `rate_limited`, `payments_paused`, `session_expired`, `method_in_progress`, `registration_deleted` and the `gateway_*` ones), or `origin_not_allowed` (this page's origin is not in the session's allowed origins) or `network_error` (the Worker could not be reached), or `payment_not_made`: a payment the element showed as being confirmed (`pay-pending` with `status: 'unknown'`, or a session loaded with its payment in flight) that the session then shows open again (the gateway had no such payment, or refused it); the form is back, asking the shopper to try again, with a key of its own. It is not "nothing was charged": the Worker asks the gateway about that payment once more later, and if it landed after all it pays the session (your server's webhook says so, and a later pay here is answered as paid). A pay sent again with the key of one not found is answered `unknown` while the Worker is still to ask about it, then `gateway_unavailable` (503); one the gateway refused, `gateway_rejected` (502); never as a declined card.
 *
 * @csspart container - The outer box.
 * @csspart amount - The amount heading (none for a setup session, which saves a card without paying).
 * @csspart badge - The "test mode" badge, shown while the Worker uses the sandbox gateway.
 * @csspart status - The status message (a polite live region).
 * @csspart form - The card form.
 * @csspart field - Each label, input and error of the card form.
 * @csspart input - Each input of the card form.
 * @csspart error - Each field error.
 * @csspart brand - The detected card brand.
 * @csspart submit - The pay button.
 * @csspart retry - The retry button after an error, and the button to the bank's page while 3-D Secure waits.
 * @csspart qr - The QR code (QR flow).
 * @csspart wallet-id - The merchant wallet id text (QR flow).
 * @csspart details - The invoice details (invoice flow).
 * @csspart pay-link - The link to pay the invoice (invoice flow).
 * @csspart methods - The method picker (a radio group), when the session offers several ways to pay.
 * @csspart method - Each method of the picker.
 * @csspart method-note - The note saying which method is under way (the others are then disabled).
 * @csspart frame - The card frame (the default `isolation="frame"`). Parts inside it cannot be
 *   reached from the page; the `--pay-*` custom properties and the theme are passed in.
 *
 * @slot - A card frame your server wrote for this session (`<iframe src="{endpoint}/frame/{session}?locale=...">`,
 *   never with the client secret): it loads with the page, and the element uses it where it is
 *   instead of making its own (the fastest embed, see the README).
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
export class PayCheckout extends HTMLElement {
  static observedAttributes = [
    'endpoint',
    'session',
    'client-secret',
    'frame-token',
    'locale',
    'theme',
    'collect-shipping',
    'isolation',
  ]

  /** The Worker's origin, e.g. `https://pay.example.workers.dev`. */
  get endpoint(): string {
    return this.getAttribute('endpoint') ?? ''
  }
  set endpoint(v: string) {
    this.setAttribute('endpoint', v)
  }
  /** The checkout session id (`cs_...`), from your server. */
  get session(): string {
    return this.getAttribute('session') ?? ''
  }
  set session(v: string) {
    this.setAttribute('session', v)
  }
  /** The session's client secret, from your server. Never logged or stored by the element. */
  get clientSecret(): string {
    return this.getAttribute('client-secret') ?? ''
  }
  set clientSecret(v: string) {
    this.setAttribute('client-secret', v)
  }
  /**
   * The session's `frameToken`, from your server (optional, not secret): the card frame then
   * loads without the Worker looking the session up, its form without the customer's details the
   * session gives. Read when the frame is made.
   */
  get frameToken(): string {
    return this.getAttribute('frame-token') ?? ''
  }
  set frameToken(v: string) {
    this.setAttribute('frame-token', v)
  }
  /** A BCP 47 tag (`de-AT`); defaults to the browser's languages. */
  get locale(): string {
    return this.getAttribute('locale') ?? ''
  }
  set locale(v: string) {
    this.setAttribute('locale', v)
  }
  /** `light`, `dark` or `auto` (follows the system). */
  get theme(): 'light' | 'dark' | 'auto' {
    // Without an attribute, a frame the page wrote keeps the theme of its address.
    const t = this.getAttribute('theme') ?? this.written?.get('theme')
    return t === 'dark' || t === 'auto' ? t : 'light'
  }
  set theme(v: 'light' | 'dark' | 'auto') {
    this.setAttribute('theme', v)
  }
  /** Ask for a shipping address. */
  get collectShipping(): boolean {
    return this.hasAttribute('collect-shipping')
  }
  set collectShipping(v: boolean) {
    this.toggleAttribute('collect-shipping', Boolean(v))
  }
  /**
   * `frame` (default: the form in a frame on the Worker's origin, so no script on this page can
   * read card data) or `inline` (the form in this page's DOM).
   */
  get isolation(): 'inline' | 'frame' {
    return this.getAttribute('isolation') === 'inline' ? 'inline' : 'frame'
  }
  set isolation(v: 'inline' | 'frame') {
    this.setAttribute('isolation', v)
  }

  private root: ShadowRoot
  private frame: HTMLIFrameElement | null = null
  private frameKey = ''
  /** The address's query of a frame the page wrote (its locale and theme when the element names none). */
  private written: URLSearchParams | null = null
  private inline: PayCheckoutInline | null = null
  /** Inline mode, a card: the light form (no Lit) and its flow, for the session of `lightKey`. */
  private light: { form: LightForm; flow: CardFlow | null } | null = null
  private lightKey = ''
  /** A pay is on its way: from `submitted` until its answer is told (`result`, `error`, `action`). */
  private paying = false
  /** The light form was asked for in another language or shipping choice while a pay was on its way. */
  private lightLater = false
  /** Inline mode: the session went to the full checkout (another way to pay, or several). */
  private full = false
  private initSent = false
  /** The language, theme and shipping choice the frame was last told (`look`). */
  private toldLook = ''
  /** The frame's script has spoken. */
  private spoke = false
  /** The frame's last `ready` (flow and status): a frame that says it again is not ready again. */
  private lastReady = ''
  /**
   * The session whose `pay-success` this element fired: a success ends the session, so it is told
   * once, however often it is read again (the frame reloaded as the element moved, the picker's
   * method read again, the light form rebuilt for a new locale).
   */
  private paidSession = ''
  /**
   * The last other result this element told (session, status, payment, tries left): a form made
   * again (a new language, the element moved) reads the session and says it again.
   */
  private lastResult = ''
  /**
   * The session whose card payment, told here as pending, being confirmed or at the bank's step,
   * is on its way: a form made again for it (a new language) says so, and is not "ready to pay".
   * Cleared by a decline told (the form made again after it is ready again). A payment found
   * never made (unknown, then open) is told by nothing: the form made again stays unannounced.
   */
  private underWay = ''
  private watchdog: ReturnType<typeof setTimeout> | undefined
  private queued = false
  /** Frame mode, several methods: the picker here, and the methods other than card in this element (./methods.ts). */
  private methods: FrameMethods | null = null

  constructor() {
    super()
    this.root = this.attachShadow({ mode: 'open' })
    this.root.adoptedStyleSheets = [styleSheet()]
    // The full checkout inside (inline mode, or a way to pay beside the frame) fires its own
    // pay-success: told once per session too, as the frame's and the light form's are (`heard`).
    this.addEventListener(
      'pay-success',
      (e) => {
        if (e.composedPath()[0] === this) return
        if (this.paidSession === this.session) e.stopImmediatePropagation()
        else this.paidSession = this.session
      },
      { capture: true },
    )
  }

  connectedCallback(): void {
    window.addEventListener('message', this.onFrameMessage)
    this.light?.form.resume()
    this.schedule()
  }

  disconnectedCallback(): void {
    window.removeEventListener('message', this.onFrameMessage)
    clearTimeout(this.watchdog)
    // The light form keeps what was typed (the element may be moved), but reads nothing meanwhile.
    this.light?.form.pause()
  }

  attributeChangedCallback(): void {
    this.schedule()
  }

  /** Attribute changes come in bursts (a framework sets several): one update after them. */
  private schedule(): void {
    if (this.queued) return
    this.queued = true
    queueMicrotask(() => {
      this.queued = false
      if (this.isConnected) this.update()
    })
  }

  private get endpointOrigin(): string {
    try {
      return new URL(this.endpoint).origin
    } catch {
      return ''
    }
  }

  private update(): void {
    if (this.isolation === 'inline') {
      this.dropFrame()
      void this.showInline()
      return
    }
    this.inline?.remove()
    this.inline = null
    this.dropLight()
    const origin = this.endpointOrigin
    // No frame until there is a session to show: a frame without one would be an error page.
    if (!origin || !this.session || !this.clientSecret) return this.dropFrame()
    const key = `${origin}|${this.session}|${this.clientSecret}`
    if (key === this.frameKey && this.frame) return this.lookChanged()
    this.dropFrame()
    this.frameKey = key
    const src = `${origin}/frame/${encodeURIComponent(this.session)}`
    // The declarative embed: the page's server wrote this session's frame inside the element, so
    // it started loading with the page. It is used where it is (moving an iframe reloads it).
    // One whose address carries the client secret is not used: the secret never goes in a URL.
    const written = Array.from(this.children).find(
      (c): c is HTMLIFrameElement =>
        c instanceof HTMLIFrameElement && c.src.split('?')[0] === src && !c.src.includes(this.clientSecret),
    )
    if (written) return this.useFrame(written, true)
    const q = new URLSearchParams({ locale: this.resolvedLocale(), theme: this.theme })
    if (this.collectShipping) q.set('shipping', '1')
    if (this.frameToken) q.set('t', this.frameToken)
    const frame = document.createElement('iframe')
    frame.setAttribute('part', 'frame')
    // Until the frame says its name in the shopper's language (its `title` message).
    frame.title = 'Payment'
    frame.allow = 'payment'
    // The frame finds this page by its origin: from the Referer where the browser has no
    // `ancestorOrigins`, so it is sent even where this page sends none (its origin alone).
    frame.referrerPolicy = 'origin'
    frame.height = '320'
    // The client secret goes in by message, never in the URL (it would reach logs and Referers).
    frame.src = `${src}?${q}`
    this.useFrame(frame, false)
    this.root.append(frame)
  }

  private useFrame(frame: HTMLIFrameElement, written: boolean): void {
    this.frame = frame
    this.initSent = false
    // A pay the frame before it had on its way is answered in the session this one reads.
    this.paying = false
    this.spoke = false
    this.lastReady = ''
    frame.addEventListener('load', () => {
      // Posted at once, though the frame's own script (a dynamic import of its entry) may not be
      // listening yet: it posts `loaded` when it is, and gets the init again then.
      this.sendInit()
      this.watch(FRAME_GRACE_MS)
    })
    if (!written) return
    // What it was written with stands where the element names nothing else: it is not rendered again.
    this.written = new URL(frame.src).searchParams
    // Shown through the shadow root's slot, where it is. It may have loaded (and its script spoken,
    // to no one) before this element was defined: the init goes now, and the frame answers it
    // with its state; if its script was not listening yet, its `loaded` brings the init again.
    if (!this.root.querySelector('slot')) this.root.append(document.createElement('slot'))
    this.sendInit()
    // Its `load` event may have passed or may be far off (a slow network): a longer wait, which
    // the load event, if it comes, shortens as for a frame made here.
    this.watch(WRITTEN_FRAME_GRACE_MS)
  }

  private watch(ms: number): void {
    clearTimeout(this.watchdog)
    this.watchdog = setTimeout(() => void (this.spoke ? undefined : this.refused()), ms)
  }

  private dropFrame(): void {
    clearTimeout(this.watchdog)
    this.frame?.remove()
    this.frame = null
    this.written = null
    this.methods?.drop()
    this.methods = null
    this.frameKey = ''
    this.root.querySelector('.notice')?.remove()
  }

  private resolvedLocale(): string {
    return this.locale || this.written?.get('locale') || navigator.language || 'en'
  }

  private async showInline(): Promise<void> {
    // A card goes to the light form, unless the full checkout is here already: this session
    // needed it, or another element of the page loaded it (then it costs nothing to download).
    if (!this.inline && !this.full && !customElements.get('pay-checkout-inline')) return this.showLight()
    this.dropLight()
    const { PARTS } = await import('../inline/pay-checkout-inline.ts')
    if (this.isolation !== 'inline' || !this.isConnected) return
    if (!this.inline) {
      this.inline = document.createElement('pay-checkout-inline')
      this.inline.setAttribute('exportparts', PARTS)
      // After the light form, the full checkout announces the card form again: said once.
      this.inline.addEventListener('pay-ready', (e) => {
        const { flow, status } = (e as PayReadyEvent).detail
        if (`${flow}|${status}` === this.lastReady) e.stopImmediatePropagation()
        this.lastReady = `${flow}|${status}`
      })
      this.root.append(this.inline)
    }
    const el = this.inline
    el.theme = this.theme
    el.locale = this.locale
    el.collectShipping = this.collectShipping
    el.endpoint = this.endpoint
    el.session = this.session
    el.clientSecret = this.clientSecret
  }

  /**
   * Inline mode, a card: the light form, made again when the session, language or shipping choice
   * changes. For the same session, not while a pay is on its way: its answer is told first (its
   * result event, or the bank's step followed), then the form is made again, as the frame does.
   */
  private async showLight(): Promise<void> {
    const { endpoint, session, clientSecret } = this
    // Nothing until there is a session to show (the full checkout would show an empty form).
    if (!endpoint || !session || !clientSecret) return this.dropLight()
    const { lightForm, langOf } = await import('../inline/light.ts')
    // By the language shown: another tag for it (`en-US` where `en` shows) makes nothing again.
    const same = `${endpoint}|${session}|${clientSecret}|`
    const key = `${same}${langOf(this.locale)}|${this.collectShipping}`
    this.light?.form.el.setAttribute('theme', this.theme)
    // As it is (asked for again, or back to it before the pay's answer): nothing waits.
    if (key === this.lightKey) return void (this.lightLater = false)
    if (this.paying && this.lightKey.startsWith(same)) return void (this.lightLater = true)
    this.dropLight()
    this.lightKey = key
    const form = await lightForm({
      locale: this.locale,
      theme: this.theme,
      shipping: this.collectShipping,
      endpoint,
      session,
      clientSecret,
      say: (m) => {
        if (this.lightKey === key) this.heard(m)
      },
      handOver: () => {
        this.full = true
        this.dropLight()
        void this.showInline()
      },
      page: () => startingPage() ?? '',
      unanswered: (e) => classify(endpoint, e),
      safeRedirect,
    })
    if (this.lightKey !== key) return
    // Gone meanwhile (another isolation, off the page): made again when it comes back.
    if (this.isolation !== 'inline' || !this.isConnected) return void (this.lightKey = '')
    this.lastReady = ''
    this.light = { form, flow: null }
    this.root.append(form.el)
    this.light.flow = form.start()
  }

  private dropLight(): void {
    // Only the light form's own pay: frame mode drops a light form it never had at each change.
    if (this.light || this.lightKey) this.paying = this.lightLater = false
    this.light?.flow?.stop()
    this.light?.form.el.remove()
    this.light = null
    this.lightKey = ''
  }

  /**
   * Frame mode, a session with several methods (the frame told which, and which one is under way):
   * the picker and the methods other than card, from a chunk of their own (./methods.ts).
   */
  private async showMethods(methods: readonly string[], locked: string | null): Promise<void> {
    if (methods.length < 2) return
    const frame = this.frame
    const { FrameMethods } = await import('./methods.ts')
    if (!frame || frame !== this.frame) return
    this.methods ??= new FrameMethods(
      this,
      this.root,
      frame,
      (method) => this.toFrame({ type: 'method', method }),
      this.resolvedLocale(),
    )
    await this.methods.show(methods, locked)
  }

  private toFrame(message: PageSays): void {
    this.frame?.contentWindow?.postMessage({ channel: CHANNEL, ...message }, this.endpointOrigin)
  }

  /** The frame's look: what a merchant's page may change while the frame shows (a language switcher, a theme). */
  private look(): string {
    return `${this.resolvedLocale()}|${this.theme}|${this.collectShipping}`
  }

  /**
   * The language, theme or shipping choice changed while the frame shows this session: it is told
   * again (it renders that form, in place or as the Worker writes it, loading again), as inline
   * mode makes its form again. Not yet told, its first init carries them. (No watchdog: a frame
   * that spoke is not refused afterwards, where a slow new page would read as refused.)
   */
  private lookChanged(): void {
    if (!this.initSent || this.look() === this.toldLook) return
    this.initSent = false
    this.sendInit()
    void this.methods?.relocalize(this.resolvedLocale())
  }

  private sendInit(): void {
    if (this.initSent) return
    this.initSent = true
    this.toldLook = this.look()
    this.toFrame({
      type: 'init',
      clientSecret: this.clientSecret,
      locale: this.resolvedLocale(),
      theme: this.theme,
      collectShipping: this.collectShipping,
      style: this.themeProperties(),
    })
    const page = startingPage()
    if (page) this.toFrame({ type: 'page', page })
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

  /**
   * The frame loaded but its script never spoke: the browser refused to show it here (its
   * `frame-ancestors` does not name this page's origin), or the Worker could not be reached.
   */
  private async refused(): Promise<void> {
    const frame = this.frame
    if (!frame) return
    const origin = this.endpointOrigin
    const why = await unanswered(origin)
    if (this.frame !== frame || this.spoke) return
    frame.hidden = true
    await this.fail(why.code, why.message)
  }

  /** A message in the element (the frame cannot show it) and a `pay-error`. */
  private async fail(code: 'origin_not_allowed' | 'network_error', message: string): Promise<void> {
    this.dispatchEvent(new PayErrorEvent({ code, message, fields: [] }))
    await showNotice(this.root, code, this.resolvedLocale(), () => {
      this.dropFrame()
      this.update()
    })
  }

  /** Messages from the card frame: exact origin, our frame's window, exact shapes only. */
  private onFrameMessage = (e: MessageEvent): void => {
    if (
      this.isolation !== 'frame' ||
      !this.frame ||
      e.source !== this.frame.contentWindow ||
      e.origin !== this.endpointOrigin
    )
      return
    const m = parseFrameMessage(e.data)
    if (!m) return
    this.spoke = true
    this.heard(m)
  }

  /** What the card frame or the light form said, as the page's events. */
  private heard(m: FrameSays): void {
    switch (m.type) {
      case 'loaded':
        // Again even if it went at the load event: the frame's script may have started listening
        // only after it. A frame that loaded again (moved, or in a new language) is ready again,
        // with no pay of its own on the way.
        this.initSent = false
        this.paying = false
        this.lastReady = ''
        this.sendInit()
        break
      case 'title':
        if (this.frame) this.frame.title = m.title
        break
      case 'ready':
        // Paid, or a payment on its way: its result was told; a form made again after it is not
        // ready to pay (README: pay-ready).
        if (
          `${m.flow}|${m.status}` === this.lastReady ||
          this.paidSession === this.session ||
          this.underWay === this.session
        )
          break
        this.lastReady = `${m.flow}|${m.status}`
        this.dispatchEvent(new PayReadyEvent({ flow: m.flow as PayReadyEvent['detail']['flow'], status: m.status }))
        break
      case 'change':
        this.dispatchEvent(new PayChangeEvent({ valid: m.valid, brand: (m.brand as CardBrand | null) ?? null }))
        break
      case 'submitted':
        this.paying = true
        this.dispatchEvent(new PaySubmitEvent({ flow: m.flow }))
        break
      case 'resize':
        if (this.frame) this.frame.height = String(Math.min(m.height, 4000))
        break
      case 'result': {
        const detail: PayResultDetail = {
          status: m.status,
          paymentId: m.paymentId,
          brand: (m.brand as CardBrand | null) ?? null,
          last4: m.last4,
        }
        if (m.status === 'succeeded') {
          if (this.paidSession === this.session) break
          this.paidSession = this.session
          this.dispatchEvent(new PaySuccessEvent(detail))
          break
        }
        // A pay's own result is always told, even one like the last (`unknown`, no id); a form
        // made again reading the session tells nothing new.
        const said = [this.session, m.status, m.paymentId, m.attemptsRemaining].join('|')
        if (said === this.lastResult && !this.paying) break
        this.lastResult = said
        this.underWay = m.status === 'declined' ? '' : this.session
        if (m.status === 'declined')
          this.dispatchEvent(new PayDeclinedEvent({ ...detail, attemptsRemaining: m.attemptsRemaining ?? 0 }))
        else this.dispatchEvent(new PayPendingEvent(detail))
        break
      }
      case 'action':
        this.underWay = this.session
        // Checked again here, whoever handed it over (SECURITY.md R28): a redirect that fails the
        // shared rule is never followed nor announced; the payment is being confirmed.
        if (!followRedirect(this, m.redirect))
          this.dispatchEvent(new PayPendingEvent({ status: 'unknown', paymentId: null, brand: null, last4: null }))
        break
      case 'error':
        // A payment being confirmed found never made (api-client.ts NOT_MADE): none on its way now,
        // and the next pay's result is its own, even one like the last.
        if (m.code === 'payment_not_made') this.underWay = this.lastResult = ''
        this.dispatchEvent(
          new PayErrorEvent({
            code: m.code,
            message: m.message,
            fields: m.fields as PayErrorEvent['detail']['fields'],
          }),
        )
        break
      case 'methods':
        void this.showMethods(m.methods, m.method)
        break
    }
    // The pay's answer is told: the light form asked for meanwhile is made now (on the page; off
    // it, when it comes back).
    if (m.type === 'result' || m.type === 'error' || m.type === 'action') {
      this.paying = false
      if (this.lightLater && this.isConnected) void this.showLight()
    }
  }

  /** Resolves once the element (in inline mode, the inline checkout) has rendered pending changes. */
  get updateComplete(): Promise<boolean> {
    return new Promise((resolve) => queueMicrotask(() => resolve(this.inline ? this.inline.updateComplete : true)))
  }

  /** Submits the current flow's form, as the pay button does. */
  submit(): void {
    if (this.light) this.light.flow?.receive({ type: 'submit' })
    else if (this.isolation === 'inline') this.inline?.submit()
    else if (this.methods?.other?.isConnected) this.methods.other.submit()
    else this.toFrame({ type: 'submit' })
  }

  /** Clears the form and any error, and shows the form again if the session can still be paid. */
  reset(): void {
    if (this.light) this.light.flow?.receive({ type: 'reset' })
    else if (this.isolation === 'inline') this.inline?.reset()
    else if (this.methods?.other?.isConnected) this.methods.other.reset()
    else this.toFrame({ type: 'reset' })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-checkout': PayCheckout
  }
}
