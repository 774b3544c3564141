/**
 * Back from a failed 3-D Secure step, inline, in real Chromium against the Worker and the sandbox:
 * the shop's page loads the checkout again, and what the shopper typed besides the card is in the
 * form again (kept in the tab's sessionStorage over the bank's step), never the card's number,
 * expiry or CVV. Both inline card forms: the light one (a card alone) and the full checkout's (a
 * session with several ways to pay). Frame mode's is the end-to-end demo's (test/e2e/demo.test.ts).
 */
import { expect, oneEvent } from '@open-wc/testing'
import type { PayCheckout } from '../../widget/index.ts'
import { fill, inlineFor, input, loaded, mount, payButton, sessionState, status, until } from './helpers.ts'

const KEPT = 'pay-checkout/typed'

/** The shopper on the bank's page, failing the step: what its form posts (the sandbox's ACS). */
async function failAtBank(redirect: { url: string }): Promise<void> {
  const url = new URL(redirect.url)
  url.pathname += '/complete'
  await fetch(url, {
    method: 'POST',
    mode: 'no-cors',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'outcome=failed',
  })
}

/** The gateway's notification of the failed step has reached the Worker: the session is declined. */
async function declined(id: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await sessionState(id)).status !== 'declined') {
    if (Date.now() > deadline) throw new Error('the session was not declined')
    await new Promise((r) => setTimeout(r, 200))
  }
}

for (const [label, body] of [
  ['the light form (a card alone)', {}],
  ['the full checkout (card and QR wallet)', { methods: ['card', 'qr'] }],
] as const) {
  describe(`back from a failed bank step, inline: ${label}`, () => {
    it('the name and email typed are in the form again; the card number, expiry and CVV are not, and were never kept', async () => {
      sessionStorage.clear()
      const { el, session } = await mount(body)
      await fill(el, { number: '4000 0000 0000 3220' })
      el.addEventListener('pay-action', (e) => e.preventDefault())
      const action = oneEvent(el, 'pay-action')
      payButton(el).click()
      const { redirect } = (await action).detail

      const kept = sessionStorage.getItem(KEPT) ?? ''
      expect(JSON.parse(kept)).to.deep.equal([
        session.id,
        { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
      ])
      expect(kept).to.not.contain('3220')

      await failAtBank(redirect)
      await declined(session.id)
      el.remove()

      // The shop's page loaded again (the bank sends the shopper back to it).
      const again: PayCheckout = inlineFor(session)
      try {
        await loaded(again)
        await until(() => input(again, 'givenName').value === 'Ada')
        // The form that put it back: the full checkout's (Lit) for several ways to pay, else the light one.
        expect(!!again.shadowRoot?.querySelector('pay-checkout-inline')).to.equal('methods' in body)
        expect(input(again, 'surname').value).to.equal('Lovelace')
        expect(input(again, 'email').value).to.equal('ada@example.com')
        for (const id of ['number', 'expiry', 'cvv']) expect(input(again, id).value, id).to.equal('')
        expect(status(again)).to.equal('Your card was declined. Please try again or use another card. 2 attempts left.')
        // Read once: taken out of the tab's storage.
        expect(sessionStorage.getItem(KEPT)).to.equal(null)
      } finally {
        again.remove()
      }
    })
  })
}

describe('what was kept over a bank step', () => {
  it('is never put into another session’s form, and stays for its own', async () => {
    const other = JSON.stringify(['cs_AAAAAAAAAAAAAAAAAAAAAAAA', { givenName: 'Eve' }])
    sessionStorage.setItem(KEPT, other)
    const { el } = await mount()
    try {
      expect(input(el, 'givenName').value).to.equal('')
      expect(sessionStorage.getItem(KEPT)).to.equal(other)
    } finally {
      el.remove()
    }
  })
})
