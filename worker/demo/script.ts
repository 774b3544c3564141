/**
 * @module
 * The demo pages' one script (served as /demo/app.js; plain JavaScript so no build step is needed).
 * It asks the demo backend for a session, hands id and client secret to `<pay-checkout>`, and shows
 * the element's events. The client secret is kept in sessionStorage only so the page can resume
 * after the 3-D Secure return (it never goes into a URL).
 */
export const DEMO_SCRIPT = `
const page = document.body.dataset.page
const el = document.getElementById('checkout')
const out = document.getElementById('result')
const show = (text) => { out.textContent = text }

async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  return { ok: res.ok, body: await res.json().catch(() => ({})) }
}

async function mount(kind, extra = {}) {
  const back = new URLSearchParams(location.search).get('session')
  const saved = back && sessionStorage.getItem('cs:' + back)
  let s = saved ? { id: back, clientSecret: saved, endpoint: location.origin } : null
  if (!s) {
    const r = await post('/demo/api/session', { kind, ...extra })
    if (!r.ok) return show(r.body.error ? r.body.error.message : 'Could not start the checkout.')
    s = r.body
    sessionStorage.setItem('cs:' + s.id, s.clientSecret)
  }
  if (kind === 'subscription') localStorage.setItem('demo:subscription', s.id)
  // ?isolation=frame shows the same page with the card form in the Worker's frame.
  const isolation = new URLSearchParams(location.search).get('isolation')
  if (isolation === 'frame' || isolation === 'inline') el.setAttribute('isolation', isolation)
  el.setAttribute('endpoint', s.endpoint)
  el.setAttribute('session', s.id)
  el.setAttribute('client-secret', s.clientSecret)
  return s
}

if (el) {
  el.addEventListener('pay-success', (e) => {
    show('Paid: payment ' + e.detail.paymentId + (e.detail.last4 ? ' with ' + (e.detail.brand || 'card') + ' ending ' + e.detail.last4 : '') + '.')
    const again = document.getElementById('charge-again')
    if (again) again.disabled = false
  })
  el.addEventListener('pay-declined', (e) => show('Declined. Attempts left: ' + e.detail.attemptsRemaining + '.'))
  el.addEventListener('pay-pending', () => show('Waiting for the gateway to confirm...'))
  el.addEventListener('pay-error', (e) => show('Error: ' + e.detail.code + (e.detail.fields.length ? ' (' + e.detail.fields.map((f) => f.field).join(', ') + ')' : '')))
  const extra = page === 'saved-card' ? { subscription: localStorage.getItem('demo:subscription') || '' } : {}
  mount(page, extra)
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

async function orders() {
  const res = await fetch('/demo/api/orders')
  const data = await res.json()
  const body = document.querySelector('#orders tbody')
  body.replaceChildren()
  for (const o of data.orders) {
    body.append(row([new Date(o.createdAt).toLocaleString(), o.kind, o.sessionId, o.session.status || '?', (o.session.amount || '') + ' ' + (o.session.currency || ''), o.session.paymentId || '']))
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
