/**
 * Back from a failed 3-D Secure step, inline, in real Chromium against the Worker and the sandbox:
 * the shop's page loads the checkout again, and what the shopper typed besides the card is in the
 * form again (kept in the tab's sessionStorage over the bank's step), never the card's number,
 * expiry or CVV. Both inline card forms: the light one (a card alone) and the full checkout's (a
 * session with several ways to pay). Frame mode's is the end-to-end demo's (test/e2e/demo.test.ts).
 */
import { expect, oneEvent } from '@open-wc/testing'
import type { PayCheckout } from '../../widget/index.ts'
import {
  createSession,
  fill,
  form,
  formIs,
  INLINE_FORMS,
  inlineFor,
  input,
  loaded,
  mount,
  payButton,
  sessionState,
  setValue,
  status,
  until,
} from './helpers.ts'

const KEPT = 'pay-checkout/typed'

/** The shopper on the bank's page, passing or failing the step: what its form posts (the sandbox's ACS). */
async function atBank(redirect: { url: string }, outcome: 'authenticated' | 'failed'): Promise<void> {
  const url = new URL(redirect.url)
  url.pathname += '/complete'
  await fetch(url, {
    method: 'POST',
    mode: 'no-cors',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
  })
}
const failAtBank = (redirect: { url: string }): Promise<void> => atBank(redirect, 'failed')

/** The gateway's notification of the failed step has reached the Worker: the session is declined. */
async function declined(id: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await sessionState(id)).status !== 'declined') {
    if (Date.now() > deadline) throw new Error('the session was not declined')
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** A choice in one of the form's lists (the phone code), once the list has its options, as the shopper picks it. */
async function choose(el: PayCheckout, id: string, value: string): Promise<void> {
  const list = input(el, id) as unknown as HTMLSelectElement
  await until(() => list.options.length > 1)
  list.value = value
  list.dispatchEvent(new Event('change', { bubbles: true, composed: true }))
}

/** Pays with the 3-D Secure card; the page stays (`pay-action` cancelled) and is left as a redirect would leave it. */
async function payToBank(el: PayCheckout): Promise<{ url: string }> {
  el.addEventListener('pay-action', (e) => e.preventDefault())
  const action = oneEvent(el, 'pay-action')
  payButton(el).click()
  const { redirect } = (await action).detail
  el.remove()
  return redirect
}

for (const [label, body] of INLINE_FORMS) {
  describe(`back from a failed bank step, inline: ${label}`, () => {
    it('the name, email and phone typed are in the form again; the card number, expiry and CVV are not, and were never kept', async () => {
      sessionStorage.clear()
      const { el, session } = await mount(body)
      formIs(el, body)
      await fill(el, { number: '4000 0000 0000 3220' })
      await choose(el, 'telnocc', 'GB+44')
      setValue(input(el, 'phone'), '7700 900123')
      await form(el).updateComplete
      const redirect = await payToBank(el)

      const kept = sessionStorage.getItem(KEPT) ?? ''
      const [id, values] = JSON.parse(kept) as [string, Record<string, string>]
      expect([id, values]).to.deep.equal([
        session.id,
        { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com', telnocc: 'GB+44', phone: '7700 900123' },
      ])

      await failAtBank(redirect)
      await declined(session.id)

      // The shop's page loaded again (the bank sends the shopper back to it).
      const again: PayCheckout = inlineFor(session)
      try {
        await loaded(again)
        await until(() => input(again, 'givenName').value === 'Ada')
        // The form that put it back: the full checkout's (Lit) for several ways to pay, else the light one.
        expect(!!again.shadowRoot?.querySelector('pay-checkout-inline')).to.equal('methods' in body)
        expect(input(again, 'surname').value).to.equal('Lovelace')
        expect(input(again, 'email').value).to.equal('ada@example.com')
        await until(() => input(again, 'telnocc').value === 'GB+44')
        expect(input(again, 'phone').value).to.equal('7700 900123')
        for (const card of ['number', 'expiry', 'cvv']) expect(input(again, card).value, card).to.equal('')
        expect(status(again)).to.equal('Your card was declined. Please try again or use another card. 2 attempts left.')
        // Read once: taken out of the tab's storage.
        expect(sessionStorage.getItem(KEPT)).to.equal(null)
      } finally {
        again.remove()
      }
    })

    it('is never put into another session’s form, and stays for its own', async () => {
      const other = JSON.stringify(['cs_AAAAAAAAAAAAAAAAAAAAAAAA', { givenName: 'Eve' }, Date.now()])
      sessionStorage.setItem(KEPT, other)
      const { el } = await mount(body)
      try {
        expect(input(el, 'givenName').value).to.equal('')
        expect(sessionStorage.getItem(KEPT)).to.equal(other)
      } finally {
        el.remove()
        sessionStorage.clear()
      }
    })
  })

  describe(`a bank step the page stays for (pay-action cancelled: the merchant shows it in a window of its own), inline: ${label}`, () => {
    it('the page watches the session, and shows and tells the outcome once the shopper passes the step: pay-success', async () => {
      const { el, session } = await mount(body)
      formIs(el, body)
      await fill(el, { number: '4000 0000 0000 3220' })
      el.addEventListener('pay-action', (e) => e.preventDefault())
      const action = oneEvent(el, 'pay-action')
      payButton(el).click()
      const { redirect } = (await action).detail
      const success = oneEvent(el, 'pay-success')
      // The shopper passes the bank's step in the merchant's window; the page itself never left.
      await atBank(redirect, 'authenticated')
      expect((await success).detail.status).to.equal('succeeded')
      await until(() => status(el) === 'Payment successful.')
      expect((await sessionState(session.id)).status).to.equal('succeeded')
    })
  })
}

describe('what is kept over a bank step', () => {
  it('never a card number typed into another input (here the phone), nor the card’s own inputs', async () => {
    sessionStorage.clear()
    const { el } = await mount()
    await fill(el, { number: '4000 0000 0000 3220' })
    await choose(el, 'telnocc', 'GB+44')
    // 13 digits, a phone's format, and a Visa number (Luhn-valid).
    setValue(input(el, 'phone'), '4222 2222 22222')
    const redirect = await payToBank(el)
    expect(redirect.url).to.contain('/acs/')
    const [, values] = JSON.parse(sessionStorage.getItem(KEPT) ?? '[]') as [string, Record<string, string>]
    expect(values).to.deep.equal({ givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com', telnocc: 'GB+44' })
    sessionStorage.clear()
  })

  it('for a session that shows its QR wallet first: kept until its card form is shown, then put back there', async () => {
    const session = await createSession({ flow: 'qr', methods: ['qr', 'card'] })
    sessionStorage.setItem(KEPT, JSON.stringify([session.id, { givenName: 'Ada' }, Date.now()]))
    const el = inlineFor(session)
    try {
      const box = () => el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot
      const card = () =>
        box()?.querySelector('pay-method-picker')?.shadowRoot?.querySelector<HTMLElement>('[data-method=card]')
      await until(() => !!box()?.querySelector('pay-qr-wallet') && !!card())
      expect(sessionStorage.getItem(KEPT)).to.not.equal(null)
      card()?.click()
      await until(() => !!box()?.querySelector('pay-card-form'))
      await until(() => input(el, 'givenName').value === 'Ada')
      expect(sessionStorage.getItem(KEPT)).to.equal(null)
    } finally {
      el.remove()
      sessionStorage.clear()
    }
  })

  it('an hour old, is dropped unread', async () => {
    const { el: first, session } = await mount()
    first.remove()
    sessionStorage.setItem(KEPT, JSON.stringify([session.id, { givenName: 'Ada' }, Date.now() - 3_600_001]))
    const el = inlineFor(session)
    try {
      await loaded(el)
      await until(() => sessionStorage.getItem(KEPT) === null)
      expect(input(el, 'givenName').value).to.equal('')
    } finally {
      el.remove()
    }
  })
})
