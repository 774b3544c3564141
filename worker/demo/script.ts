/**
 * @module
 * The demo pages' one script (served as /demo/app.js; plain JavaScript so no build step is needed).
 * It asks the demo backend for a session, hands id and client secret to `<pay-checkout>`, and shows
 * the element's events. The client secret is kept in sessionStorage only so the page can resume
 * after the 3-D Secure return or a reload (it never goes into a URL; the session id does).
 */
export const DEMO_SCRIPT = `
const page = document.body.dataset.page
const el = document.getElementById('checkout')
const out = document.getElementById('result')
const show = (text) => { out.textContent = text }
// The brands as shoppers read them (the event names them in lower case, as the API does).
const BRANDS = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB', diners: 'Diners Club', unionpay: 'UnionPay', maestro: 'Maestro' }

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  return { ok: res.ok, body: await res.json().catch(() => ({})) }
}

async function mount(kind, extra = {}) {
  const back = new URLSearchParams(location.search).get('session')
  const saved = back && sessionStorage.getItem('cs:' + back)
  let s = saved ? { id: back, clientSecret: saved, endpoint: location.origin, frameToken: sessionStorage.getItem('ft:' + back) } : null
  if (!s) {
    const r = await post('/demo/api/session', { kind, ...extra })
    if (!r.ok) return show(r.body.error ? r.body.error.message : 'Could not start the checkout.')
    s = r.body
    sessionStorage.setItem('cs:' + s.id, s.clientSecret)
    if (s.frameToken) sessionStorage.setItem('ft:' + s.id, s.frameToken)
    // The page's address names its order, as a shop's order page does: a reload shows the same
    // checkout (and a payment under way), not a new order.
    const url = new URL(location.href)
    url.searchParams.set('session', s.id)
    history.replaceState(history.state, '', url)
  }
  if (kind === 'subscription') localStorage.setItem('demo:subscription', s.id)
  // ?isolation=frame or ?isolation=inline shows the same page in that mode; kept with the client
  // secret for the 3-D Secure return, whose address the session fixed.
  const isolation = new URLSearchParams(location.search).get('isolation') || sessionStorage.getItem('iso:' + s.id)
  if (isolation === 'frame' || isolation === 'inline') {
    el.setAttribute('isolation', isolation)
    sessionStorage.setItem('iso:' + s.id, isolation)
  }
  el.setAttribute('endpoint', s.endpoint)
  el.setAttribute('session', s.id)
  el.setAttribute('client-secret', s.clientSecret)
  if (s.frameToken) el.setAttribute('frame-token', s.frameToken)
  return s
}

if (el) {
  el.addEventListener('pay-success', (e) => {
    show('Paid: payment ' + e.detail.paymentId + (e.detail.last4 ? ' with ' + (BRANDS[e.detail.brand] || 'a card') + ' ending ' + e.detail.last4 : '') + '.')
    const again = document.getElementById('charge-again')
    if (again) again.disabled = false
  })
  el.addEventListener('pay-declined', (e) => show('Declined. Attempts left: ' + e.detail.attemptsRemaining + '.'))
  el.addEventListener('pay-pending', () => show('Waiting for the gateway to confirm...'))
  el.addEventListener('pay-error', (e) => show('Error: ' + e.detail.code + (e.detail.fields.length ? ' (' + e.detail.fields.map((f) => f.field).join(', ') + ')' : '')))
  const extra = page === 'saved-card' ? { subscription: localStorage.getItem('demo:subscription') || '' } : page === 'product' && new URLSearchParams(location.search).get('authorize') === '1' ? { authorize: true } : {}
  // A visitor with no subscription yet has no saved card: said here, not by a refused request.
  if (page === 'saved-card' && !extra.subscription) show('Pay a subscription first: its card is the saved card.')
  else mount(page, extra)
}

const again = document.getElementById('charge-again')
if (again) {
  again.addEventListener('click', async () => {
    again.disabled = true
    const r = await post('/demo/api/charge-again', { subscription: localStorage.getItem('demo:subscription') || '' })
    show(r.ok ? 'Charged again: ' + r.body.status + (r.body.paymentId ? ' (payment ' + r.body.paymentId + ')' : '') + '.' : (r.body.error ? r.body.error.message : 'Failed.'))
    again.disabled = false
  })
}

/** A table row of text cells (textContent: nothing from the server becomes markup). */
function row(cells) {
  const tr = document.createElement('tr')
  for (const text of cells) {
    const td = document.createElement('td')
    td.textContent = text
    tr.append(td)
  }
  return tr
}

/** Refund (with an optional amount), Capture and Void for one order, as its payment allows. */
function actions(o) {
  const td = document.createElement('td')
  const p = o.payment
  if (!p) return td
  const button = (action, label, amountInput) => {
    const b = document.createElement('button')
    b.type = 'button'
    b.textContent = label
    b.dataset.action = action
    b.dataset.session = o.sessionId
    b.addEventListener('click', async () => {
      b.disabled = true
      const r = await post('/demo/api/payment-action', { session: o.sessionId, action, amount: amountInput ? amountInput.value : '' })
      // A refusal names the fields and their rules, as the Worker's error does.
      const e = r.body.error
      const why = e ? e.message.replace(/\\.$/, '') + (e.fields && e.fields.length ? ' (' + e.fields.map((f) => f.field + ': ' + (f.expected || f.code)).join(', ') + ')' : '') : 'failed'
      show(r.ok ? label + ': ' + r.body.operation.status + ' (' + r.body.operation.amount + ' ' + p.currency + '), payment ' + r.body.payment.status + '.' : 'Could not ' + action + ': ' + why + '.')
      await orders(true)
    })
    td.append(b, ' ')
  }
  if (Number(p.amountRefundable) > 0) {
    const amount = document.createElement('input')
    amount.size = 7
    amount.placeholder = p.amountRefundable
    amount.setAttribute('aria-label', 'Refund amount for ' + o.sessionId + ' (empty: all that remains)')
    amount.dataset.amountFor = o.sessionId
    td.append(amount, ' ')
    button('refund', 'Refund', amount)
  }
  if (p.status === 'authorized') {
    button('capture', 'Capture')
    button('void', 'Void')
  }
  return td
}

let shown = ''
async function orders(force) {
  const res = await fetch('/demo/api/orders')
  const text = await res.text()
  // Redrawn only when something changed, so a refund amount being typed is not wiped.
  if (text === shown && !force) return
  shown = text
  const data = JSON.parse(text)
  const body = document.querySelector('#orders tbody')
  body.replaceChildren()
  for (const o of data.orders) {
    const p = o.payment
    const refunds = p ? p.refunds.map((r) => r.amount + ' ' + r.status + (r.reason ? ' (' + r.reason + ')' : '')).join('; ') : ''
    const tr = row([new Date(o.createdAt).toLocaleString(), o.kind, o.sessionId, o.session.status || '?', (o.session.amount || '') + ' ' + (o.session.currency || ''), (o.session.paymentId || '') + (p ? ' · ' + p.status + (Number(p.amountCaptured) > 0 && Number(p.amountCaptured) < Number(p.amount) ? ' ' + p.amountCaptured + ' of ' + p.amount : '') : ''), refunds])
    tr.dataset.session = o.sessionId
    tr.append(actions(o))
    body.append(tr)
  }
  const hooks = document.querySelector('#webhooks tbody')
  hooks.replaceChildren()
  for (const h of data.webhooks) {
    hooks.append(row([new Date(h.receivedAt).toLocaleString(), h.id, h.type, h.verified ? 'valid' : 'INVALID']))
  }
}
if (page === 'orders') {
  orders()
  setInterval(orders, 3000)
}
`
