/**
 * @module
 * The card frame's script (`/widget/frame.js`), for the page the Worker renders at `/frame/{id}`
 * (`worker/frame/page.ts`): the card form is already in that page's HTML, in the shopper's
 * language, and accepts typing before this runs. This script, with no Lit, takes it over: it
 * formats and checks what is typed (the rules of `shared/card-inputs.ts`, as the widget's card
 * form), reads the session when the page hands over the client secret, pays same-origin and tells
 * the page only what the page needs (`./messages.ts`). It talks only to its parent, whose origin
 * the frame's CSP (`frame-ancestors`) holds to the session's allowed origins.
 *
 * A card or a saved card is all it knows. A session whose way to pay is another one (a QR wallet
 * or an invoice alone) is handed to the full checkout (`./frame-page.ts`, through the element's
 * own file), which the page initialises again when it hears that frame's `loaded`.
 */
import { brandMarkSvg } from '../../shared/brand-marks.ts'
import { cvvLength, detectBrand, formatCardNumber, maxCardLength, type CardBrand } from '../../shared/card.ts'
import {
  BRAND_NAMES,
  brandOf,
  checkInput,
  checkInputs,
  collectInputs,
  ERROR_KEYS,
  formatExpiry,
  inputsFor,
  type InputSpec,
} from '../../shared/card-inputs.ts'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import type { FieldErrorCode } from '../../shared/errors.ts'
import { formatMessage } from '../../shared/i18n/icu.ts'
import type { MessageKey, Messages } from '../../shared/i18n/messages/en.ts'
import { FRAME_SCRIPTS } from '../../shared/frame-preload.ts'
import { formatMoney } from '../../shared/money.ts'
import { safeRedirect } from '../../shared/redirect.ts'
import { ApiClient, type ApiError, type CheckoutView, type PayResult } from '../api-client.ts'
import { callingCodes, countries } from '../card-form/lists.ts'
import {
  ERROR_MESSAGE,
  POLL_MAX,
  POLL_MS,
  STATUS_MESSAGE,
  stateOf,
  stateOfUnreadable,
  WATCHED,
  type CheckoutState,
} from '../inline/states.ts'
import { CHANNEL, parseParentMessage, type FrameToParent, type ParentToFrame } from './messages.ts'
import { parentOrigin } from './parent.ts'

declare global {
  interface Window {
    /** What the page said before this script ran, kept by the page's stub (`shared/frame-stub.ts`). */
    __payInbox?: MessageEvent[]
  }
}

type Outgoing = FrameToParent extends infer M ? (M extends { channel: string } ? Omit<M, 'channel'> : never) : never
type CardFlow = 'card' | 'saved-card'

// No parent, or an opaque one: nothing is shown (./parent.ts).
const pageOrigin = parentOrigin()
const sessionId = location.pathname.split('/').pop() ?? ''
const query = new URLSearchParams(location.search)
const shipping = query.get('shipping') === '1'
const lang = document.documentElement.lang || 'en'
/** An amount inside a sentence reads left to right in a right-to-left page too (as `isolateLtr` in ../i18n). */
const ltr = (text: string): string => (document.documentElement.dir === 'rtl' ? `\u2066${text}\u2069` : text)

const post = (message: Outgoing): void => {
  if (pageOrigin) window.parent.postMessage({ channel: CHANNEL, ...message }, pageOrigin)
}

const $ = <T extends Element>(root: ParentNode, selector: string): T | null => root.querySelector<T>(selector)
const make = (tag: string, cls: string, text = ''): HTMLElement => {
  const el = document.createElement(tag)
  el.className = cls
  el.textContent = text
  return el
}
const usesCard = (m: CheckoutFlow | '' | null | undefined): m is CardFlow => m === 'card' || m === 'saved-card'

const host = $<HTMLElement>(document, 'pay-checkout-inline')
const root = host?.shadowRoot
const formHost = root && $<HTMLElement>(root, 'pay-card-form')
const formRoot = formHost?.shadowRoot
const words = JSON.parse($(document, '#pay-words')?.textContent ?? '{}') as Messages
const say = (key: MessageKey, values: Record<string, string | number> = {}): string =>
  formatMessage(words[key] ?? '', values, lang)

if (!pageOrigin || !host || !root || !formHost || !formRoot) {
  document.body.textContent = 'This payment form can only be shown on the shop that created it.'
} else {
  const container = $<HTMLElement>(root, '.container') as HTMLElement
  const status = $<HTMLElement>(root, '.status') as HTMLElement
  let form = $<HTMLFormElement>(formRoot, 'form') as HTMLFormElement
  /** The form as the Worker wrote it: a new card's, every input empty. */
  const pristine = form.cloneNode(true) as HTMLFormElement

  let state: CheckoutState = 'loading'
  let view: CheckoutView | null = null
  let notice = ''
  /** The card method the page asked for; empty: the session's. */
  let method: CardFlow | '' = ''
  let mode: CardFlow = 'card'
  let api: ApiClient | null = null
  let inFlight = false
  let attemptKey: string | null = null
  /** The page that started the payment, as the page tells it ('' for none). */
  let startingPage = ''
  let pollTimer: ReturnType<typeof setTimeout> | undefined
  let polls = 0
  let loads = 0
  let started = false
  /** The flow the last `ready` was for; a session loaded with nothing to fill in says so once. */
  let announced = ''
  let fresh = false
  let ready: Outgoing | undefined
  let height = 0
  /** Errors shown, by input id: only after a field's blur, or after a submit. */
  let errors: Record<string, FieldErrorCode> = {}
  let lastChange = ''

  // ---- the form --------------------------------------------------------------------------------

  const specs = (): readonly InputSpec[] => inputsFor(mode, view?.customer ?? null, shipping)
  const control = (id: string) => $<HTMLInputElement | HTMLSelectElement>(form, `#${id}`)
  const values = (): Record<string, string> =>
    Object.fromEntries(specs().map((s) => [s.id, control(s.id)?.value ?? '']))
  /** A saved card's brand, else the typed number's (`values` read once by callers that have them). */
  const brand = (v = values()): CardBrand | undefined => brandOf(mode, v, view?.savedCard?.brand ?? null)

  /** Shows (or clears) an input's error, with what the input is described by. */
  function showError(id: string, code: FieldErrorCode | null): void {
    const input = control(id)
    const below = input?.closest('.field')?.querySelector('.below')
    if (!input || !below) return
    $(below, '.error')?.remove()
    if (code) {
      const p = make('p', 'error', say(ERROR_KEYS[code] ?? 'err_invalid'))
      p.id = `${id}-error`
      p.setAttribute('part', 'error')
      below.append(p)
      errors[id] = code
    } else {
      delete errors[id]
    }
    input.setAttribute('aria-invalid', code ? 'true' : 'false')
    const described = [$(below, '.hint') ? `${id}-hint` : '', code ? `${id}-error` : ''].filter(Boolean).join(' ')
    if (described) input.setAttribute('aria-describedby', described)
    else input.removeAttribute('aria-describedby')
  }

  /** The brand's mark in the card number, its length, and the CVV's hint. */
  function showBrand(): void {
    const b = brand()
    const number = control('number')
    if (number) {
      const place = number.parentElement as HTMLElement
      const mark = $<HTMLElement>(place, '.brand')
      if (mark?.dataset.brand !== (b ?? '')) {
        mark?.remove()
        if (b) {
          const span = make('span', 'brand')
          span.dataset.brand = b
          span.setAttribute('part', 'brand')
          span.setAttribute('role', 'img')
          span.setAttribute('aria-label', BRAND_NAMES[b])
          // Constant markup of our own (shared/brand-marks.ts): nothing the shopper typed.
          span.innerHTML = `<svg viewBox="0 0 32 20" width="32" height="20" aria-hidden="true">${brandMarkSvg(b)}</svg>`
          place.append(span)
        }
      }
      number.setAttribute('maxlength', String(maxCardLength(b) + 4))
    }
    const hint = $(form, '#cvv-hint')
    if (hint) hint.textContent = say('cvvHint', { n: cvvLength(b) })
  }

  /** Tells the page when validity or brand changed: never a value. */
  function reportChange(): void {
    const v = values()
    const b = brand(v) ?? null
    const valid = checkInputs(specs(), v, b ?? undefined).length === 0
    const key = `${valid}|${b}`
    if (key === lastChange) return
    lastChange = key
    post({ type: 'change', valid, brand: b })
  }

  /** The country and phone-code lists, in the shopper's language (after the form is ready). */
  function fillLists(): void {
    for (const [id, list] of [
      ['telnocc', callingCodes],
      ['country', countries],
    ] as const) {
      const select = control(id)
      if (!(select instanceof HTMLSelectElement) || select.options.length > 1) continue
      for (const c of list(lang)) select.append(new Option(c.label, c.value))
    }
  }

  /** Leaves only the inputs shown now (a customer the merchant already knows is not asked again). */
  function prune(f: HTMLFormElement): void {
    const shown = new Set(specs().map((s) => s.id))
    for (const field of f.querySelectorAll('.field'))
      if (!shown.has(field.querySelector('input, select')?.id ?? '')) field.remove()
    for (const group of f.querySelectorAll('.row, fieldset')) if (!group.querySelector('.field')) group.remove()
  }

  /** The form for another card method (a new card, or a saved card's CVV): empty, as the widget's is. */
  function rebuild(): void {
    const f = pristine.cloneNode(true) as HTMLFormElement
    if (mode === 'saved-card') {
      const cvv = f.querySelector('#cvv')?.closest('.field')
      if (cvv) f.prepend(cvv)
    }
    prune(f)
    form.replaceWith(f)
    form = f
    errors = {}
    lastChange = ''
    fillLists()
    showBrand()
  }

  function onInput(e: Event): void {
    const input = e.target as HTMLInputElement
    const id = input.id
    let value = input.value
    if (id === 'number') value = formatCardNumber(value).slice(0, maxCardLength(detectBrand(value)) + 4)
    if (id === 'expiry') value = (e as InputEvent).inputType?.startsWith('delete') ? value : formatExpiry(value)
    if (id === 'cvv') value = value.replace(/\D/g, '').slice(0, 4)
    if (value !== input.value) input.value = value
    if (id === 'number') showBrand()
    // Errors already shown update as the shopper fixes them; new ones wait for blur or submit.
    const s = specs().find((x) => x.id === id)
    if (s && errors[id]) {
      const v = values()
      showError(id, checkInput(s, v, brand(v)))
    }
    reportChange()
  }

  function onBlur(e: Event): void {
    const id = (e.target as HTMLElement).id
    const s = specs().find((x) => x.id === id)
    if (!s) return
    const value = control(id)?.value ?? ''
    const v = values()
    showError(id, value === '' && !errors[id] ? null : checkInput(s, v, brand(v)))
  }

  function onSubmit(e: Event): void {
    e.preventDefault()
    const button = $<HTMLButtonElement>(form, 'button[type=submit]')
    if (button?.disabled) return
    // Browsers autofill by setting values without input events on some paths: formatted here.
    const number = control('number')
    if (number) number.value = formatCardNumber(number.value)
    const expiry = control('expiry')
    if (expiry) expiry.value = formatExpiry(expiry.value)
    showBrand()
    const all = specs()
    const now = values()
    const b = brand(now)
    let first: HTMLElement | null = null
    for (const s of all) {
      const code = checkInput(s, now, b)
      showError(s.id, code)
      if (code) first ??= control(s.id)
    }
    if (first) return first.focus()
    void pay(collectInputs(all, now))
  }

  formRoot.addEventListener('input', onInput)
  formRoot.addEventListener('change', (e) => (e.target instanceof HTMLSelectElement ? onInput(e) : undefined))
  formRoot.addEventListener('focusout', onBlur)
  formRoot.addEventListener('submit', onSubmit)

  // ---- what the checkout shows -------------------------------------------------------------------

  /** The method shown: the one under way or done, else the one asked for, else the session's first (a card one, in a session with several). */
  function current(v = view): CheckoutFlow {
    if (!v) return method || 'card'
    const methods = v.methods ?? [v.flow]
    const here = (m: CheckoutFlow | '' | null | undefined): m is CheckoutFlow =>
      !!m && methods.includes(m) && (methods.length < 2 || usesCard(m))
    return [v.method, method, ...methods].find(here) ?? 'card'
  }

  function render(): void {
    const flow = current()
    const wanted: CardFlow = usesCard(flow) ? flow : 'card'
    if (wanted !== mode) {
      mode = wanted
      rebuild()
    } else {
      prune(form)
    }
    const busy = state === 'submitting' || (state === 'loading' && !!view)
    container.setAttribute('aria-busy', busy || state === 'loading' ? 'true' : 'false')

    const head = make('div', 'head')
    if (view) {
      if (!view.setup) {
        const amount = make('p', 'amount', formatMoney(view.amount, view.currency, lang))
        amount.setAttribute('part', 'amount')
        amount.dir = 'ltr'
        head.append(amount)
      }
      if (view.testMode) {
        const badge = make('span', 'badge', say('testMode'))
        badge.setAttribute('part', 'badge')
        head.append(badge)
      }
    }
    // Replaced only when it changed, and the status too: a live region re-written with the same
    // words would be read out again.
    const shown = $(root as ShadowRoot, '.head')
    if (shown?.outerHTML !== (view ? head.outerHTML : undefined)) {
      shown?.remove()
      if (view) container.prepend(head)
    }
    const key = STATUS_MESSAGE[state]
    const said = notice || (key ? say(key === 'succeeded' && view?.setup ? 'cardSaved' : key) : '')
    status.className = `status ${state}`
    if (status.textContent !== said || !status.querySelector('.spinner') !== !busy) {
      status.textContent = said
      if (busy) status.prepend(make('span', 'spinner'))
      status.querySelector('.spinner')?.setAttribute('aria-hidden', 'true')
    }

    const payable = state === 'ready' || state === 'submitting' || state === 'loading'
    const saved = payable && mode === 'saved-card' ? view?.savedCard : undefined
    const words = saved ? say('savedCard', { last4: saved.last4 }) : ''
    let place = $<HTMLElement>(root as ShadowRoot, '.saved')
    if (place?.textContent !== words || !saved) {
      place?.remove()
      place = saved ? make('p', 'saved', words) : null
      if (place) status.after(place)
    }
    // Moved only when out of place: moving it would take the focus from the shopper's input.
    const anchor = place ?? status
    if (!payable) formHost?.remove()
    else if (anchor.nextElementSibling !== formHost) anchor.after(formHost as HTMLElement)
    const button = $<HTMLButtonElement>(form, 'button[type=submit]')
    if (button) {
      const disabled = !view || state === 'submitting'
      button.disabled = disabled
      button.setAttribute('aria-disabled', String(disabled))
      button.textContent = view?.setup
        ? say('saveCard')
        : view
          ? say('pay', { amount: ltr(formatMoney(view.amount, view.currency, lang)) })
          : say('payNoAmount')
      if (state === 'submitting') button.prepend(make('span', 'spinner'))
      button.querySelector('.spinner')?.setAttribute('aria-hidden', 'true')
    }

    $(root as ShadowRoot, 'button[part=retry]')?.remove()
    if (state === 'error') {
      const retry = make('button', 'secondary', say('tryAgain'))
      retry.setAttribute('part', 'retry')
      retry.addEventListener('click', reset)
      container.append(retry)
    }

    // Ready once the inputs are in the document and accept typing (the form is, before the
    // session answers); a session with nothing to fill in is announced once, with its status.
    if (payable) {
      fresh = false
      if (announced !== flow) {
        announced = flow
        post((ready = { type: 'ready', flow, status: view?.status ?? 'loading' }))
      }
    } else if (view && fresh) {
      fresh = false
      post((ready = { type: 'ready', flow, status: view.status }))
    }
  }

  // ---- the session and the pay -------------------------------------------------------------------

  function announceMethods(): void {
    if (view) post({ type: 'methods', methods: [...(view.methods ?? [view.flow])], method: view.method ?? null })
  }

  const result = (
    status: string,
    paymentId: string | null | undefined,
    card: { brand?: CardBrand; last4?: string } | null | undefined,
    attemptsRemaining: number | null = null,
  ): void =>
    post({
      type: 'result',
      status,
      paymentId: paymentId ?? null,
      brand: card?.brand ?? null,
      last4: card?.last4 ?? null,
      attemptsRemaining,
    })

  const error = (e: Pick<ApiError, 'code' | 'message' | 'fields'>): void =>
    post({
      type: 'error',
      code: e.code,
      message: e.message.slice(0, 500),
      fields: (e.fields ?? []).map((f) => ({ field: f.field, code: f.code })),
    })

  /** A way to pay this script does not show: the full checkout takes the frame over. */
  function handOver(): void {
    window.removeEventListener('message', onMessage)
    if (inbox) inbox.push = () => 0
    observer.disconnect()
    clearTimeout(pollTimer)
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

  async function load(): Promise<void> {
    const n = ++loads
    state = 'loading'
    notice = ''
    render()
    const v = await (api as ApiClient).view()
    if (n !== loads) return
    if (!v.ok) return fail(v.error)
    if (!usesCard(current(v.value))) return handOver()
    fresh = true
    applyView(v.value)
  }

  function applyView(v: CheckoutView): void {
    view = v
    announceMethods()
    state = stateOf(v)
    if (WATCHED.includes(state)) poll()
    render()
    if (state === 'succeeded') result('succeeded', v.result?.paymentId, v.result?.card)
  }

  function fail(e: ApiError): void {
    const code = e.status === 0 ? 'network_error' : e.code
    state = stateOfUnreadable(code)
    notice = state === 'blocked' || state === 'error' ? say(ERROR_MESSAGE[code] ?? 'error') : ''
    inFlight = false
    render()
    error({ ...e, code: code as ApiError['code'] })
  }

  function poll(): void {
    clearTimeout(pollTimer)
    if (polls >= POLL_MAX || !api) return
    pollTimer = setTimeout(async () => {
      polls += 1
      const v = await api?.view()
      if (!v?.ok || v.value.status === view?.status) return poll()
      applyView(v.value)
      if (v.value.status === 'declined' || v.value.status === 'failed')
        result('declined', v.value.result?.paymentId, v.value.result?.card, v.value.attemptsRemaining)
    }, POLL_MS)
  }

  async function pay(fields: Record<string, string>): Promise<void> {
    if (inFlight || !api || !view) return
    inFlight = true
    state = 'submitting'
    notice = ''
    attemptKey ??= crypto.randomUUID()
    const flow = current()
    render()
    post({ type: 'submitted', flow })
    let r = await api.pay(startingPage ? { ...fields, returnPage: startingPage } : fields, attemptKey)
    // A Worker of an earlier release knows no such field, and a page it will not link to is no
    // reason to stop the payment: once more without it, with the same key (nothing ran).
    if (startingPage && !r.ok && r.error.status === 400 && r.error.fields?.some((f) => f.field === 'returnPage'))
      r = await api.pay(fields, attemptKey)
    inFlight = false
    if (!r.ok && r.error.status === 0) {
      // No answer: the same key is sent again on retry, so the charge cannot happen twice.
      state = 'ready'
      notice = say('networkError')
      render()
      return error({ code: 'network_error', message: r.error.message, fields: [] })
    }
    attemptKey = null
    if (!r.ok) return refuse(r.error)
    settle(r.value, flow)
  }

  /** The Worker refused the attempt: the form stays as the shopper left it, unless the session is over. */
  function refuse(e: ApiError): void {
    const code: string = e.code
    if (code === 'method_in_progress' || code === 'qr_withdrawn')
      void api?.view().then((v) => v.ok && applyView(v.value))
    if (code === 'session_expired') state = 'expired'
    else if (code === 'session_completed') state = 'succeeded'
    else if (code === 'too_many_attempts' && (view?.attemptsRemaining ?? 0) <= 0) state = 'declined'
    else state = 'ready'
    notice = state === 'ready' ? say(ERROR_MESSAGE[code] ?? 'error') : ''
    render()
    error(e)
  }

  function settle(r: PayResult, flow: CheckoutFlow): void {
    const holds = r.status !== 'declined' && r.status !== 'failed'
    if (view) view = { ...view, attemptsRemaining: r.attemptsRemaining, method: holds ? flow : view.method }
    announceMethods()
    switch (r.status) {
      case 'succeeded':
        state = 'succeeded'
        render()
        return result('succeeded', r.paymentId, r.card)
      case 'declined':
      case 'failed': {
        const left = r.attemptsRemaining
        state = left > 0 ? 'ready' : 'declined'
        notice = left > 0 ? say('declinedRetry', { n: left }) : ''
        const cvv = control('cvv')
        if (cvv) cvv.value = ''
        showError('cvv', null)
        lastChange = ''
        render()
        return result('declined', r.paymentId, r.card, left)
      }
      case 'pending':
      case 'unknown':
        state = r.status
        render()
        result(r.status, r.paymentId, r.card)
        return poll()
      case 'action_required': {
        state = 'action_required'
        render()
        // 3-D Secure needs the top window: the page does it. Only a redirect that passes the
        // shared rule leaves the frame (SECURITY.md R28); the page checks again.
        const safe = r.redirect && safeRedirect(r.redirect)
        if (safe) {
          post({
            type: 'action',
            redirect: {
              url: safe.url,
              ...(safe.method ? { method: safe.method } : {}),
              parameters: safe.parameters.map((p) => ({ name: p.name, value: p.value })),
            },
          })
        } else if (r.redirect) {
          state = 'unknown'
          render()
          result('unknown', null, null)
          poll()
        }
        return
      }
    }
  }

  function reset(): void {
    rebuild()
    notice = ''
    attemptKey = null
    if (state === 'error' || state === 'declined') {
      if (api) void load()
    } else {
      render()
    }
  }

  // ---- the page --------------------------------------------------------------------------------

  function start(m: Extract<ParentToFrame, { type: 'init' }>): void {
    // The page asks for another language or the shipping address: the Worker renders that form.
    const l = query.get('locale') ?? ''
    if ((m.locale !== l && m.locale.toLowerCase() !== lang.toLowerCase()) || m.collectShipping !== shipping) {
      const q = new URLSearchParams(query)
      q.set('locale', m.locale)
      if (m.collectShipping) q.set('shipping', '1')
      else q.delete('shipping')
      if (`?${q}` !== location.search) return location.replace(`${location.pathname}?${q}`)
    }
    started = true
    ;(host as HTMLElement).setAttribute('theme', m.theme)
    // Set through the CSSOM (allowed by the frame's CSP), values already checked.
    for (const [name, value] of Object.entries(m.style)) (host as HTMLElement).style.setProperty(name, value)
    api = new ApiClient(location.origin, sessionId, m.clientSecret)
    void load()
    if (ready) post(ready)
    if (height) post({ type: 'resize', height })
  }

  function onMessage(e: MessageEvent): void {
    if (e.source !== window.parent || e.origin !== pageOrigin) return
    const m = parseParentMessage(e.data)
    if (!m) return
    if (m.type === 'init' && !started) start(m)
    else if (m.type === 'page') startingPage = m.page
    else if (m.type === 'submit') form.requestSubmit()
    else if (m.type === 'reset') reset()
    else if (m.type === 'method' && m.method !== method) {
      method = m.method
      if (view && api) {
        notice = ''
        attemptKey = null
        render()
        void api.view().then((v) => v.ok && method === m.method && applyView(v.value))
      }
    }
  }
  // The stub written after the form already said `loaded` and `ready` (a card, loading), and kept
  // what the page said since: read it, then take the box over. Without a stub, this says it all.
  const inbox = window.__payInbox
  if (inbox) {
    announced = 'card'
    ready = { type: 'ready', flow: 'card', status: 'loading' }
    for (const e of inbox.splice(0)) onMessage(e)
    inbox.push = (e: MessageEvent) => (onMessage(e), 0)
  } else {
    window.addEventListener('message', onMessage)
  }

  // The height of the checkout itself, not of the document (which is at least as tall as the frame).
  const observer = new ResizeObserver(() => {
    const h = Math.ceil((host as HTMLElement).getBoundingClientRect().height)
    if (h !== height) post({ type: 'resize', height: (height = h) })
  })
  observer.observe(host)
  if (!inbox) post({ type: 'loaded' })
  render()
  // What the shopper typed before this script ran stays, formatted and told as if typed now.
  const typed = control('number')
  if (typed?.value) typed.value = formatCardNumber(typed.value)
  const expiry = control('expiry')
  if (expiry?.value) expiry.value = formatExpiry(expiry.value)
  showBrand()
  if (Object.values(values()).some(Boolean)) reportChange()
  // The lists (about 500 names from Intl, sorted) after this task: the page hears `ready` first (a
  // same-site page shares this frame's thread).
  setTimeout(fillLists)
}
