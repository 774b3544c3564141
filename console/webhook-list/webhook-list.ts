/**
 * @module
 * `<webhook-list>`: every event sent to the merchant's webhook URL, newest first: delivered, failing
 * (its last answer and when it is tried next) or pending, with "Send again" for a failing one
 * (tried now instead of at its next try; a delivered event is not sent again) and a link to its
 * payment.
 */
import { css, html, LitElement, type PropertyValues } from 'lit'
import { describeError, signedOut, type ConsoleApi, type Delivery } from '../api.ts'
import { dateTime } from '../format.ts'
import { shared } from '../styles.ts'
import { statusBadge } from '../status.ts'
import { Pager, pagerButtons } from '../pager.ts'
import { newestReads } from '../latest.ts'

const STATUSES = ['failing', 'pending', 'delivered'] as const

export class WebhookList extends LitElement {
  static override styles = [
    shared,
    css`
      .bar {
        display: flex;
        gap: 0.75rem;
        align-items: end;
        margin-bottom: 1rem;
      }
      .bar label {
        width: 12rem;
      }
      td button {
        min-height: 2.25rem;
      }
    `,
  ]
  static override properties = {
    api: { attribute: false },
    locale: {},
    status: { state: true },
    deliveries: { state: true },
    hasMore: { state: true },
    loading: { state: true },
    message: { state: true },
  }

  declare api: ConsoleApi
  declare locale: string
  declare private status: '' | (typeof STATUSES)[number]
  declare private deliveries: Delivery[]
  declare private hasMore: boolean
  declare private loading: boolean
  declare private message: string
  private readonly pager = new Pager()

  private readonly read = newestReads()

  constructor() {
    super()
    this.locale = 'en'
    this.status = ''
    this.deliveries = []
    this.hasMore = false
    this.loading = true
    this.message = ''
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('api') || changed.has('status')) {
      this.pager.reset()
      void this.load()
    }
  }

  private async load(): Promise<void> {
    const newest = this.read()
    this.loading = true
    const { data, error, response } = await this.api.GET('/v1/webhooks/deliveries', {
      params: {
        query: { limit: 20, ...(this.status ? { status: this.status } : {}), starting_after: this.pager.cursor },
      },
    })
    if (!newest()) return
    this.loading = false
    if (response.status === 401) return signedOut(this)
    if (!data) {
      this.message = describeError(error, response.status)
      return
    }
    this.deliveries = data.data
    this.hasMore = data.has_more
  }

  private async sendAgain(d: Delivery): Promise<void> {
    const res = await this.api.POST('/v1/webhooks/deliveries/{eventId}/send-again', {
      params: { path: { eventId: d.id } },
    })
    if (res.response.status === 401) return signedOut(this)
    this.message = res.data
      ? `${d.type} (${d.id}) queued to be sent again.`
      : describeError(res.error, res.response.status)
    await this.load()
  }

  override render() {
    return html`
      <h1>Webhooks</h1>
      <div class="bar">
        <label
          >Status
          <select @change=${(e: Event) => (this.status = (e.target as HTMLSelectElement).value as typeof this.status)}>
            <option value="">Any</option>
            ${STATUSES.map((s) => html`<option value=${s} ?selected=${this.status === s}>${s}</option>`)}
          </select></label
        >
        <button type="button" @click=${() => this.load()}>Refresh</button>
      </div>
      <p role="status" aria-live="polite">${this.message}</p>
      <div aria-busy=${this.loading ? 'true' : 'false'}>${this.results()}</div>
    `
  }

  private results() {
    if (this.loading && this.deliveries.length === 0) return html`<p role="status">Loading deliveries…</p>`
    if (this.deliveries.length === 0) return html`<p class="empty muted">No webhook events yet.</p>`
    return html`
      <table class="rows">
        <caption class="visually-hidden">
          Webhook deliveries, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Tries</th>
            <th scope="col">Next try</th>
            <th scope="col">Payment</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${this.deliveries.map(
            (d) => html`<tr>
              <td data-label="Event">
                <span class="ltr">${d.type}</span>
                <div class="muted">${dateTime(d.createdAt, this.locale)}</div>
              </td>
              <td data-label="Status">
                ${statusBadge(d.status)}${d.lastStatus !== null ? html` <span class="muted">(${d.lastStatus})</span>` : ''}
              </td>
              <td data-label="Tries" class="num">${d.tries}</td>
              <td data-label="Next try">${d.nextRetryAt ? dateTime(d.nextRetryAt, this.locale) : '—'}</td>
              <td data-label="Payment" class="ltr">
                ${d.paymentId ? html`<a href="#/payments/${encodeURIComponent(d.paymentId)}">${d.paymentId}</a>` : '—'}
              </td>
              <td data-label="">
                ${
                  d.status !== 'failing'
                    ? ''
                    : html`<button type="button" @click=${() => this.sendAgain(d)}>
                      Send again<span class="visually-hidden"> ${d.type} ${d.id}</span>
                    </button>`
                }
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${pagerButtons(this.pager, this.hasMore, this.deliveries[this.deliveries.length - 1]?.id, () => void this.load())}
    `
  }
}

if (!customElements.get('webhook-list')) customElements.define('webhook-list', WebhookList)

declare global {
  interface HTMLElementTagNameMap {
    'webhook-list': WebhookList
  }
}
