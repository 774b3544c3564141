/**
 * @module
 * `<payment-page>`: one payment's story for a support agent: its amount and status, what was
 * captured, refunded and can still be refunded, the card (brand and last four only), the customer,
 * the metadata, and a timeline of everything that happened to it, oldest first: the checkout
 * session, each attempt (3-D Secure, declines with the gateway's codes), the payment, each capture,
 * void and refund with the gateway's result, and each webhook event with its delivery (delivered,
 * or failing and when it is tried next, with "Send again"). Capture, void and refund open
 * `<payment-action>`; their result is announced here and the story reloads.
 */
import { css, html, LitElement, type PropertyValues } from 'lit'
import {
  describeError,
  signedOut,
  type ConsoleApi,
  type Delivery,
  type Operation,
  type Payment,
  type Session,
} from '../api.ts'
import { cardText, dateTime, money, paymentAmount } from '../format.ts'
import { shared } from '../styles.ts'
import { statusBadge } from '../status.ts'
import type { Action, PaymentAction } from '../payment-action/payment-action.ts'
import { newestReads } from '../latest.ts'
import '../payment-action/payment-action.ts'

interface Entry {
  readonly at: number
  readonly title: string
  readonly status?: string
  readonly detail?: string
  readonly delivery?: Delivery
}

export class PaymentPage extends LitElement {
  static override styles = [
    shared,
    css`
      .summary {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
        gap: 1rem;
        margin-bottom: 1rem;
      }
      .top {
        display: flex;
        justify-content: space-between;
        align-items: center;
      }
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.25rem 0.75rem;
        margin: 0;
      }
      dt {
        color: var(--c-muted);
      }
      dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin: 1rem 0;
      }
      ol {
        list-style: none;
        padding: 0;
        margin: 0;
        border-inline-start: 2px solid var(--c-border);
      }
      li {
        position: relative;
        padding: 0 0 1rem 1rem;
      }
      li::before {
        content: '';
        position: absolute;
        inset-inline-start: -0.45rem;
        top: 0.35rem;
        width: 0.75rem;
        height: 0.75rem;
        border-radius: 50%;
        background: var(--c-accent);
      }
      time {
        display: block;
        font-size: 0.8rem;
        color: var(--c-muted);
      }
      .entry-title {
        font-weight: 600;
      }
      li button {
        margin-top: 0.35rem;
        min-height: 2.25rem;
      }
    `,
  ]
  static override properties = {
    api: { attribute: false },
    locale: {},
    paymentId: { attribute: false },
    payment: { state: true },
    session: { state: true },
    deliveries: { state: true },
    loading: { state: true },
    error: { state: true },
    announcement: { state: true },
  }

  declare api: ConsoleApi
  declare locale: string
  declare paymentId: string
  declare private payment: Payment | undefined
  declare private session: Session | undefined
  declare private deliveries: Delivery[]
  declare private loading: boolean
  declare private error: string
  /** The last action's result, said in place (a live region). */
  declare private announcement: string

  private readonly read = newestReads()

  constructor() {
    super()
    this.locale = 'en'
    this.deliveries = []
    this.loading = true
    this.error = ''
    this.announcement = ''
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('paymentId') || changed.has('api')) {
      this.announcement = ''
      void this.load()
    }
  }

  private async load(): Promise<void> {
    const newest = this.read()
    this.loading = this.payment?.id !== this.paymentId
    this.error = ''
    const got = await this.api.GET('/v1/payments/{paymentId}', { params: { path: { paymentId: this.paymentId } } })
    if (!newest()) return
    if (got.response.status === 401) return signedOut(this)
    if (!got.data) {
      this.loading = false
      this.payment = undefined
      this.error =
        got.response.status === 404
          ? // Webhooks name declined attempts by their gateway id too: they took no money and have no record.
            'No payment record has this id. A declined attempt has none (it took no money), nor has one whose outcome is still being settled; another merchant’s payments are not shown.'
          : describeError(got.error, got.response.status)
      return
    }
    const payment = got.data
    const sessionId = payment.sessionId ?? undefined
    const [session, deliveries] = await Promise.all([
      sessionId ? this.api.GET('/v1/sessions/{id}', { params: { path: { id: sessionId } } }) : undefined,
      this.api.GET('/v1/webhooks/deliveries', {
        params: { query: { payment: payment.id, ...(sessionId ? { session: sessionId } : {}), limit: 100 } },
      }),
    ])
    if (!newest()) return
    this.payment = payment
    this.session = session?.data
    this.deliveries = deliveries.data?.data ?? []
    this.loading = false
  }

  private timeline(p: Payment): Entry[] {
    const entries: Entry[] = []
    const s = this.session
    if (s) {
      entries.push({
        at: Date.parse(s.createdAt),
        title: 'Checkout session created',
        detail: `${s.flow} · ${money(s.amount, s.currency, this.locale)}`,
      })
      for (const a of s.attempts) {
        const gateway = [a.code, a.description].filter(Boolean).join(' ')
        entries.push({
          at: a.at,
          title: a.status === 'action_required' ? `Attempt ${a.n}: 3-D Secure asked` : `Attempt ${a.n}`,
          status: a.status,
          detail: [a.method, gateway && `gateway: ${gateway}`].filter(Boolean).join(' · '),
        })
      }
    }
    entries.push({
      at: Date.parse(p.createdAt),
      title: p.paymentType === 'PA' ? 'Payment authorised' : 'Payment taken',
      detail: `${money(p.amount, p.currency, this.locale)} · ${p.id}`,
    })
    const ops: [string, Operation[]][] = [
      ['Capture', p.captures],
      ['Void', p.voids],
      ['Refund', p.refunds],
    ]
    for (const [kind, list] of ops)
      for (const o of list)
        entries.push({
          at: Date.parse(o.createdAt),
          title: `${kind}${kind === 'Void' ? '' : ` ${money(o.amount, p.currency, this.locale)}`}`,
          status: o.status,
          detail: [
            o.resultCode && `gateway: ${o.resultCode}`,
            o.reason,
            o.failure && `failed: ${o.failure.message ?? o.failure.code ?? ''}`,
          ]
            .filter(Boolean)
            .join(' · '),
        })
    for (const d of this.deliveries)
      entries.push({
        at: Date.parse(d.createdAt),
        title: `Webhook ${d.type}`,
        status: d.status,
        detail: [
          `${d.tries} ${d.tries === 1 ? 'try' : 'tries'}`,
          d.lastStatus !== null && `last answer ${d.lastStatus}`,
          d.nextRetryAt && `next try ${dateTime(d.nextRetryAt, this.locale)}`,
        ]
          .filter(Boolean)
          .join(' · '),
        delivery: d,
      })
    return entries.sort((a, b) => a.at - b.at)
  }

  private act(action: Action): void {
    void this.renderRoot.querySelector<PaymentAction>('payment-action')?.open(action)
  }

  private async acted(e: CustomEvent<{ action: Action; operation: Operation }>): Promise<void> {
    const { action, operation } = e.detail
    const what =
      action === 'void'
        ? 'Void'
        : `${action === 'capture' ? 'Capture' : 'Refund'} of ${money(operation.amount, this.payment?.currency ?? 'EUR', this.locale)}`
    this.announcement = `${what}: ${operation.status.replaceAll('_', ' ')}.`
    await this.load()
    await this.updateComplete
    // The button that acted may be gone (a void, or a refund of all of it, leaves nothing to do
    // again): the focus goes to the payment's heading, which says its new state, not to the body.
    if (focusLost()) this.renderRoot.querySelector<HTMLElement>('h1')?.focus()
  }

  private async sendAgain(d: Delivery): Promise<void> {
    const res = await this.api.POST('/v1/webhooks/deliveries/{eventId}/send-again', {
      params: { path: { eventId: d.id } },
    })
    if (res.response.status === 401) return signedOut(this)
    this.announcement = res.data
      ? `Webhook ${d.type} queued to be sent again.`
      : describeError(res.error, res.response.status)
    await this.load()
  }

  override render() {
    const p = this.payment
    return html`
      <p class="top">
        <a href="#/payments">← Payments</a>
        <button type="button" @click=${() => this.load()}>Refresh</button>
      </p>
      ${this.loading ? html`<p role="status">Loading the payment…</p>` : ''}
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : ''}
      <p role="status" aria-live="polite">${this.announcement}</p>
      ${p && !this.loading ? this.story(p) : ''}
    `
  }

  private story(p: Payment) {
    const refundable = Number(p.amountRefundable) > 0
    return html`
      <h1 tabindex="-1"><span class="ltr">${paymentAmount(p, this.locale)}</span> ${statusBadge(p.status)}</h1>
      <div class="summary">
        <section class="card" aria-labelledby="money">
          <h2 id="money">Money</h2>
          <dl>
            <dt>Captured</dt>
            <dd class="ltr">${money(p.amountCaptured, p.currency, this.locale)}</dd>
            <dt>Refunded</dt>
            <dd class="ltr">${money(p.amountRefunded, p.currency, this.locale)}</dd>
            <dt>Refundable</dt>
            <dd class="ltr">${money(p.amountRefundable, p.currency, this.locale)}</dd>
            <dt>Type</dt>
            <dd>${p.paymentType === 'PA' ? 'authorisation (PA)' : 'sale (DB)'}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="who">
          <h2 id="who">Order</h2>
          <dl>
            <dt>Order</dt>
            <dd class="ltr">${p.merchantTransactionId}</dd>
            <dt>Customer</dt>
            <dd>${p.email ?? '—'}</dd>
            <dt>Card</dt>
            <dd class="ltr">${cardText(p.card)}</dd>
            <dt>Paid by</dt>
            <dd>${p.source}</dd>
            <dt>Payment id</dt>
            <dd class="ltr">${p.id}</dd>
            <dt>Created</dt>
            <dd>${dateTime(p.createdAt, this.locale)}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="meta">
          <h2 id="meta">Metadata</h2>
          ${
            Object.keys(p.metadata).length
              ? html`<dl>
                ${Object.entries(p.metadata).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}
              </dl>`
              : html`<p class="muted">None</p>`
          }
        </section>
      </div>
      <div class="actions" role="group" aria-label="Actions">
        ${
          p.status === 'authorized'
            ? html`<button class="primary" type="button" @click=${() => this.act('capture')}>Capture…</button>
              <button class="danger" type="button" @click=${() => this.act('void')}>Void…</button>`
            : ''
        }
        ${refundable ? html`<button type="button" @click=${() => this.act('refund')}>Refund…</button>` : ''}
      </div>
      <payment-action .api=${this.api} .locale=${this.locale} .payment=${p} @acted=${this.acted}></payment-action>
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol>
          ${this.timeline(p).map(
            (e) => html`<li>
              <time datetime=${new Date(e.at).toISOString()}>${dateTime(e.at, this.locale, true)}</time>
              <span class="entry-title">${e.title}</span> ${e.status ? statusBadge(e.status) : ''}
              ${e.detail ? html`<div class="muted">${e.detail}</div>` : ''}
              ${
                e.delivery?.status === 'failing'
                  ? html`<button type="button" @click=${() => this.sendAgain(e.delivery as Delivery)}>
                    Send again<span class="visually-hidden"> ${e.delivery.type}</span>
                  </button>`
                  : ''
              }
            </li>`,
          )}
        </ol>
      </section>
    `
  }
}

if (!customElements.get('payment-page')) customElements.define('payment-page', PaymentPage)

declare global {
  interface HTMLElementTagNameMap {
    'payment-page': PaymentPage
  }
}

/** Whether the focus fell to the page's body (its element was removed), looking into shadow roots. */
function focusLost(): boolean {
  let active = document.activeElement
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement
  return !active || active === document.body
}
