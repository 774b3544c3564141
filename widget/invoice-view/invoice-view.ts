/**
 * @module
 * `<pay-invoice-view>`: an invoice payment page. Shows the invoice, offers to regenerate an expired
 * one, then links to the gateway's hosted page for the new invoice. Loaded only for invoice sessions.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit'
import { checkUrl, checkWith } from '../../shared/shopper-formats.ts'
import type { CheckoutView } from '../api-client.ts'
import { en, format, formatMoney, isolateLtr, type Messages } from '../i18n/index.ts'
import { formStyles, tokens } from '../theme.ts'

/** Only an https address (or a developer's own machine) becomes a pay link: the shared URL rule. */
export function safePayUrl(url: string | undefined): string | undefined {
  return url !== undefined && checkWith(checkUrl, url) === null ? url : undefined
}

/**
 * @summary The invoice and its regeneration.
 * @csspart details - The invoice details.
 * @csspart pay-link - The link to pay the invoice.
 */
export class PayInvoiceView extends LitElement {
  static override styles = [
    tokens,
    formStyles,
    css`
      :host {
        display: grid;
        gap: var(--_gap);
      }
      h2 {
        margin: 0;
        font-size: 1.125rem;
      }
      .button {
        justify-self: start;
      }
      p {
        margin: 0;
      }
      dl {
        display: grid;
        grid-template-columns: auto 1fr;
        gap: 0.25rem 1rem;
        margin: 0;
      }
      dt {
        font-weight: 600;
      }
      dd {
        margin: 0;
      }
    `,
  ]
  static override properties = { messages: { attribute: false }, view: { attribute: false }, locale: {} }

  declare messages: Messages
  declare view: CheckoutView | null
  declare locale: string

  constructor() {
    super()
    this.messages = en
    this.view = null
    this.locale = 'en'
  }

  /** Regenerates (the only action before there is a new invoice). */
  submit(): void {
    if (!this.view?.invoice?.regenerated) this.dispatchEvent(new CustomEvent('invoice-regenerate'))
  }

  private when(date: string | undefined, time: string | undefined, plusHours = 0): string {
    if (!date) return ''
    const at = new Date(`${date}T${(time ?? '00:00:00').trim().replace(/\.$/, '')}Z`)
    if (Number.isNaN(at.getTime())) return date
    at.setUTCHours(at.getUTCHours() + plusHours)
    return new Intl.DateTimeFormat(this.locale, { dateStyle: 'medium', timeStyle: 'short' }).format(at)
  }

  protected override render(): TemplateResult {
    const view = this.view
    const invoice = view?.invoice
    if (!view || !invoice) return html``
    const regenerated = invoice.regenerated
    const payUrl = safePayUrl(regenerated?.transactionUrl)
    return html`<h2>${format(this.messages, 'invoiceTitle', { id: isolateLtr(regenerated?.merchantInvoiceId ?? invoice.merchantInvoiceId ?? '', this.locale) })}</h2>
      <dl part="details">
        <dt>${this.messages.amount}</dt>
        <dd><bdi dir="ltr">${formatMoney(regenerated?.amount ?? view.amount, regenerated?.currency ?? view.currency, this.locale)}</bdi></dd>
        ${
          regenerated?.createdDate
            ? html`<dt>${this.messages.created}</dt>
              <dd>${this.when(regenerated.createdDate, regenerated.createdTime)}</dd>
              <dt>${this.messages.expires}</dt>
              <dd>${this.when(regenerated.createdDate, regenerated.createdTime, Number(regenerated.invoiceExpirationPeriod ?? 0))}</dd>`
            : nothing
        }
      </dl>
      ${
        regenerated
          ? payUrl
            ? html`<a class="button" part="pay-link" href=${payUrl} target="_top" rel="noopener">${this.messages.payInvoice}</a>`
            : nothing
          : html`<p>${this.messages.invoiceExpired}</p>
            <button type="button" @click=${() => this.submit()}>${this.messages.regenerate}</button>`
      }`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-invoice-view': PayInvoiceView
  }
}

if (!customElements.get('pay-invoice-view')) customElements.define('pay-invoice-view', PayInvoiceView)
