/**
 * @module
 * `<payment-action>`: capture, void or refund one payment, asked first. A modal `<dialog>` (focus
 * kept inside, Escape cancels) with the amount to move (capture and refund: partial allowed,
 * prefilled with all that can move) and, for a refund, a reason. Each request (payment, action,
 * amount, reason) has its Idempotency-Key, sent with every try of it until its outcome comes
 * (`isOutcome`), so a double click, or a retry after a lost answer, one still under way or a first
 * request still at the gateway (even from a dialog opened again), acts once, and a corrected amount,
 * or the same one once the first shows settled on the payment, is a new request. Fires `acted` with the operation's answer; an error stays in the dialog.
 */
import { css, html, LitElement } from 'lit'
import { describeError, signedOut, type ApiError, type ConsoleApi, type Operation, type Payment } from '../api.ts'
import { parseAmount } from '../../shared/money.ts'
import { decimalAmount, money } from '../format.ts'
import { shared } from '../styles.ts'

export type Action = 'capture' | 'void' | 'refund'

const TITLES: Record<Action, string> = { capture: 'Capture', void: 'Void', refund: 'Refund' }

/** A failure that says nothing was done (the gateway unreachable, our credentials refused) or that it refused. */
const FAILED = new Set(['gateway_rejected', 'gateway_auth_failed', 'gateway_unavailable'])

/**
 * Whether an answer is the request's outcome, after which the same amount again is a new request
 * (a new key): done, refused for a reason, or failed. An operation still under way (202), a first
 * request with this key still at the gateway (409 in progress) or another 5xx, which may hide an
 * outcome the Worker settles later, is not: the same request again sends the same key and learns it.
 */
/** Whether the payment shows its operation `id` settled (no longer under way). */
const settledOn = (p: Payment, id: string): boolean =>
  [...p.captures, ...p.voids, ...p.refunds].some(
    (o) => o.id === id && o.status !== 'unknown' && o.status !== 'processing',
  )

function isOutcome(status: number, code: string | undefined): boolean {
  if (status === 202 || code === 'idempotency_in_progress') return false
  return status < 500 || (code !== undefined && FAILED.has(code))
}

export class PaymentAction extends LitElement {
  static override styles = [
    shared,
    css`
      dialog {
        border: 1px solid var(--c-border);
        border-radius: 10px;
        background: var(--c-bg);
        color: var(--c-text);
        width: min(26rem, calc(100vw - 2rem));
        padding: 1.25rem;
      }
      dialog::backdrop {
        background: rgb(0 0 0 / 45%);
      }
      form {
        display: grid;
        gap: 0.9rem;
      }
      .buttons {
        display: flex;
        justify-content: flex-end;
        gap: 0.5rem;
      }
    `,
  ]
  static override properties = {
    api: { attribute: false },
    locale: {},
    payment: { attribute: false },
    action: { state: true },
    busy: { state: true },
    error: { state: true },
  }

  declare api: ConsoleApi
  declare locale: string
  declare payment: Payment
  declare private action: Action | undefined
  declare private busy: boolean
  declare private error: string
  /**
   * Idempotency-Keys by payment, action and body, kept until a request gets its outcome: a try
   * whose outcome did not come is sent again, even from a reopened dialog, with the same key.
   */
  private keys = new Map<string, string>()
  /**
   * The operation a kept key made, by request, when it was answered as still under way (202): once
   * the payment shows it settled, that request has had its outcome, and the same amount again is a
   * new request (a second refund), not a replay of the first.
   */
  private underWay = new Map<string, string>()

  constructor() {
    super()
    this.locale = 'en'
    this.busy = false
    this.error = ''
  }

  /** Opens the dialog for `action`. */
  async open(action: Action): Promise<void> {
    this.action = action
    this.error = ''
    await this.updateComplete
    this.renderRoot.querySelector('dialog')?.showModal()
  }

  private close(): void {
    this.renderRoot.querySelector('dialog')?.close()
  }

  private async confirm(e: SubmitEvent): Promise<void> {
    e.preventDefault()
    // A second click while the first is on its way sends nothing; a later one sends the same key.
    if (this.busy || !this.action) return
    const form = new FormData(e.target as HTMLFormElement)
    const reason = String(form.get('reason') ?? '').trim()
    let amount = ''
    if (this.action !== 'void') {
      const most = this.action === 'capture' ? this.payment.amount : this.payment.amountRefundable
      const typed = decimalAmount(String(form.get('amount') ?? ''))
      // Compared in hundredths, as the API counts: no floating point between the two.
      if (typed === undefined || typed === '0.00' || (parseAmount(typed) ?? 0) > (parseAmount(most) ?? 0)) {
        this.error = `Enter an amount from 0.01 to ${most}, like 10.50.`
        return
      }
      amount = typed
    }
    const path = { paymentId: this.payment.id }
    const asked = JSON.stringify([this.payment.id, this.action, amount, reason])
    const made = this.underWay.get(asked)
    if (made !== undefined && settledOn(this.payment, made)) {
      this.keys.delete(asked)
      this.underWay.delete(asked)
    }
    const key = this.keys.get(asked) ?? crypto.randomUUID()
    this.keys.set(asked, key)
    const headers = { 'Idempotency-Key': key }
    this.busy = true
    let answer
    try {
      answer =
        this.action === 'capture'
          ? await this.api.POST('/v1/payments/{paymentId}/capture', {
              params: { path, header: headers },
              body: amount ? { amount } : {},
            })
          : this.action === 'void'
            ? await this.api.POST('/v1/payments/{paymentId}/void', { params: { path, header: headers }, body: {} })
            : await this.api.POST('/v1/payments/{paymentId}/refunds', {
                params: { path, header: headers },
                body: { ...(amount ? { amount } : {}), ...(reason ? { reason } : {}) },
              })
    } catch {
      // No answer (the network): it may have acted. The same request again sends the same key.
      this.error = 'No answer came. Confirm again: the same request is acted on once.'
      return
    } finally {
      this.busy = false
    }
    const code = (answer.error as { error?: ApiError } | undefined)?.error?.code
    if (isOutcome(answer.response.status, code)) this.keys.delete(asked)
    if (answer.response.status === 202 && answer.data) this.underWay.set(asked, answer.data.operation.id)
    if (answer.response.status === 401) return signedOut(this)
    if (code === 'idempotency_in_progress') {
      this.error = 'The first request is still being acted on. Confirm again in a moment to see its outcome.'
      return
    }
    if (!answer.data) {
      this.error = describeError(answer.error, answer.response.status)
      return
    }
    this.close()
    this.dispatchEvent(
      new CustomEvent<{ action: Action; operation: Operation }>('acted', {
        detail: { action: this.action, operation: answer.data.operation },
      }),
    )
  }

  override render() {
    const p = this.payment
    const a = this.action
    const remaining = !p || !a ? '' : a === 'capture' ? p.amount : a === 'refund' ? p.amountRefundable : ''
    return html`
      <dialog aria-labelledby="action-title" @close=${() => (this.action = undefined)}>
        ${
          a && p
            ? html`<form @submit=${this.confirm} novalidate>
              <h2 id="action-title">${TITLES[a]}</h2>
              <p>
                Payment of <span class="ltr">${money(p.amount, p.currency, this.locale)}</span>
                (${p.merchantTransactionId})${
                  a === 'void'
                    ? html`: the authorisation is released, nothing will be charged to the customer.`
                    : html`; up to <span class="ltr">${money(remaining, p.currency, this.locale)}</span> can be
                        ${a === 'capture' ? 'captured, once: what is not captured is released' : 'refunded'}.`
                }
              </p>
              ${
                a === 'void'
                  ? ''
                  : html`<label
                    >Amount to ${a === 'capture' ? 'capture' : 'refund'} (${p.currency})
                    <input
                      name="amount"
                      inputmode="decimal"
                      autocomplete="off"
                      aria-describedby=${this.error ? 'action-error' : ''}
                      aria-invalid=${this.error ? 'true' : 'false'}
                      .value=${remaining}
                      @input=${() => (this.error = '')}
                      required
                  /></label>`
              }
              ${
                a === 'refund'
                  ? html`<label>Reason (optional)<input name="reason" maxlength="200" autocomplete="off" /></label>`
                  : ''
              }
              ${this.error ? html`<p id="action-error" class="error" role="alert">${this.error}</p>` : ''}
              <div class="buttons">
                <button type="button" @click=${this.close}>Cancel</button>
                <button class=${a === 'void' ? 'danger' : 'primary'} type="submit" ?disabled=${this.busy}>
                  ${this.busy ? 'Working…' : `Confirm ${TITLES[a].toLowerCase()}`}
                </button>
              </div>
            </form>`
            : ''
        }
      </dialog>
    `
  }
}

if (!customElements.get('payment-action')) customElements.define('payment-action', PaymentAction)

declare global {
  interface HTMLElementTagNameMap {
    'payment-action': PaymentAction
  }
}
