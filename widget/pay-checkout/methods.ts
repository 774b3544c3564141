/**
 * @module
 * The element in frame mode, for a session with several methods (the frame tells which, and which
 * one is under way): the method picker goes above the frame; card methods stay in the frame, the
 * others render in the element. A chunk of its own, loaded only for such sessions, so the file a
 * merchant page loads (which the card frame's page loads too) carries none of it.
 */
import { PARTS, type PayCheckoutInline } from '../inline/pay-checkout-inline.ts'
import type { PayMethodPicker } from '../method-picker/method-picker.ts'
import type { PayCheckout } from './pay-checkout.ts'

export class FrameMethods {
  private picker: PayMethodPicker | null = null
  /** The method other than card being shown in the element, if any. */
  other: PayCheckoutInline | null = null
  private chosen = ''
  private dropped = false

  /**
   * @param host the element
   * @param root its shadow root
   * @param frame the card frame this picker goes with
   * @param toFrame posts the card method chosen to the frame
   * @param locale the shopper's language tag, as the element sends it to the frame
   */
  constructor(
    private readonly host: PayCheckout,
    private readonly root: ShadowRoot,
    private readonly frame: HTMLIFrameElement,
    private readonly toFrame: (method: 'card' | 'saved-card') => void,
    private locale: string,
  ) {}

  /**
   * The element's language or theme changed: the picker and the method shown here follow it. Never
   * rejects (a chunk that could not load leaves the words as they were).
   */
  async relocalize(locale: string): Promise<void> {
    if (this.other) {
      this.other.theme = this.host.theme
      this.other.locale = this.host.locale
    }
    if (locale === this.locale) return
    this.locale = locale
    // A picker still on its way is made in the language asked before: `show` speaks again then.
    if (this.picker) await this.speak(this.picker).catch(() => undefined)
  }

  /** The picker's words in the element's language, unless it changed again meanwhile (that call's stand). */
  private async speak(picker: PayMethodPicker): Promise<void> {
    const locale = this.locale
    const { direction, loadMessages, resolveLocale } = await import('../inline/pay-checkout-inline.ts')
    const resolved = resolveLocale([locale])
    const messages = await loadMessages(resolved, true)
    if (this.locale !== locale || this.dropped) return
    picker.messages = messages
    picker.dir = direction(resolved)
    // Its words are in the shopper's language, not the merchant page's (screen readers voice them so).
    picker.lang = resolved
  }

  /** The frame went away: so do the picker and the method shown beside it. */
  drop(): void {
    this.dropped = true
    this.picker?.remove()
    this.other?.remove()
  }

  /** Shows (or updates) the picker for the session's methods; the picker, Lit and each method's code load only now. */
  async show(methods: readonly string[], locked: string | null): Promise<void> {
    if (methods.length < 2) return
    const { direction, loadMessages, loadPicker, resolveLocale } = await import('../inline/pay-checkout-inline.ts')
    let picker = this.picker
    if (!picker) {
      const asked = this.locale
      const locale = resolveLocale([asked])
      // The picker's messages before it is shown: it never renders without its labels.
      const [, messages] = await Promise.all([loadPicker(), loadMessages(locale, true)])
      if (this.dropped) return
      picker = this.picker ??= document.createElement('pay-method-picker')
      picker.messages = messages
      picker.dir = direction(locale)
      // Its words are in the shopper's language, not the merchant page's (screen readers voice them so).
      picker.lang = locale
      picker.setAttribute('exportparts', 'methods, method, method-note')
      picker.addEventListener('pay-change', (e) => void (e.detail.method && this.choose(e.detail.method)))
      this.root.prepend(picker)
      // The language changed while its words were on their way.
      if (this.locale !== asked) void this.speak(picker).catch(() => undefined)
    }
    picker.methods = methods as PayMethodPicker['methods']
    picker.locked = locked as PayMethodPicker['locked']
    picker.selected = (locked ?? (this.chosen || methods[0])) as PayMethodPicker['selected']
    this.choose(picker.selected)
  }

  private choose(method: string): void {
    if (method === this.chosen || this.dropped) return
    this.chosen = method
    const card = method === 'card' || method === 'saved-card'
    this.frame.hidden = !card
    if (card) {
      this.toFrame(method)
      // Dropped, not kept: chosen again later, it reads the session afresh (a QR code shown
      // before a card payment started is withdrawn by then).
      this.other?.remove()
      this.other = null
      return
    }
    if (!this.other) {
      const el = document.createElement('pay-checkout-inline')
      el.setAttribute('exportparts', PARTS)
      el.picker = false
      // What happens here (a QR payment under way) locks the picker too.
      el.addEventListener('methods-change', (e) => {
        const d = (e as CustomEvent<{ methods: string[]; method: string | null }>).detail
        void this.show(d.methods, d.method)
      })
      this.other = el
    }
    const el = this.other
    const host = this.host
    el.method = method as PayCheckoutInline['method']
    el.theme = host.theme
    el.locale = host.locale
    el.endpoint = host.endpoint
    el.session = host.session
    el.clientSecret = host.clientSecret
    // Beside the frame in this element's shadow root; a frame the page wrote is in the page's
    // own DOM, which stays the page's: the view goes after the slot that shows it.
    if (!el.isConnected) (this.frame.parentNode === this.root ? this.frame : this.root.querySelector('slot'))?.after(el)
  }
}
