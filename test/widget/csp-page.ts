// The strict-CSP page's only script (no inline code): mounts the element for the session named
// in the URL, records CSP violations, fills and pays, and leaves the outcome on `window`.
import '../../widget/index.ts'

interface Report {
  violations: string[]
  result?: string
}
const report: Report = { violations: [] }
;(window as unknown as { cspReport: Report }).cspReport = report
document.addEventListener('securitypolicyviolation', (e) =>
  report.violations.push(`${e.violatedDirective} ${e.blockedURI}`),
)

const params = new URLSearchParams(location.search)
const el = document.getElementById('checkout')
if (el) {
  el.setAttribute('endpoint', params.get('endpoint') ?? '')
  el.setAttribute('session', params.get('session') ?? '')
  el.setAttribute('client-secret', params.get('secret') ?? '')
  el.addEventListener('pay-ready', async () => {
    // The pay button waits for the session: fill once it shows the amount.
    const inline = () => el.shadowRoot?.querySelector('pay-card-inline, pay-checkout-inline')?.shadowRoot
    while (!inline()?.querySelector('[part=amount]')) await new Promise((r) => setTimeout(r, 20))
    const form = el.shadowRoot
      ?.querySelector('pay-card-inline, pay-checkout-inline')
      ?.shadowRoot?.querySelector('pay-card-fields, pay-card-form')
    const values: Record<string, string> = {
      number: '4111 1111 1111 1111',
      expiry: '12 / 30',
      cvv: '123',
      givenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
    }
    for (const [id, value] of Object.entries(values)) {
      const input = form?.shadowRoot?.querySelector<HTMLInputElement>(`#${id}`)
      if (input) {
        input.value = value
        input.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }))
      }
    }
    form?.shadowRoot?.querySelector('form')?.requestSubmit()
  })
  el.addEventListener('pay-success', () => (report.result = 'succeeded'))
  el.addEventListener('pay-error', (e) => (report.result = `error ${e.detail.code}`))
}
