/**
 * @module
 * The demo shop's pages: plain HTML under a strict Content-Security-Policy (no inline script or
 * style), the widget from this Worker's origin, and one page script.
 */

export type DemoPage = 'product' | 'checkout' | 'subscription' | 'saved-card' | 'qr' | 'invoice' | 'orders'

const NAV: [DemoPage, string][] = [
  ['product', 'Product (card)'],
  ['checkout', 'Card or QR'],
  ['subscription', 'Subscription'],
  ['saved-card', 'Saved card'],
  ['qr', 'QR wallet'],
  ['invoice', 'Invoice'],
  ['orders', 'Orders'],
]

const TEST_CARDS = `<details open><summary>Sandbox test cards</summary>
<table><thead><tr><th scope="col">Card</th><th scope="col">Result</th></tr></thead><tbody>
<tr><td><code>4111 1111 1111 1111</code>, <code>5555 5555 5555 4444</code>, <code>3782 822463 10005</code></td><td>succeeds</td></tr>
<tr><td><code>4000 0000 0000 0002</code></td><td>declined</td></tr>
<tr><td><code>4000 0000 0000 3220</code></td><td>3-D Secure, on the sandbox's bank page</td></tr>
<tr><td><code>4000 0000 0000 0259</code></td><td>pending, settled by notification a few seconds later</td></tr>
<tr><td><code>4000 0000 0000 0119</code></td><td>the gateway answers HTTP 500 after charging: settled by inquiry</td></tr>
<tr><td><code>4000 0000 0000 9995</code></td><td>the gateway answers too late: settled by inquiry</td></tr>
</tbody></table><p>Any future expiry (e.g. 12 / 30), any CVV of the right length (Amex: 4 digits).</p></details>`

const CONTENT: Record<DemoPage | 'index', { title: string; body: string }> = {
  index: {
    title: 'pay-checkout demo shop',
    body: `<p>Every flow of <code>&lt;pay-checkout&gt;</code> against the sandbox gateway. No real money moves.</p>
<ul class="cards">${NAV.map(([p, t]) => `<li><a href="/demo/${p}">${t}</a></li>`).join('')}</ul>${TEST_CARDS}`,
  },
  product: {
    title: 'Noise-cancelling headphones',
    body: `<p>One-off purchase, 49.00 EUR, paid by card. <a href="/demo/product?authorize=1">Authorise only</a> (capture or void it later on the Orders page).</p><pay-checkout id="checkout" theme="auto" collect-shipping></pay-checkout>${TEST_CARDS}`,
  },
  checkout: {
    title: 'Travel mug',
    body: `<p>35.00 EUR, by card or with your QR wallet: one session offering both (<code>methods: ["card", "qr"]</code>). Once one way to pay is under way, the other is closed.</p><pay-checkout id="checkout" theme="auto"></pay-checkout>${TEST_CARDS}`,
  },
  subscription: {
    title: 'Coffee subscription',
    body: `<p>The first payment (9.99 EUR, <code>recurring: INITIAL</code>) stores the card; then your server charges again, without the shopper.</p>
<pay-checkout id="checkout" theme="auto"></pay-checkout>
<p><button type="button" id="charge-again" disabled>Charge again (server side repeat)</button></p>${TEST_CARDS}`,
  },
  'saved-card': {
    title: 'Pay with your saved card',
    body: `<p>Uses the card stored by the subscription page: only the security code is asked.</p><pay-checkout id="checkout" theme="auto"></pay-checkout>`,
  },
  qr: {
    title: 'Pay with your QR wallet',
    body: `<p>25.00 EUR. Wallet ids: <code>wallet-ok</code> pays, <code>wallet-declined</code> is declined.</p><pay-checkout id="checkout" theme="auto"></pay-checkout>`,
  },
  invoice: {
    title: 'Your invoice',
    body: `<p>The order's invoice was issued with a time that has run out: get a new one below, then pay it on the gateway's page (try <code>4111 1111 1111 1111</code>).</p><pay-checkout id="checkout" theme="auto"></pay-checkout>`,
  },
  orders: {
    title: 'Orders',
    body: `<p>Sessions this shop created, their payments, and the webhooks it received (signatures verified). Refund, capture and void go through the merchant API from the shop's server.</p>
<h2 id="sessions-title">Sessions</h2><div class="wide" tabindex="0" role="region" aria-labelledby="sessions-title"><table id="orders"><thead><tr><th scope="col">Created</th><th scope="col">Page</th><th scope="col">Session</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Payment</th><th scope="col">Refunds</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table></div>
<h2 id="webhooks-title">Webhooks</h2><div class="wide" tabindex="0" role="region" aria-labelledby="webhooks-title"><table id="webhooks"><thead><tr><th scope="col">Received</th><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Signature</th></tr></thead><tbody></tbody></table></div>`,
  },
}

const RESULT = '<p id="result" role="status" aria-live="polite"></p>'

/**
 * The page's status line (the checkout's events, the orders' actions) where it is seen after an
 * action: right below the checkout, above the test cards; on the orders page below its first
 * paragraph, above the tables whose buttons it answers.
 */
const withResult = (body: string): string =>
  body.includes('</pay-checkout>')
    ? body.replace('</pay-checkout>', `</pay-checkout>${RESULT}`)
    : body.replace('</p>', `</p>${RESULT}`)

export function page(name: DemoPage | 'index'): string {
  const { title, body } = CONTENT[name]
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · pay-checkout demo</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/demo/app.css"></head>
<body data-page="${name}">
<header><a class="home" href="/demo/">pay-checkout demo</a><nav aria-label="Demo pages">${NAV.map(([p, t]) => `<a href="/demo/${p}"${p === name ? ' aria-current="page"' : ''}>${t}</a>`).join('')}<a href="/demo/console">Merchant console</a></nav></header>
<main><h1>${title}</h1>${withResult(body)}</main>
<script type="module" src="/widget/pay-checkout.js"></script>
<script type="module" src="/demo/app.js"></script>
</body></html>`
}

export const DEMO_CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f9}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;padding:.75rem 1.5rem;background:#fff;border-bottom:1px solid #ddd}
a{color:#0b57d0}.home{font-weight:700;margin-right:1rem}nav{display:flex;flex-wrap:wrap;gap:1rem}
nav a[aria-current]{font-weight:700;text-decoration:none;color:#1b1b1f}
main{max-width:46rem;margin:0 auto;padding:1.5rem}.wide{overflow-x:auto}table{border-collapse:collapse;width:100%;margin:.5rem 0;background:#fff}
th,td{border:1px solid #ddd;padding:.35rem .5rem;text-align:left;font-size:.9rem;vertical-align:top}code{font-size:.95em}
details{margin-top:1.5rem}button{font:inherit;padding:.6rem 1rem;border-radius:8px;border:1px solid #0b57d0;background:#fff;color:#0b57d0;cursor:pointer}
button[disabled]{opacity:.5;cursor:not-allowed}#result{font-weight:600}pay-checkout{margin:1rem 0}
@media (prefers-color-scheme: dark){body{background:#121214;color:#e4e2e6}header,table{background:#1b1b1f;border-color:#444}th,td{border-color:#444}a,nav a[aria-current]{color:#a8c7fa}}`
