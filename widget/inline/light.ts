/**
 * @module
 * The light inline form: `<pay-checkout isolation="inline">` for a card or a saved card, without
 * Lit. The card form's markup (`shared/card-markup.ts`, which the Worker writes into the card
 * frame too) goes into the element, and the card flow the frame runs (`../card-frame/card-flow.ts`)
 * takes it over. What the flow says reaches the element as the frame's messages do, by a call
 * instead of `postMessage`, so both modes turn the same messages into the same events.
 *
 * A session that offers another way to pay, or several (the picker), is handed to the full inline
 * checkout (`./pay-checkout-inline.ts`, Lit), which the element loads then.
 *
 * Its two boxes are elements of their own names, never defined: the full checkout's tags may be
 * defined on the same page (another element showing a QR wallet), and defining them would
 * upgrade these boxes.
 */
import { CARD_SHEETS, cardFormMarkup } from '../../shared/card-markup.ts'
import { ApiClient, type ApiError } from '../api-client.ts'
import { startCardFlow, type CardFlow } from '../card-frame/card-flow.ts'
import type { FrameSays } from '../card-frame/messages.ts'
import type { SafeRedirect } from '../../shared/redirect.ts'
import { trustedHtml } from '../card-frame/trusted.ts'
import { direction, loadMessages, resolveLocale } from '../i18n/index.ts'

/** The light form's box in the element, and the form's box in it. */
const LIGHT_TAG = 'pay-card-inline'
const FORM_TAG = 'pay-card-fields'
/** The parts the light form shows, exported through the element that holds it. */
const PARTS = 'container, amount, badge, status, form, field, input, error, brand, submit, retry'
const FORM_PARTS = 'form, field, input, error, brand, submit'

let sheets: CSSStyleSheet[] | undefined
/** Constructed style sheets, which a page's `style-src` allows where a `<style>` would not be. */
const styleSheets = (): CSSStyleSheet[] =>
  (sheets ??= CARD_SHEETS.map((text) => {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(text)
    return sheet
  }))

export interface LightOptions {
  /** As the element has it ('' for the browser's languages). */
  readonly locale: string
  readonly theme: string
  readonly shipping: boolean
  readonly endpoint: string
  readonly session: string
  readonly clientSecret: string
  /** What the flow says (the element turns it into events). */
  readonly say: (message: FrameSays) => void
  /** A session this form does not show: the full checkout takes over. */
  readonly handOver: () => void
  /** This page, for the link back after 3-D Secure ('' for none), read at each pay. */
  readonly page: () => string
  /**
   * The element's own helpers, which it holds anyway, handed in so this file does not carry
   * copies: what a request without an answer means, and the redirect rule.
   */
  readonly unanswered: (error: ApiError) => Promise<ApiError>
  readonly safeRedirect: (value: unknown) => SafeRedirect | undefined
}

export interface LightForm {
  /** The box to put in the element; `start` once it is in the document. */
  readonly el: HTMLElement
  start(): CardFlow | null
  /**
   * The element left the page (a framework may put it back, with what the shopper typed): the
   * session is not read until `resume`, when a payment still settling is read again.
   */
  pause(): void
  resume(): void
}

/** The language the form shows for the element's `locale` ('' for the browser's languages). */
export const langOf = (locale: string): string => resolveLocale(locale ? [locale] : navigator.languages)

/** The form in the shopper's language (its words loaded first), ready to be put in the element. */
export async function lightForm(o: LightOptions): Promise<LightForm> {
  const lang = langOf(o.locale)
  const words = await loadMessages(lang)
  const dir = direction(lang)
  const [checkoutSheet, formSheet] = styleSheets()
  const el = document.createElement(LIGHT_TAG)
  el.setAttribute('theme', o.theme)
  el.setAttribute('exportparts', PARTS)
  const root = el.attachShadow({ mode: 'open' })
  root.adoptedStyleSheets = checkoutSheet ? [checkoutSheet] : []
  const container = document.createElement('div')
  container.className = 'container'
  container.setAttribute('part', 'container')
  container.lang = lang
  container.dir = dir
  container.setAttribute('aria-busy', 'true')
  const status = document.createElement('p')
  status.className = 'status loading'
  status.setAttribute('part', 'status')
  status.setAttribute('role', 'status')
  status.setAttribute('aria-live', 'polite')
  const box = document.createElement(FORM_TAG)
  box.setAttribute('exportparts', FORM_PARTS)
  // As the widget's card form: focusing the box focuses its first input.
  const formRoot = box.attachShadow({ mode: 'open', delegatesFocus: true })
  formRoot.adoptedStyleSheets = formSheet ? [formSheet] : []
  // Markup of our own from the field table and the locale's words, escaped: nothing the shopper typed.
  formRoot.innerHTML = trustedHtml(cardFormMarkup(words, lang, o.shipping))
  container.append(status, box)
  root.append(container)
  // The flow reads the session through this client; away from the page, a read waits for the return.
  let away: { readonly back: Promise<void>; readonly resolve: () => void } | null = null
  class Client extends ApiClient {
    override async view(): ReturnType<ApiClient['view']> {
      while (away) await away.back
      return super.view()
    }
  }
  return {
    el,
    pause(): void {
      if (away) return
      let resolve = (): void => undefined
      const back = new Promise<void>((r) => (resolve = r))
      away = { back, resolve }
    },
    resume(): void {
      const was = away
      away = null
      was?.resolve()
    },
    start(): CardFlow | null {
      const flow = startCardFlow({
        host: el,
        lang,
        dir,
        words,
        shipping: o.shipping,
        post: o.say,
        handOver: o.handOver,
        formTag: FORM_TAG,
        cardOnly: true,
        unanswered: o.unanswered,
        page: o.page,
        html: trustedHtml,
        safeRedirect: o.safeRedirect,
      })
      flow?.begin(new Client(o.endpoint, o.session, o.clientSecret))
      return flow
    },
  }
}
