/**
 * @module
 * The card frame's script (`/widget/frame.js`), for the page the Worker renders at `/frame/{id}`
 * (`worker/frame/page.ts`): the card form is already in that page's HTML, in the shopper's
 * language, and accepts typing before this runs. This script, with no Lit, takes it over with the
 * card flow (`./card-flow.ts`: formats, checks, reads the session when the page hands over the
 * client secret, pays same-origin) and tells the page only what the page needs (`./messages.ts`).
 * It talks only to its parent, whose origin the frame's CSP (`frame-ancestors`) holds to the
 * session's allowed origins.
 *
 * A session whose way to pay is not a card (a QR wallet or an invoice alone) is handed to the full
 * checkout (`./frame-page.ts`, through the element's own file), which the page initialises again
 * when it hears that frame's `loaded`.
 */
import type { Messages } from '../../shared/i18n/messages/en.ts'
import { FRAME_SCRIPTS } from '../../shared/frame-preload.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import { ApiClient } from '../api-client.ts'
import { startCardFlow, type CardFlow } from './card-flow.ts'
import { CHANNEL, type FrameSays, type ParentToFrame } from './messages.ts'
import { parseParentMessage } from './page-says.ts'
import { parentOrigin } from './parent.ts'

declare global {
  interface Window {
    /** What the page said before this script ran, kept by the page's stub (`shared/frame-stub.ts`). */
    __payInbox?: MessageEvent[]
  }
}

// No parent, or an opaque one: nothing is shown (./parent.ts).
const pageOrigin = parentOrigin()
const sessionId = location.pathname.split('/').pop() ?? ''
const query = new URLSearchParams(location.search)
const shipping = query.get('shipping') === '1'
const lang = document.documentElement.lang || 'en'

type Init = Extract<ParentToFrame, { type: 'init' }>
/**
 * A pay is on its way: from the flow's `submitted` until its answer is told (`result`, `error`,
 * or the bank's step: `action`).
 */
let busy = false
/** A new language or shipping choice the page asked for meanwhile (`start`). */
let later: Init | undefined

const post = (message: FrameSays): void => {
  if (pageOrigin) window.parent.postMessage({ channel: CHANNEL, ...message }, pageOrigin)
  if (message.type === 'submitted') busy = true
  else if (message.type === 'result' || message.type === 'error' || message.type === 'action') busy = false
  // The pay's answer is told: the form asked for meanwhile is made now.
  if (later && !busy) {
    const m = later
    later = undefined
    start(m)
  }
}

const host = document.querySelector<HTMLElement>('pay-checkout-inline')
// The stub written after the form already said `loaded` and `ready` (a card, loading), and kept
// what the page said since: read it, then take the box over. Without a stub, this says it all.
const inbox = window.__payInbox
let height = 0
let started = false

/** A way to pay this script does not show: the full checkout takes the frame over. */
function handOver(): void {
  window.removeEventListener('message', onMessage)
  if (inbox) inbox.push = () => 0
  observer?.disconnect()
  document.querySelector('pay-checkout')?.remove()
  for (const href of FRAME_SCRIPTS) {
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
  // The element's own file, which in this page runs `./frame-page.ts`.
  void import(/* @vite-ignore */ FRAME_SCRIPTS[0] as string)
}

// Without a stub, `loaded` goes first, before the flow's first render says `ready`.
if (pageOrigin && host && !inbox) post({ type: 'loaded' })
const flow: CardFlow | null =
  pageOrigin && host
    ? startCardFlow({
        host,
        lang,
        dir: document.documentElement.dir,
        words: JSON.parse(document.querySelector('#pay-words')?.textContent ?? '{}') as Partial<Messages>,
        shipping,
        post,
        handOver,
        announced: Boolean(inbox),
        safeRedirect,
      })
    : null

/**
 * The page's init, and again whenever the page's language, theme or shipping choice changes (the
 * session and its secret stay: another is another frame).
 */
function start(m: Init): void {
  // The page asks for another language or the shipping address: the Worker renders that form.
  // What was typed is not kept, as inline mode's form made again keeps nothing. Not while a pay
  // is on its way: its answer is told here first (a 3-D Secure step followed), then the form is
  // made again, and reads the session (paid, it says so in the new language: the page's element
  // tells no event twice).
  later = undefined
  const l = query.get('locale') ?? ''
  if ((m.locale !== l && m.locale.toLowerCase() !== lang.toLowerCase()) || m.collectShipping !== shipping) {
    const q = new URLSearchParams(query)
    q.set('locale', m.locale)
    q.set('theme', m.theme)
    if (m.collectShipping) q.set('shipping', '1')
    else q.delete('shipping')
    // Referred by itself, the frame loaded again finds its page by this where the browser has no
    // `ancestorOrigins` (./parent.ts).
    q.set('o', pageOrigin as string)
    if (busy) later = m
    else if (`?${q}` !== location.search) return location.replace(`${location.pathname}?${q}`)
  }
  const box = host as HTMLElement
  box.setAttribute('theme', m.theme)
  // Set through the CSSOM (allowed by the frame's CSP), values already checked; the page's
  // values replace those it sent before.
  box.style.cssText = ''
  for (const [name, value] of Object.entries(m.style)) box.style.setProperty(name, value)
  if (!started) {
    started = true
    flow?.begin(new ApiClient(location.origin, sessionId, m.clientSecret))
  }
  // Said at each init, so the page knows the frame heard it (one that said `ready` before hears
  // the same again, which fires nothing).
  if (flow?.ready) post(flow.ready)
  if (height) post({ type: 'resize', height })
}

function onMessage(e: MessageEvent): void {
  if (e.source !== window.parent || e.origin !== pageOrigin) return
  const m = parseParentMessage(e.data)
  if (!m) return
  if (m.type === 'init') start(m)
  else flow?.receive(m)
}

// The height of the checkout itself, not of the document (which is at least as tall as the frame).
const observer = flow
  ? new ResizeObserver(() => {
      const h = Math.ceil((host as HTMLElement).getBoundingClientRect().height)
      if (h !== height) post({ type: 'resize', height: (height = h) })
    })
  : null

if (!flow) {
  document.body.textContent = 'This payment form can only be shown on the shop that created it.'
} else {
  if (inbox) {
    for (const e of inbox.splice(0)) onMessage(e)
    inbox.push = (e: MessageEvent) => (onMessage(e), 0)
  } else {
    window.addEventListener('message', onMessage)
  }
  observer?.observe(host as HTMLElement)
}
