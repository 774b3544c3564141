// A 3-D Secure redirect that reaches the element with a `javascript:` target must never run on
// the merchant's page (SECURITY.md R28), whichever way it arrives: a pay answer in inline mode, or
// an `action` message from the card frame in frame mode.
import { expect, fixture, html } from '@open-wc/testing'
import { CHANNEL } from '../../widget/card-frame/messages.ts'
import type { PayCheckout } from '../../widget/index.ts'
import '../../widget/index.ts'
import '../../widget/invoice-view/invoice-view.ts'
import type { PayInvoiceView } from '../../widget/invoice-view/invoice-view.ts'
import { fill, mount, payButton, until } from './helpers.ts'

declare global {
  interface Window {
    __payPwned?: number
  }
}

const HOSTILE = 'javascript:void(window.__payPwned=1)'

describe('gateway-supplied redirects on the page', () => {
  it('inline: a pay answer with a javascript: redirect does not run it; the element shows the payment as being confirmed', async () => {
    delete window.__payPwned
    const { el } = await mount()
    const realFetch = window.fetch
    const actions: unknown[] = []
    const pending: string[] = []
    el.addEventListener('pay-action', (e) => actions.push(e.detail))
    el.addEventListener('pay-pending', (e) => pending.push(e.detail.status))
    // The pay answer as a hostile gateway (or a compromised path) would shape it.
    window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input)
      if (url.endsWith('/pay')) {
        return new Response(
          JSON.stringify({
            status: 'action_required',
            redirect: { url: HOSTILE, method: 'POST', parameters: [{ name: 'MD', value: '1' }] },
            attemptsRemaining: 2,
            message: 'x',
          }),
          {
            status: 200,
            headers: { 'Content-Type': 'application/json' },
          },
        )
      }
      return realFetch(input, init)
    }
    try {
      await fill(el)
      payButton(el).click()
      await until(() => pending.length > 0 || actions.length > 0)
      await new Promise((r) => setTimeout(r, 300))
    } finally {
      window.fetch = realFetch
    }
    expect(window.__payPwned).to.equal(undefined)
    expect(actions).to.deep.equal([])
    expect(pending).to.deep.equal(['unknown'])
    expect(document.querySelector('form[target="_top"]')).to.equal(null)
  })

  it('frame: an action message from the frame with a javascript: redirect does not run it', async () => {
    delete window.__payPwned
    const endpoint = 'http://127.0.0.1:9'
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="frame" endpoint=${endpoint} session="cs_AAAAAAAAAAAAAAAAAAAAAAAA" client-secret="x"></pay-checkout>`,
    )
    const frame = el.shadowRoot?.querySelector('iframe')
    if (!frame?.contentWindow) throw new Error('no frame')
    const actions: unknown[] = []
    const pending: string[] = []
    el.addEventListener('pay-action', (e) => actions.push(e.detail))
    el.addEventListener('pay-pending', (e) => pending.push(e.detail.status))
    // Exactly what the host accepts from its frame: its window, its origin, a valid shape.
    window.dispatchEvent(
      new MessageEvent('message', {
        data: {
          channel: CHANNEL,
          type: 'action',
          redirect: { url: HOSTILE, method: 'POST', parameters: [{ name: 'MD', value: '1' }] },
        },
        origin: endpoint,
        source: frame.contentWindow,
      }),
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(window.__payPwned).to.equal(undefined)
    expect(actions).to.deep.equal([])
    expect(pending).to.deep.equal(['unknown'])
  })
})

describe('gateway-supplied invoice links', () => {
  it('an invoice transactionUrl that is not https (or http on this machine) is never rendered as the pay link', async () => {
    const view = (transactionUrl: string) => ({
      id: 'cs_AAAAAAAAAAAAAAAAAAAAAAAA',
      flow: 'invoice',
      status: 'open',
      amount: '250.00',
      currency: 'EUR',
      attemptsRemaining: 3,
      invoice: {
        merchantInvoiceId: 'inv-1',
        regenerated: { merchantInvoiceId: 'inv-1', amount: '250.00', currency: 'EUR', transactionUrl },
      },
    })
    for (const bad of [
      HOSTILE,
      'data:text/html,<script>window.__payPwned=1</script>',
      'http://pay.example/invoice',
      'https://user:pw@pay.example/x',
    ]) {
      const el = await fixture<PayInvoiceView>(html`<pay-invoice-view .view=${view(bad) as never}></pay-invoice-view>`)
      expect(el.shadowRoot?.querySelector('[part=pay-link]'), bad).to.equal(null)
    }
    const el = await fixture<PayInvoiceView>(
      html`<pay-invoice-view .view=${view('https://pay.example/invoice/1') as never}></pay-invoice-view>`,
    )
    expect(el.shadowRoot?.querySelector('[part=pay-link]')?.getAttribute('href')).to.equal(
      'https://pay.example/invoice/1',
    )
  })
})
