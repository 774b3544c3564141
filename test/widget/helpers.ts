/**
 * Helpers for the browser tests: sessions from the test server (playing the merchant's server),
 * mounting the element, and reaching the inputs through its shadow roots.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing'
import '../../widget/index.ts'
import { POLL_MS } from '../../widget/inline/states.ts'
import type { PayCheckout } from '../../widget/index.ts'

/**
 * The inline checkout's box and the card form's box in it: the light form's (a card, no Lit) or
 * the full checkout's (Lit: other ways to pay, several, or once it is loaded on the page).
 */
export const INLINE_BOX = 'pay-card-inline, pay-checkout-inline'
export const CARD_BOX = 'pay-card-fields, pay-card-form'

/** What a session is created with for one of the inline card forms. */
export type FormBody = { readonly methods?: readonly string[] }
/**
 * The two inline card forms, each with its session's body: the light one (no Lit, whose flow the
 * card frame runs too), and the full checkout (several ways to pay). The element shows the light
 * form only until the full checkout is defined in the page (a session of several ways to pay
 * loaded it; then it costs nothing and is used), so a file runs every light variant first.
 */
export const LIGHT_FORM: readonly [string, FormBody] = ['the light form (a card alone)', {}]
export const FULL_CHECKOUT: readonly [string, FormBody] = [
  'the full checkout (card and QR wallet)',
  { methods: ['card', 'qr'] },
]
export const INLINE_FORMS = [LIGHT_FORM, FULL_CHECKOUT] as const

/** The element shows the inline form a test is for (`body`: its session's). */
export function formIs(el: PayCheckout, body: FormBody): void {
  const full = Boolean(el.shadowRoot?.querySelector('pay-checkout-inline'))
  expect(full, 'the full checkout is shown').to.equal(Boolean(body.methods))
}

export interface TestSession {
  readonly endpoint: string
  readonly id: string
  readonly clientSecret: string
  readonly frameToken?: string
}

/**
 * The Worker and the sandbox come up while the components group runs, beside the static checks of
 * `npm test`: on a busy machine the first checkout test of a run could spend its whole timeout
 * waiting for them. Every file that mounts a checkout waits here, on a hook's own time.
 */
before(async function () {
  this.timeout(120_000)
  const res = await fetch('/__merchant/ready')
  if (!res.ok) throw new Error(`the test stack did not start: ${res.status}`)
})

export async function createSession(body: Record<string, unknown> = {}): Promise<TestSession> {
  const res = await fetch('/__merchant/session', { method: 'POST', body: JSON.stringify({ flow: 'card', ...body }) })
  if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`)
  return (await res.json()) as TestSession
}

export async function sessionState(id: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`/__merchant/state?id=${id}`)).json()) as Record<string, unknown>
}

/** Mounts `<pay-checkout>` for a session and waits until it is ready. */
/** Inline by default, since these tests reach into the form; frame mode has its own tests. */
export async function mount(
  body: Record<string, unknown> = {},
  attrs: { locale?: string; theme?: string; shipping?: boolean; isolation?: 'inline' | 'frame' } = {},
): Promise<{ el: PayCheckout; session: TestSession }> {
  const session = await createSession(body)
  const el = await fixture<PayCheckout>(html`<pay-checkout
    endpoint=${session.endpoint}
    session=${session.id}
    client-secret=${session.clientSecret}
    locale=${attrs.locale ?? 'en'}
    theme=${attrs.theme ?? 'light'}
    isolation=${attrs.isolation ?? 'inline'}
    ?collect-shipping=${attrs.shipping ?? false}
  ></pay-checkout>`)
  if ((attrs.isolation ?? 'inline') === 'inline') await loaded(el)
  return { el, session }
}

/** The inline checkout inside the element (inline mode). */
export function inner(el: PayCheckout): HTMLElement & { updateComplete: Promise<boolean> } {
  const i = el.shadowRoot?.querySelector(INLINE_BOX)
  if (!i) throw new Error('no inline checkout')
  return i as unknown as HTMLElement & { updateComplete: Promise<boolean> }
}

/** The element's rendered root in inline mode (the inline checkout's shadow root). */
export function root(el: PayCheckout): ShadowRoot {
  const r = el.shadowRoot?.querySelector(INLINE_BOX)?.shadowRoot
  if (!r) throw new Error('no inline checkout')
  return r
}

/** Waits until the inline checkout has the session's answer (the amount is shown, or a final state). */
export async function loaded(el: PayCheckout): Promise<void> {
  await until(() => {
    const r = el.shadowRoot?.querySelector(INLINE_BOX)?.shadowRoot
    // The head holds the amount (none for a setup, which charges nothing the shopper should read as a price).
    return Boolean(
      r &&
      (r.querySelector('.head') ||
        r.querySelector('[part=retry]') ||
        r.querySelector('.status.blocked, .status.error')),
    )
  })
  await inner(el).updateComplete
  const f = root(el).querySelector(`${CARD_BOX}, pay-qr-wallet, pay-invoice-view`) as
    (HTMLElement & { updateComplete?: Promise<boolean> }) | null
  await f?.updateComplete
}

export function form(el: PayCheckout): HTMLElement & { updateComplete: Promise<boolean> } {
  const f = el.shadowRoot?.querySelector(INLINE_BOX)?.shadowRoot?.querySelector(CARD_BOX)
  if (!f) throw new Error('no card form')
  return f as unknown as HTMLElement & { updateComplete: Promise<boolean> }
}

export function input(el: PayCheckout, id: string): HTMLInputElement {
  const i = form(el).shadowRoot?.querySelector<HTMLInputElement>(`#${id}`)
  if (!i) throw new Error(`no input #${id}`)
  return i
}

export function payButton(el: PayCheckout): HTMLButtonElement {
  const b = form(el).shadowRoot?.querySelector<HTMLButtonElement>('button[type=submit]')
  if (!b) throw new Error('no pay button')
  return b
}

export function status(el: PayCheckout): string {
  const r = el.shadowRoot?.querySelector(INLINE_BOX)?.shadowRoot ?? el.shadowRoot
  return r?.querySelector('[role=status], [role=alert]')?.textContent?.trim() ?? ''
}

/** Sets a value the way a paste or a browser's autofill does: value, then an input event. */
export function setValue(i: HTMLInputElement, value: string, inputType = 'insertFromPaste'): void {
  i.value = value
  i.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType }))
}

export const CARD = {
  number: '4111 1111 1111 1111',
  expiry: '12 / 30',
  cvv: '123',
  givenName: 'Ada',
  surname: 'Lovelace',
  email: 'ada@example.com',
}

/** Fills the card form by paste-style input events. */
export async function fill(el: PayCheckout, values: Partial<typeof CARD> = {}): Promise<void> {
  for (const [id, value] of Object.entries({ ...CARD, ...values })) setValue(input(el, id), value)
  await form(el).updateComplete
}

export async function until(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A request of the page's `fetch` that is a pay (`POST /v1/checkout/{id}/pay`). */
export function isPay(req: RequestInfo | URL, init?: RequestInit): boolean {
  const url = req instanceof Request ? req.url : String(req)
  return (init?.method ?? 'GET').toUpperCase() === 'POST' && url.endsWith('/pay')
}

/**
 * Counts the page's reads of a session (`GET /v1/checkout/{id}`) from now on, until `stop`. A
 * wrapper around the page's `fetch`: the requests still go out.
 */
export function countReads(id: string): { readonly count: number; stop(): void } {
  const original = window.fetch
  let count = 0
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if ((init?.method ?? 'GET') === 'GET' && new URL(url).pathname === `/v1/checkout/${id}`) count += 1
    return original(input, init)
  }
  return {
    get count() {
      return count
    },
    stop: () => void (window.fetch = original),
  }
}

/**
 * Pays with the sandbox's pending card, takes the element off the page for longer than a poll's
 * interval (a poll was due meanwhile), then puts it back: what the page read meanwhile, and after
 * (until the notification settled it).
 */
export async function pendingWhileAway(el: PayCheckout, id: string): Promise<{ away: number; back: number }> {
  await fill(el, { number: '4000 0000 0000 0259' })
  const pending = oneEvent(el, 'pay-pending')
  payButton(el).click()
  await pending
  const place = el.parentElement as HTMLElement
  let reads = countReads(id)
  el.remove()
  await new Promise((r) => setTimeout(r, POLL_MS + 500))
  const away = reads.count
  reads.stop()
  reads = countReads(id)
  place.append(el)
  await until(() => status(el) === 'Payment successful.', 20_000)
  const back = reads.count
  reads.stop()
  return { away, back }
}

/** The card frame of an element in frame mode. */
export const frameOf = (el: PayCheckout): HTMLIFrameElement | null => el.shadowRoot?.querySelector('iframe') ?? null
/** An element in the default frame mode for a session (`extra` marks it apart in a test's page). */
export const mountFrame = (s: TestSession, extra = '') =>
  fixture<PayCheckout>(
    html`<pay-checkout endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret} locale="en" data-extra=${extra}></pay-checkout>`,
  )

/** `<pay-checkout>` inline for `s`, put in the page after `listen` has its listeners on it (remove it after). */
export function inlineFor(s: TestSession, listen: (el: PayCheckout) => void = () => undefined): PayCheckout {
  const el = document.createElement('pay-checkout') as PayCheckout
  listen(el)
  Object.assign(el, {
    isolation: 'inline',
    locale: 'en',
    endpoint: s.endpoint,
    session: s.id,
    clientSecret: s.clientSecret,
  })
  document.body.append(el)
  return el
}
