/**
 * @module
 * The sandbox's own HTML pages: the 3-D Secure challenge (ACS), the hosted invoice payment page
 * and the auto-submitting return to the merchant. Plain pages, as a gateway would serve them.
 */
import type { InvoiceRow, PaymentRow } from './ledger.ts'

const esc = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.box{border:1px solid #ccc;border-radius:8px;padding:1.5rem}button{font:inherit;padding:.6rem 1.2rem;margin:.3rem .3rem 0 0;border-radius:6px;border:1px solid #555;cursor:pointer}
.primary{background:#0b57d0;color:#fff;border-color:#0b57d0}label{display:block;margin:.6rem 0 .2rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
.muted{color:#555;font-size:.9rem}.error{color:#b3261e}</style></head>
<body><p class="muted">Sandbox gateway: no real money moves.</p><div class="box">${body}</div></body></html>`

/** `query`: the member's `?member=` (members.ts), carried to the form's address. */
export function acsPage(p: PaymentRow, query = ''): string {
  return page(
    '3-D Secure authentication',
    `<h1>Confirm your payment</h1>
<p>Your bank asks you to confirm a payment of <strong>${esc(p.amount)} ${esc(p.currency)}</strong> with the card ending in <strong>${esc(p.last4)}</strong>.</p>
<form method="post" action="/acs/${esc(p.id)}/complete${esc(query)}">
<button class="primary" type="submit" name="outcome" value="authenticated">Authenticate</button>
<button type="submit" name="outcome" value="failed">Fail authentication</button>
</form>`,
  )
}

export function invoicePage(inv: InvoiceRow, expired: boolean, error: string): string {
  const details = `<h1>Invoice ${esc(inv.merchantInvoiceId)}</h1><p>Amount due: <strong>${esc(inv.amount)} ${esc(inv.currency)}</strong></p>`
  if (inv.paymentId) return page('Invoice paid', `${details}<p>This invoice has been paid.</p>`)
  if (expired)
    return page('Invoice expired', `${details}<p>This invoice has expired. Ask the merchant for a new one.</p>`)
  return page(
    `Pay invoice ${inv.merchantInvoiceId}`,
    `${details}${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post">
<label for="holder">Name on card</label><input id="holder" name="holder" autocomplete="cc-name" required>
<label for="number">Card number</label><input id="number" name="number" autocomplete="cc-number" inputmode="numeric" required>
<label for="month">Expiry month (MM)</label><input id="month" name="month" autocomplete="cc-exp-month" inputmode="numeric" required>
<label for="year">Expiry year (YYYY)</label><input id="year" name="year" autocomplete="cc-exp-year" inputmode="numeric" required>
<label for="cvv">Security code</label><input id="cvv" name="cvv" autocomplete="cc-csc" inputmode="numeric" required>
<button class="primary" type="submit">Pay ${esc(inv.amount)} ${esc(inv.currency)}</button>
</form>`,
  )
}

/** Sends the shopper back to the merchant; a form POST needs one click or the tiny script. */
export function returnPage(url: string | undefined, fields: Record<string, string>, method: 'GET' | 'POST'): string {
  if (!url) {
    return page('Payment finished', `<h1>Payment finished</h1><p>Status: ${esc(fields.status ?? '')}</p>`)
  }
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('')
  return page(
    'Returning to the shop',
    `<h1>Returning to the shop…</h1><form id="back" method="${method.toLowerCase()}" action="${esc(url)}">${inputs}<button class="primary" type="submit">Continue</button></form>
<script>document.getElementById('back').submit()</script>`,
  )
}
