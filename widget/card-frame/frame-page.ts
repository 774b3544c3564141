/**
 * @module
 * The card frame's page script (`/widget/chunks/frame-page.js`, loaded by `/widget/pay-checkout.js`
 * in the page the Worker serves at `/frame/{sessionId}`, which is marked `data-pay-frame`).
 * It runs the inline checkout (`<pay-checkout-inline>`) on the Worker's origin, so card data never
 * exists in the merchant page's DOM; it pays same-origin and tells the parent only what the parent
 * needs. It talks only to its parent, whose origin the frame's CSP (`frame-ancestors`) holds to the
 * session's allowed origins, with exact target origins.
 *
 * Render first: the form is put in the page as soon as this script runs (locale, theme and the
 * shipping choice come in the frame's URL query: nothing secret), and the session is read as soon
 * as the parent hands over the client secret (it posts `init` when it hears `loaded`, or at the
 * frame's `load` event, whichever is first: the secret never travels in a URL).
 */
import '../inline/pay-checkout-inline.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import type { PayCheckoutInline } from '../inline/pay-checkout-inline.ts'
import { CHANNEL, type FrameSays } from './messages.ts'
import { parseParentMessage } from './page-says.ts'
import { parentOrigin } from './parent.ts'

// No parent, or an opaque one: nothing is shown (./parent.ts).
const pageOrigin = parentOrigin()
const sessionId = location.pathname.split('/').pop() ?? ''
const query = new URLSearchParams(location.search)

function post(message: FrameSays): void {
  if (pageOrigin) window.parent.postMessage({ channel: CHANNEL, ...message }, pageOrigin)
}

document.documentElement.style.background = 'transparent'
document.body.style.margin = '0'

if (!pageOrigin) {
  document.body.textContent = 'This payment form can only be shown on the shop that created it.'
} else {
  const el = document.createElement('pay-checkout-inline') as PayCheckoutInline
  const theme = query.get('theme')
  el.theme = theme === 'dark' || theme === 'auto' ? theme : 'light'
  // The document's lang and dir come with the page: the Worker resolves this same locale.
  el.locale = (query.get('locale') ?? '').slice(0, 35)
  el.collectShipping = query.get('shipping') === '1'
  // Known before the secret: the form renders and says it is ready at once; the session is read
  // when the client secret arrives. Same origin: no preflight.
  el.endpoint = location.origin
  el.session = sessionId
  // A session with several methods: the page's element shows the picker and the other methods;
  // this frame shows the card form only.
  el.picker = false
  el.only = 'card'
  // The page that started a payment is the merchant's, which the host tells (a `page` message),
  // never this frame's own: without one, none is sent.
  el.startingPage = ''
  let started = false
  // What this frame last said about itself: said again at the init, for a parent that was not
  // listening yet (the declarative embed: this frame can load before the page's element exists).
  let ready: FrameSays | undefined
  let height = 0
  window.addEventListener('message', (e: MessageEvent) => {
    if (e.source !== window.parent || e.origin !== pageOrigin) return
    const m = parseParentMessage(e.data)
    if (!m) return
    if (m.type === 'init') {
      // Again whenever the page's language, theme or shipping choice changes: the checkout follows.
      el.locale = m.locale
      el.theme = m.theme
      el.collectShipping = m.collectShipping
      // Set through the CSSOM (allowed by the frame's style-src 'self'), values already checked;
      // the page's values replace those it sent before.
      el.style.cssText = ''
      for (const [name, value] of Object.entries(m.style)) el.style.setProperty(name, value)
      if (!started) {
        started = true
        // Inside the frame the checkout is inline: this page is the isolation.
        el.clientSecret = m.clientSecret
      }
      // Said at each init, so the page knows the frame heard it (the same `ready` fires nothing).
      if (ready) post(ready)
      if (height) post({ type: 'resize', height })
    } else if (m.type === 'page') {
      el.startingPage = m.page
    } else if (m.type === 'submit') {
      el.submit()
    } else if (m.type === 'reset') {
      el.reset()
    } else if (m.type === 'method') {
      el.method = m.method
    }
  })
  el.addEventListener('pay-ready', (e) =>
    post((ready = { type: 'ready', flow: e.detail.flow, status: e.detail.status })),
  )
  el.addEventListener('pay-change', (e) => post({ type: 'change', valid: e.detail.valid, brand: e.detail.brand }))
  el.addEventListener('pay-submit', (e) => post({ type: 'submitted', flow: e.detail.flow }))
  el.addEventListener('methods-change', (e) => {
    const d = (e as CustomEvent<{ methods: string[]; method: string | null }>).detail
    post({ type: 'methods', methods: [...d.methods], method: d.method })
  })
  for (const type of ['pay-success', 'pay-pending', 'pay-declined'] as const) {
    el.addEventListener(type, (e) => {
      const d = e.detail as {
        status: string
        paymentId: string | null
        brand: string | null
        last4: string | null
        attemptsRemaining?: number
      }
      post({
        type: 'result',
        status: d.status,
        paymentId: d.paymentId,
        brand: d.brand,
        last4: d.last4,
        attemptsRemaining: d.attemptsRemaining ?? null,
      })
    })
  }
  el.addEventListener('pay-error', (e) =>
    post({
      type: 'error',
      code: e.detail.code,
      message: e.detail.message.slice(0, 500),
      fields: e.detail.fields.map((f) => ({ field: f.field, code: f.code })),
    }),
  )
  // 3-D Secure needs the top window: the parent, which is the top window, does it.
  // Only a redirect that passes the shared rule leaves the frame (SECURITY.md R28); the parent
  // checks again before it navigates.
  el.addEventListener('pay-action', (e) => {
    e.preventDefault()
    const r = safeRedirect(e.detail.redirect)
    if (!r) return
    post({
      type: 'action',
      redirect: {
        url: r.url,
        ...(r.method ? { method: r.method } : {}),
        parameters: r.parameters.map((p) => ({ name: p.name, value: p.value })),
      },
    })
  })
  // Inside a plain <pay-checkout> container (no element is defined by that name in the frame):
  // what reaches into the frame finds the form under the same name as on the page.
  const container = document.createElement('pay-checkout')
  container.style.display = 'block'
  container.append(el)
  document.body.append(container)
  // The height of the checkout itself, not of the document: the document is at least as tall as
  // the frame, so measuring it would let the frame grow but never shrink.
  new ResizeObserver(() => {
    const h = Math.ceil(el.getBoundingClientRect().height)
    if (h !== height) post({ type: 'resize', height: (height = h) })
  }).observe(el)
  post({ type: 'loaded' })
}
