/**
 * @module
 * `<payment-list>`: find a payment the way a customer on the phone describes it: their email, the
 * order reference, the card's last four, the amount, a date range, a status or one metadata pair.
 * Newest first, a page at a time (cursor pagination: "Older" follows the last id, "Newer" goes
 * back). The search lives in the address (`#/payments?email=…`), so a result can be linked to
 * and the browser's back button returns to it.
 */
import { css, html, LitElement, type PropertyValues } from 'lit'
import { describeError, signedOut, type ConsoleApi, type Payment } from '../api.ts'
import { cardText, dateTime, decimalAmount, paymentAmount } from '../format.ts'
import { shared } from '../styles.ts'
import { statusBadge } from '../status.ts'
import { Pager, pagerButtons } from '../pager.ts'
import { newestReads } from '../latest.ts'

/** Every payment status the API document names: one it adds fails the type check here until it is listed. */
const STATUS_LIST: Record<Payment['status'], true> = {
  authorized: true,
  captured: true,
  partially_refunded: true,
  refunded: true,
  voided: true,
}
const STATUSES = Object.keys(STATUS_LIST) as Payment['status'][]
/** The search's fields, in the address and the form: each the listing's query parameter of the same name. */
const FIELDS = ['email', 'order', 'last4', 'amount', 'status', 'from', 'to', 'metadata'] as const
type Field = (typeof FIELDS)[number]

const amountOf = (typed: string | undefined) => (typed === undefined ? undefined : (decimalAmount(typed) ?? typed))

export class PaymentList extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr));
        gap: 0.75rem;
        align-items: end;
        margin-bottom: 1rem;
      }
      .actions {
        display: flex;
        gap: 0.5rem;
      }
    `,
  ]
  static override properties = {
    api: { attribute: false },
    locale: {},
    query: { attribute: false },
    payments: { state: true },
    hasMore: { state: true },
    loading: { state: true },
    error: { state: true },
  }

  declare api: ConsoleApi
  declare locale: string
  /** The search, from the address. */
  declare query: URLSearchParams
  declare private payments: Payment[]
  declare private hasMore: boolean
  declare private loading: boolean
  declare private error: string
  private readonly pager = new Pager()

  private readonly read = newestReads()

  constructor() {
    super()
    this.locale = 'en'
    this.query = new URLSearchParams()
    this.payments = []
    this.hasMore = false
    this.loading = true
    this.error = ''
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('query') || changed.has('api')) {
      this.pager.reset()
      void this.load()
    }
  }

  private async load(): Promise<void> {
    const newest = this.read()
    this.loading = true
    this.error = ''
    const q = this.query
    const get = (f: Field) => q.get(f)?.trim() || undefined
    const [metaKey, ...metaValue] = (get('metadata') ?? '').split('=')
    const from = get('from')
    const to = get('to')
    const { data, error, response } = await this.api.GET('/v1/payments', {
      params: {
        query: {
          limit: 20,
          email: get('email'),
          order: get('order'),
          last4: get('last4'),
          // As the agent types it (a decimal comma, no decimals): the API's text when it reads as one.
          amount: amountOf(get('amount')),
          status: get('status') as Payment['status'] | undefined,
          // Dates are whole days in the browser's time zone: from its start to the end of "to".
          created_gte: from ? new Date(`${from}T00:00:00`).toISOString() : undefined,
          created_lt: to ? new Date(new Date(`${to}T00:00:00`).getTime() + 86_400_000).toISOString() : undefined,
          ...(metaKey && metaValue.length ? { metadata: { [metaKey]: metaValue.join('=') } } : {}),
          starting_after: this.pager.cursor,
        },
      },
    })
    if (!newest()) return
    this.loading = false
    if (response.status === 401) return signedOut(this)
    if (error || !data) {
      this.payments = []
      this.error = describeError(error, response.status)
      return
    }
    this.payments = data.data
    this.hasMore = data.has_more
  }

  private search(e: SubmitEvent): void {
    e.preventDefault()
    const form = new FormData(e.target as HTMLFormElement)
    const next = new URLSearchParams()
    for (const f of FIELDS) {
      const value = String(form.get(f) ?? '').trim()
      if (value) next.set(f, value)
    }
    location.hash = `#/payments${next.size ? `?${next}` : ''}`
  }

  /**
   * Every input emptied, typed but not searched too (an email the browser refuses would block every
   * later search), and the search with it.
   */
  private clear(e: Event): void {
    ;(e.target as HTMLButtonElement).form?.reset()
    location.hash = '#/payments'
  }

  override render() {
    const v = (f: Field) => this.query.get(f) ?? ''
    const input = (f: Field, label: string, attrs: { type?: string; inputmode?: string; placeholder?: string } = {}) =>
      html`<label
        >${label}<input
          name=${f}
          type=${attrs.type ?? 'text'}
          inputmode=${attrs.inputmode ?? 'text'}
          placeholder=${attrs.placeholder ?? ''}
          .value=${v(f)}
      /></label>`
    return html`
      <h1>Payments</h1>
      <form role="search" aria-label="Find payments" @submit=${this.search}>
        ${input('email', 'Customer email', { type: 'email' })} ${input('order', 'Order reference')}
        ${input('last4', 'Card last 4', { inputmode: 'numeric' })}
        ${input('amount', 'Amount', { inputmode: 'decimal', placeholder: '12.50' })}
        <label
          >Status
          <select name="status">
            <option value="">Any</option>
            ${STATUSES.map((s) => html`<option value=${s} ?selected=${v('status') === s}>${s.replace('_', ' ')}</option>`)}
          </select></label
        >
        ${input('from', 'From', { type: 'date' })} ${input('to', 'To', { type: 'date' })}
        ${input('metadata', 'Metadata (key=value)', { placeholder: 'orderId=A-1001' })}
        <div class="actions">
          <button class="primary" type="submit">Search</button>
          <button type="button" @click=${this.clear}>Clear</button>
        </div>
      </form>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : ''}
      <div aria-live="polite" aria-busy=${this.loading ? 'true' : 'false'}>${this.results()}</div>
    `
  }

  private results() {
    if (this.loading) return html`<p role="status">Loading payments…</p>`
    if (this.payments.length === 0 && !this.error)
      return html`<p class="empty muted">No payments match this search.</p>`
    return html`
      <table class="rows">
        <caption class="visually-hidden">
          Payments, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col" class="num">Amount</th>
            <th scope="col">Status</th>
            <th scope="col">Order</th>
            <th scope="col">Customer</th>
            <th scope="col">Card</th>
          </tr>
        </thead>
        <tbody>
          ${this.payments.map(
            (p) => html`<tr>
              <td data-label="Date"><a href="#/payments/${encodeURIComponent(p.id)}">${dateTime(p.createdAt, this.locale)}</a></td>
              <td data-label="Amount" class="num ltr">${paymentAmount(p, this.locale)}</td>
              <td data-label="Status">${statusBadge(p.status)}</td>
              <td data-label="Order" class="ltr">${p.merchantTransactionId}</td>
              <td data-label="Customer">${p.email ?? '—'}</td>
              <td data-label="Card" class="ltr">${cardText(p.card)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${pagerButtons(this.pager, this.hasMore, this.payments[this.payments.length - 1]?.id, () => void this.load())}
    `
  }
}

if (!customElements.get('payment-list')) customElements.define('payment-list', PaymentList)

declare global {
  interface HTMLElementTagNameMap {
    'payment-list': PaymentList
  }
}
