/**
 * @module
 * The card form's behaviour, without Lit, over markup already in the document: the card frame's,
 * which the Worker rendered (`./frame.ts`), or the same markup that the light inline form writes
 * into the element (`../inline/light.ts`). It formats and checks what is typed (the rules of
 * `shared/card-inputs.ts`, as the widget's card form), reads the session once it has the client
 * secret, pays, and says what happened as the frame's messages (`./messages.ts`): the frame posts
 * them to the page, and the inline element hears them directly, so the element turns both into
 * the same events.
 *
 * A card or a saved card is all it knows. A session whose way to pay is another one (a QR wallet
 * or an invoice alone) is handed to the full checkout (`handOver`).
 */
import { brandMarkSvg } from '../../shared/brand-marks.ts'
import { cvvLength, formatCardNumber, type CardBrand } from '../../shared/card.ts'
import {
  BRAND_NAMES,
  brandOf,
  checkInput,
  collectInputs,
  errorKey,
  formatExpiry,
  inputsFor,
  refusedInputs,
  type InputSpec,
} from '../../shared/card-inputs.ts'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import type { FieldError, FieldErrorCode } from '../../shared/errors.ts'
import { formatMessage } from '../../shared/i18n/icu.ts'
import type { MessageKey, Messages } from '../../shared/i18n/messages/en.ts'
import { formatMoney } from '../../shared/money.ts'
import type { SafeRedirect } from '../../shared/redirect.ts'
import { NOT_MADE, type ApiClient, type ApiError, type CheckoutView, type PayResult } from '../api-client.ts'
import { focusDropped, retype } from '../card-form/editing.ts'
import { keepTyped, takeTyped } from '../card-form/kept.ts'
import { callingCodes, countries, splitPhone } from '../card-form/lists.ts'
import {
  cardDeclined,
  ERROR_MESSAGE,
  foundNotMade,
  pendingAs,
  POLL_MAX,
  POLL_MS,
  POLL_SLOW_MS,
  READ_AGAIN,
  saysNothing,
  SLOW_PAY_MS,
  STATUS_MESSAGE,
  stateOf,
  stateOfRefused,
  stateOfUnreadable,
  WATCHED,
  type CheckoutState,
} from '../inline/states.ts'
import type { FrameSays, PageSays } from './messages.ts'

type CardMethod = 'card' | 'saved-card'

export interface CardFlowOptions {
  /**
   * The box, shaped as `<pay-checkout-inline>` renders it: its shadow root holds `.container`,
   * `.status` and `<pay-card-form>`, whose own shadow root holds the form.
   */
  readonly host: HTMLElement
  /** The resolved locale and its direction, as the markup was written in. */
  readonly lang: string
  readonly dir: string
  /** The words the flow says later (statuses, errors, the pay button), in that locale. */
  readonly words: Partial<Messages>
  readonly shipping: boolean
  /** Says something to the page: never a card number or a CVV. */
  readonly post: (message: FrameSays) => void
  /** A session this flow does not show: the full checkout takes over. */
  readonly handOver: () => void
  /** `ready` for a card, still loading, was already said (by the frame's stub). */
  readonly announced?: boolean
  /** The tag of the form's box in `host` (`pay-card-form` unless said). */
  readonly formTag?: string
  /** A session with several ways to pay is handed over too (the full checkout shows the picker). */
  readonly cardOnly?: boolean
  /**
   * What a request that got no answer means: inline, the page's origin refused by CORS or the
   * network (`classify`); the frame pays same-origin, so the network. The code it gives is said.
   */
  readonly unanswered?: (error: ApiError) => Promise<ApiError>
  /** The page that started the payment, read at each pay; unset, the page's `page` message says it. */
  readonly page?: () => string
  /** Markup of our own as `innerHTML` takes it (inline, a Trusted Types value: `./trusted.ts`). */
  readonly html?: (markup: string) => string
  /**
   * The shared rule for a 3-D Secure redirect (`shared/redirect.ts`'s `safeRedirect`), handed in:
   * inline, the element's own copy, which it runs again before it navigates.
   */
  readonly safeRedirect: (value: unknown) => SafeRedirect | undefined
}

export interface CardFlow {
  /** Reads the session (the client secret has arrived) and shows it. */
  begin(api: ApiClient): void
  /** What the page says after `init`. */
  receive(message: Exclude<PageSays, { type: 'init' }>): void
  /** The last `ready` said, for a page that was not listening then. */
  readonly ready: FrameSays | undefined
  /** Stops the flow's timers (the element let it go). */
  stop(): void
}

const $ = <T extends Element>(root: ParentNode, selector: string): T | null => root.querySelector<T>(selector)
const make = (tag: string, cls: string, text = ''): HTMLElement => {
  const el = document.createElement(tag)
  el.className = cls
  el.textContent = text
  return el
}
const usesCard = (m: CheckoutFlow | '' | null | undefined): m is CardMethod => m === 'card' || m === 'saved-card'

/** Takes the form over; null when the box is not shaped as it should be. */
export function startCardFlow(o: CardFlowOptions): CardFlow | null {
  const { host, lang, shipping, post, words } = o
  const root = host.shadowRoot
  const formHost = root && $<HTMLElement>(root, o.formTag ?? 'pay-card-form')
  const formRoot = formHost?.shadowRoot
  if (!root || !formHost || !formRoot) return null
  const say = (key: MessageKey, values: Record<string, string | number> = {}): string =>
    formatMessage(words[key] ?? '', values, lang)
  /** An amount inside a sentence reads left to right in a right-to-left page too (as `isolateLtr` in ../i18n). */
  const ltr = (text: string): string => (o.dir === 'rtl' ? `\u2066${text}\u2069` : text)
  let stopped = false
  const html = o.html ?? ((markup: string) => markup)
  const unanswered =
    o.unanswered ?? ((e: ApiError) => Promise.resolve({ ...e, code: 'network_error' as ApiError['code'] }))

  const container = $<HTMLElement>(root, '.container') as HTMLElement
  const status = $<HTMLElement>(root, '.status') as HTMLElement
  let form = $<HTMLFormElement>(formRoot, 'form') as HTMLFormElement
  /** The form as it was written (by the Worker, or the light form): a new card's, every input empty. */
  const pristine = form.cloneNode(true) as HTMLFormElement

  let state: CheckoutState = 'loading'
  /** The pay button had the focus when it was disabled for the pay (render). */
  let refocus = false
  let view: CheckoutView | null = null
  let notice = ''
  /** The card method the page asked for; empty: the session's. */
  let method: CardMethod | '' = ''
  let mode: CardMethod = 'card'
  let api: ApiClient | null = null
  let inFlight = false
  let attemptKey: string | null = null
  /** The page that started the payment, as the page tells it ('' for none). */
  let startingPage = ''
  let pollTimer: ReturnType<typeof setTimeout> | undefined
  /** The session's status as last read (none since a pay's answer: the next read is shown, whatever it says). */
  let lastRead: CheckoutView['status'] | undefined
  let polls = 0
  let loads = 0
  /** The flow the last `ready` was for; a session loaded with nothing to fill in says so once. */
  let announced = ''
  let fresh = false
  let ready: FrameSays | undefined
  /** Errors shown, by input id: only after a field's blur, or after a submit. */
  let errors: Record<string, FieldErrorCode> = {}
  /** Inputs the Worker refused, with the value it refused and its rule: held while that value is. */
  let refused: Record<string, readonly [string, FieldErrorCode]> = {}
  let lastChange = ''
  /** What was kept over the bank's step was looked for (`../card-form/kept.ts`). */
  let took = false

  // ---- the form --------------------------------------------------------------------------------

  const specs = (): readonly InputSpec[] => inputsFor(mode, view?.customer ?? null, shipping)
  const control = (id: string) => $<HTMLInputElement | HTMLSelectElement>(form, `#${id}`)
  const values = (): Record<string, string> =>
    Object.fromEntries(specs().map((s) => [s.id, control(s.id)?.value ?? '']))
  /** A saved card's brand, else the typed number's (`values` read once by callers that have them). */
  const brand = (v = values()): CardBrand | undefined => brandOf(mode, v, view?.savedCard?.brand ?? null)

  /** The rule an input breaks: the Worker's, for the value it refused, else the form's own. */
  const ruleOf = (s: InputSpec, v: Record<string, string>, b = brand(v)): FieldErrorCode | null => {
    const r = refused[s.id]
    return r && r[0] === v[s.id] ? r[1] : checkInput(s, v, b)
  }

  /** Shows (or clears) an input's error, with what the input is described by. */
  function showError(id: string, code: FieldErrorCode | null): void {
    const input = control(id)
    const below = input?.closest('.field')?.querySelector('.below')
    if (!input || !below) return
    $(below, '.error')?.remove()
    if (code) {
      const p = make('p', 'error', say(errorKey(id, code)))
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
          span.innerHTML = html(
            `<svg viewBox="0 0 32 20" width="32" height="20" aria-hidden="true">${brandMarkSvg(b)}</svg>`,
          )
          place.append(span)
        }
      }
    }
    const hint = $(form, '#cvv-hint')
    if (hint) hint.textContent = say('cvvHint', { n: cvvLength(b) })
  }

  /** Tells the page when validity or brand changed: never a value. */
  function reportChange(): void {
    const v = values()
    const b = brand(v) ?? null
    // By the rules the pay would meet: a value the Worker refused is not valid while it is there.
    const valid = !specs().some((s) => ruleOf(s, v, b ?? undefined))
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
    refused = {}
    lastChange = ''
    fillLists()
    showBrand()
  }

  function onInput(e: Event): void {
    const input = e.target as HTMLInputElement
    const id = input.id
    const typed = e as InputEvent
    // An input method's text is the shopper's until it is committed (`compositionend` comes then).
    if (typed.isComposing) return
    retype(typed, input, id)
    if (id === 'number') showBrand()
    // Errors already shown update as the shopper fixes them; new ones wait for blur or submit.
    const s = specs().find((x) => x.id === id)
    if (s && errors[id]) showError(id, ruleOf(s, values()))
    reportChange()
  }

  /** A phone typed with its country code: the code goes to its list (`splitPhone`). */
  function splitCode(): void {
    const phone = control('phone')
    const code = control('telnocc') as HTMLSelectElement | null
    const split =
      phone &&
      code &&
      splitPhone(
        phone.value,
        [...code.options].map((x) => x.value),
        [code.value.slice(0, 2), control('country')?.value, lang.split('-')[1]?.toUpperCase()],
      )
    if (!split) return
    code.value = split.code
    phone.value = split.phone
    if (errors.telnocc) showError('telnocc', null)
    reportChange()
  }

  function onBlur(e: Event): void {
    const id = (e.target as HTMLElement).id
    const s = specs().find((x) => x.id === id)
    if (!s) return
    if (id === 'phone') splitCode()
    const value = control(id)?.value ?? ''
    showError(id, value === '' && !errors[id] ? null : ruleOf(s, values()))
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
    splitCode()
    showBrand()
    const all = specs()
    const now = values()
    const b = brand(now)
    let first: HTMLElement | null = null
    for (const s of all) {
      const code = ruleOf(s, now, b)
      showError(s.id, code)
      if (code) first ??= control(s.id)
    }
    if (first) return first.focus()
    void pay(collectInputs(all, now))
  }

  formRoot.addEventListener('input', onInput)
  formRoot.addEventListener('compositionend', onInput)
  formRoot.addEventListener('change', (e) => (e.target instanceof HTMLSelectElement ? onInput(e) : undefined))
  // An input's blur, heard while it goes down to the input (blur does not bubble).
  formRoot.addEventListener('blur', onBlur, true)
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
    const wanted: CardMethod = usesCard(flow) ? flow : 'card'
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
      // A button disabled while it has the focus drops it (to the page's body): inline, it takes it
      // back when it is enabled, so a keyboard or screen-reader shopper is where they were after a
      // decline, and the status says what happened (`focusDropped` says when it may).
      if (disabled && (button.getRootNode() as ShadowRoot).activeElement === button) refocus = true
      button.disabled = disabled
      if (!disabled && refocus) {
        refocus = false
        if (focusDropped()) button.focus()
      }
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
    // The bank's page, for as long as its step waits: the page may not have gone there (a merchant
    // who took the redirect itself, Back from the bank's page, the page loaded again).
    const redirect = view?.redirect
    if (state === 'error' || (state === 'action_required' && redirect)) {
      const retry = make('button', 'secondary', say(state === 'error' ? 'tryAgain' : 'continueToBank'))
      retry.setAttribute('part', 'retry')
      retry.addEventListener('click', () => {
        if (state === 'error') return reset()
        if (redirect && toBank(redirect)) {
          notice = ''
          render()
        }
      })
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

  /** A way to pay this flow does not show: the full checkout takes over. */
  function handOver(): void {
    stopped = true
    clearTimeout(pollTimer)
    o.handOver()
  }

  async function load(): Promise<void> {
    const n = ++loads
    state = 'loading'
    notice = ''
    render()
    const v = await (api as ApiClient).view()
    if (n !== loads || stopped) return
    if (!v.ok) {
      const e = v.error.status === 0 ? await unanswered(v.error) : v.error
      return n === loads && !stopped ? fail(e) : undefined
    }
    if (!usesCard(current(v.value)) || (o.cardOnly && (v.value.methods ?? []).length > 1)) return handOver()
    fresh = true
    applyView(v.value)
  }

  function applyView(v: CheckoutView): void {
    // A decline is told once, when the session is read in it: not again when it is read again.
    const before = view?.status
    // A new status (the bank's step done, now pending; a decline, then a new pay): checked often again.
    if (v.status !== before) polls = 0
    view = v
    lastRead = v.status
    announceMethods()
    state = stateOf(v)
    // What the session says beside its state, when the page was loaded (again) after a pay: a
    // decline (the bank refused 3-D Secure, the page came back), the form again with the tries
    // left; a payment being confirmed found never made (states.ts: pay again); or a bank
    // step still waiting, which render() offers a button to (the page never goes there by itself:
    // Back from the bank's page would come here and go straight back).
    const notMade = foundNotMade(before, v.status)
    if (cardDeclined(v) && state === 'ready') notice = say('declinedRetry', { n: v.attemptsRemaining })
    else if (notMade) {
      notice = say('error')
      // The next pay has a key of its own: the one before is answered as the payment it never was.
      attemptKey = null
    } else if (state !== 'ready') notice = state === 'action_required' && v.redirect ? say('actionWaiting') : ''
    if (WATCHED.includes(state)) poll()
    render()
    // The inputs the session gives are not asked for: a form the shopper filled in before it was
    // read may be valid now, and the page is told so without waiting for another keystroke.
    if (state === 'ready' && lastChange) reportChange()
    if (state === 'succeeded') result('succeeded', v.result?.paymentId, v.result?.card)
    else if ((v.status === 'declined' || state === 'declined') && v.status !== before)
      result('declined', v.result?.paymentId, v.result?.card, v.attemptsRemaining)
    else if (notMade) error(NOT_MADE)
    if (!took && !WATCHED.includes(state)) putBack()
  }

  /**
   * Back from the bank's step (a decline, the page loaded again): what the shopper typed besides
   * the card, into the inputs still empty. Taken out whatever the state, unless the bank's step
   * still waits (its button takes the shopper there again).
   */
  function putBack(): void {
    took = true
    const kept = takeTyped((api as ApiClient).sessionId)
    if (state !== 'ready') return
    let filled = false
    // The lists are filled by now (after `ready`): a phone code is chosen as a value of its list.
    for (const s of specs()) {
      const input = control(s.id)
      const value = kept[s.id]
      if (input && value && !input.value) {
        input.value = value
        filled = true
      }
    }
    if (filled) reportChange()
  }

  function fail(e: ApiError): void {
    const code: string = e.code
    state = stateOfUnreadable(code)
    notice =
      state === 'blocked' || state === 'error' ? say(ERROR_MESSAGE[code] ?? STATUS_MESSAGE[state] ?? 'error') : ''
    inFlight = false
    render()
    error(e)
  }

  function poll(): void {
    clearTimeout(pollTimer)
    if (!api) return
    pollTimer = setTimeout(
      async () => {
        if (stopped) return
        polls += 1
        const v = await api?.view()
        if (stopped) return
        if (!v?.ok || v.value.status === lastRead) return poll()
        applyView(v.value)
      },
      polls < POLL_MAX ? POLL_MS : POLL_SLOW_MS,
    )
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
    // Not answered after a few seconds (a slow gateway): it is being confirmed, not to be made again.
    const slow = setTimeout(() => {
      if (state !== 'submitting' || stopped) return
      notice = say('unknown')
      render()
    }, SLOW_PAY_MS)
    const page = o.page ? o.page() : startingPage
    let r = await api.pay(page ? { ...fields, returnPage: page } : fields, attemptKey)
    // A Worker of an earlier release knows no such field, and a page it will not link to is no
    // reason to stop the payment: once more without it, with the same key (nothing ran).
    if (page && !r.ok && r.error.status === 400 && r.error.fields?.some((f) => f.field === 'returnPage'))
      r = await api.pay(fields, attemptKey)
    clearTimeout(slow)
    inFlight = false
    notice = ''
    if (!r.ok && r.error.status === 0) {
      // No answer: the same key is sent again on retry, so the charge cannot happen twice. The
      // session was read from this page, so its origin is allowed: the network failed, whatever
      // a probe of the Worker would say now (its answer may have been lost on the way back).
      const e = { ...r.error, code: 'network_error' as ApiError['code'] }
      state = 'ready'
      notice = say(ERROR_MESSAGE[e.code] ?? 'networkError')
      render()
      return error({ code: e.code, message: e.message, fields: [] })
    }
    if (!r.ok && saysNothing(r.error)) {
      // Being confirmed until the session, read again, says what became of it; the form stays as
      // the shopper left it, and its key is kept for a retry.
      state = 'ready'
      notice = say('unknown')
      render()
      void api.view().then((v) => {
        if (!v.ok || stopped) return
        notice = ''
        applyView(v.value)
        // On its way after all: told as a pay's answer would have told it.
        if (WATCHED.includes(state)) result(pendingAs(v.value.status), null, null)
      })
      return error({ code: r.error.code, message: r.error.message, fields: [] })
    }
    attemptKey = null
    if (!r.ok) return refuse(r.error)
    settle(r.value, flow)
  }

  /** The Worker refused the attempt: the form stays as the shopper left it, unless the session is over. */
  function refuse(e: ApiError): void {
    const code: string = e.code
    if (READ_AGAIN.includes(code)) void api?.view().then((v) => v.ok && !stopped && applyView(v.value))
    state = stateOfRefused(code, view?.attemptsRemaining)
    notice = state === 'ready' ? say(ERROR_MESSAGE[code] ?? 'error') : ''
    render()
    if (state === 'ready') showRefused(e.fields ?? [])
    error(e)
  }

  /** The inputs the Worker refused, shown as the form's own checks are, the first of them focused. */
  function showRefused(fields: readonly FieldError[]): void {
    let first: HTMLElement | null = null
    for (const [id, code] of refusedInputs(specs(), fields)) {
      refused[id] = [control(id)?.value ?? '', code]
      showError(id, code)
      first ??= control(id)
    }
    first?.focus()
    reportChange()
  }

  function settle(r: PayResult, flow: CheckoutFlow): void {
    const holds = r.status !== 'declined' && r.status !== 'failed'
    lastRead = undefined
    if (view)
      view = {
        ...view,
        attemptsRemaining: r.attemptsRemaining,
        method: holds ? flow : view.method,
        redirect: r.status === 'action_required' ? (r.redirect ?? null) : null,
        // The session's status now: read again, a decline is not a new one, and a payment on its
        // way that comes back to where it was (found never made, declined again) is (applyView).
        status: r.status,
      }
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
      case 'action_required':
        state = 'action_required'
        render()
        // Without a way to the bank (none given, or one the shared rule refuses), it is being
        // confirmed: said so, which also tells the page the pay's answer came.
        if (!r.redirect || !toBank(r.redirect)) {
          state = 'unknown'
          render()
          result('unknown', null, null)
        }
        // Watched while the bank's step waits: the page may stay (its pay-action cancelled, the
        // step shown in a window of its own), and the step's outcome is shown and told here.
        return poll()
    }
  }

  /**
   * 3-D Secure needs the top window: the element takes it there. Only a redirect that passes the
   * shared rule leaves this flow (SECURITY.md R28; the element checks again): false for another.
   */
  function toBank(redirect: NonNullable<CheckoutView['redirect']>): boolean {
    const safe = o.safeRedirect(redirect)
    if (!safe) return false
    if (api) {
      keepTyped(api.sessionId, values())
      // Taken out by this page too, should it read the session settled (a bank's page in a popup).
      took = false
    }
    post({
      type: 'action',
      redirect: {
        url: safe.url,
        ...(safe.method ? { method: safe.method } : {}),
        parameters: safe.parameters.map((p) => ({ name: p.name, value: p.value })),
      },
    })
    return true
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

  function receive(m: Exclude<PageSays, { type: 'init' }>): void {
    if (stopped) return
    if (m.type === 'page') startingPage = m.page
    else if (m.type === 'submit') form.requestSubmit()
    else if (m.type === 'reset') reset()
    else if (m.type === 'method' && m.method !== method) {
      method = m.method
      attemptKey = null
      // Shown once the session is read again (a session not read yet is read with it): cleared
      // and drawn before that, the status said a decline twice, and a bank step that waits as a
      // redirect under way.
      if (view)
        void api?.view().then((v) => {
          if (v.ok && method === m.method) {
            notice = ''
            applyView(v.value)
          }
        })
    }
  }

  if (o.announced) {
    announced = 'card'
    ready = { type: 'ready', flow: 'card', status: 'loading' }
  }
  render()
  // What the shopper typed before this ran stays, formatted and told as if typed now.
  const typed = control('number')
  if (typed?.value) typed.value = formatCardNumber(typed.value)
  const expiry = control('expiry')
  if (expiry?.value) expiry.value = formatExpiry(expiry.value)
  showBrand()
  if (Object.values(values()).some(Boolean)) reportChange()
  // The lists (about 500 names from Intl, sorted) after this task: the page hears `ready` first (it
  // shares the thread inline, and with a frame of its own site).
  setTimeout(fillLists)

  return {
    begin(client: ApiClient): void {
      if (stopped) return
      api = client
      void load()
    },
    receive,
    get ready() {
      return ready
    },
    stop(): void {
      stopped = true
      clearTimeout(pollTimer)
    },
  }
}
