/**
 * @module
 * `<pay-console>`: the merchant console's shell. It asks the Worker for the session (behind
 * Cloudflare Access, the Access sign-in opens one), shows the sign-in without one, and routes by
 * the address's fragment: `#/overview`, `#/payments` (with its search in the fragment's query),
 * `#/payments/{id}`, `#/webhooks`. Every view calls the merchant API with the session; a 401
 * anywhere brings the sign-in back.
 */
import { html, LitElement, type PropertyValues } from 'lit'
import { consoleApi, currentSession, signOut, SIGNED_OUT, type ConsoleApi, type ConsoleSession } from '../api.ts'
import { initialLocale, localeName, LOCALES, type Locale } from '../format.ts'
import { shared, tokens } from '../styles.ts'
import { shellStyles } from './pay-console.styles.ts'
import '../sign-in/sign-in.ts'
import '../payment-list/payment-list.ts'
import '../payment-page/payment-page.ts'
import '../webhook-list/webhook-list.ts'
import '../overview-chart/overview-chart.ts'

type Route =
  | { view: 'overview' }
  | { view: 'payments'; query: URLSearchParams }
  | { view: 'payment'; id: string }
  | { view: 'webhooks' }

export function routeOf(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?')
  const [first, second] = path.split('/')
  if (first === 'payments' && second) return { view: 'payment', id: decodeURIComponent(second) }
  if (first === 'payments') return { view: 'payments', query: new URLSearchParams(query) }
  if (first === 'webhooks') return { view: 'webhooks' }
  return { view: 'overview' }
}

const TITLES: Record<Route['view'], string> = {
  overview: 'Overview',
  payments: 'Payments',
  payment: 'Payment',
  webhooks: 'Webhooks',
}

export class PayConsole extends LitElement {
  static override styles = [tokens, shared, shellStyles]
  static override properties = {
    theme: { reflect: true },
    signInWith: { attribute: 'sign-in' },
    session: { state: true },
    api: { state: true },
    route: { state: true },
    locale: { state: true },
    refusal: { state: true },
  }

  /** `light`, `dark`, or empty for the system's preference. */
  declare theme: string
  /** How this deployment signs in (the Worker writes it into the page): a key, or Cloudflare Access. */
  declare signInWith: 'key' | 'access'
  /** undefined: still asking; null: signed out. */
  declare private session: ConsoleSession | null | undefined
  declare private api: ConsoleApi | undefined
  declare private route: Route
  declare private locale: Locale
  /** Why the last sign-in (Access's, or the stored session) was refused, if it was. */
  declare private refusal: string

  constructor() {
    super()
    this.theme = new URLSearchParams(location.search).get('theme') ?? ''
    this.route = routeOf(location.hash)
    this.locale = initialLocale()
    this.refusal = ''
    this.signInWith = 'key'
  }

  private readonly onHash = () => {
    this.route = routeOf(location.hash)
  }
  /** A call was refused (401) while signed in: the session ended under the agent, who is told why. */
  private readonly onSignedOut = () => {
    this.signedOut()
    this.refusal =
      this.signInWith === 'access'
        ? 'Your sign-in ended: Cloudflare Access no longer vouches for it (its token expired or was replaced). Sign in through Access again.'
        : 'Your session ended (it lasts an hour, and ends when its key is revoked). Sign in again.'
  }

  private signedOut(): void {
    this.session = null
    this.api = undefined
  }

  override connectedCallback(): void {
    super.connectedCallback()
    addEventListener('hashchange', this.onHash)
    this.addEventListener(SIGNED_OUT, this.onSignedOut)
    void this.load()
  }

  override disconnectedCallback(): void {
    removeEventListener('hashchange', this.onHash)
    this.removeEventListener(SIGNED_OUT, this.onSignedOut)
    super.disconnectedCallback()
  }

  private async load(): Promise<void> {
    const answer = await currentSession()
    if (answer.session) return this.signedIn(answer.session)
    this.session = null
    // With a key, 401 is "not signed in yet"; behind Access it is Access's sign-in refused. Anything
    // else (403 from elsewhere, 500 misconfigured) is said as it is.
    this.refusal =
      answer.status !== 401
        ? (answer.error?.message ?? `The console is unavailable (${answer.status}).`)
        : this.signInWith === 'access'
          ? 'Cloudflare Access did not vouch for this sign-in: the token is missing, expired or not valid for this console, or your account may not act for a merchant.'
          : ''
  }

  private signedIn(session: ConsoleSession): void {
    this.session = session
    this.api = consoleApi(session)
    this.refusal = ''
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('route') || changed.has('session')) {
      const title = this.session ? TITLES[this.route.view] : 'Sign in'
      document.title = `${title} · Payments console`
    }
  }

  protected override updated(changed: PropertyValues): void {
    // A new view, or signing in or out (which replaces the view and the button that did it): focus
    // its main region, so a screen reader starts there and so does the keyboard.
    const signedInOrOut = changed.has('session') && changed.get('session') !== undefined
    if ((changed.has('route') && changed.get('route') !== undefined) || signedInOrOut)
      (this.renderRoot.querySelector('main') as HTMLElement | null)?.focus()
  }

  private async signOut(): Promise<void> {
    if (this.session) await signOut(this.session)
    this.signedOut()
  }

  override render() {
    if (this.session === undefined) return html`<p class="loading" role="status">Loading…</p>`
    const r = this.route
    const nav = (view: Route['view'], href: string, label: string) =>
      html`<a href=${href} aria-current=${r.view === view || (view === 'payments' && r.view === 'payment') ? 'page' : 'false'}
        >${label}</a
      >`
    return html`
      <header>
        <span class="brand">Payments console</span>
        ${
          this.session
            ? html`<nav aria-label="Console">
              ${nav('overview', '#/overview', 'Overview')} ${nav('payments', '#/payments', 'Payments')}
              ${nav('webhooks', '#/webhooks', 'Webhooks')}
            </nav>`
            : ''
        }
        <span class="spacer"></span>
        <label class="locale"
          ><span class="visually-hidden">Number and date formats</span>
          <select
            @change=${(e: Event) => (this.locale = (e.target as HTMLSelectElement).value as Locale)}
            .value=${this.locale}
          >
            ${LOCALES.map(
              // Each name in its own language ("Deutsch"), and said so; the console's words stay English.
              (l) => html`<option value=${l} lang=${l} ?selected=${l === this.locale}>${localeName(l)}</option>`,
            )}
          </select></label
        >
        ${
          this.session
            ? html`<span class="who">${this.session.merchant}</span>
              ${
                this.session.via === 'key'
                  ? html`<button type="button" @click=${() => this.signOut()}>Sign out</button>`
                  : ''
              }`
            : ''
        }
      </header>
      <main tabindex="-1">${this.session && this.api ? this.view(this.api, r) : this.signInView()}</main>
    `
  }

  private signInView() {
    return html`<console-sign-in
      .refusal=${this.refusal}
      .withKey=${this.signInWith === 'key'}
      @signed-in=${(e: CustomEvent<ConsoleSession>) => this.signedIn(e.detail)}
    ></console-sign-in>`
  }

  private view(api: ConsoleApi, r: Route) {
    switch (r.view) {
      case 'payments':
        return html`<payment-list .api=${api} .locale=${this.locale} .query=${r.query}></payment-list>`
      case 'payment':
        return html`<payment-page .api=${api} .locale=${this.locale} .paymentId=${r.id}></payment-page>`
      case 'webhooks':
        return html`<webhook-list .api=${api} .locale=${this.locale}></webhook-list>`
      default:
        return html`<overview-chart .api=${api} .locale=${this.locale}></overview-chart>`
    }
  }
}

if (!customElements.get('pay-console')) customElements.define('pay-console', PayConsole)

declare global {
  interface HTMLElementTagNameMap {
    'pay-console': PayConsole
  }
}
