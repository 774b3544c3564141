import { expect, oneEvent } from '@open-wc/testing'
import type { PayCheckout } from '../../widget/index.ts'
import {
  CARD_BOX,
  fill,
  input,
  loaded,
  mount,
  payButton,
  pendingWhileAway,
  sessionState,
  setValue,
  status,
  until,
  root,
  inlineFor,
} from './helpers.ts'

describe('<pay-checkout> QR wallet flow', () => {
  it('asks for the wallet, shows the QR code and the copyable id with the time left, then pays', async () => {
    const { el, session } = await mount({
      flow: 'qr',
      amount: '25.00',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const qr = () => root(el).querySelector('pay-qr-wallet')?.shadowRoot
    await expect(el).to.be.accessible()
    const wallet = qr()?.querySelector<HTMLInputElement>('#walletId')
    expect(wallet).to.exist
    expect(qr()?.querySelector('#customer-email')).to.equal(null)
    if (wallet) wallet.value = 'wallet-ok'
    qr()?.querySelector('form')?.requestSubmit()
    await until(() => !!qr()?.querySelector('svg[part=qr]'))
    const id = qr()?.querySelector('[part=wallet-id]')?.textContent ?? ''
    expect(id).to.match(/^MW\d+$/)
    expect(qr()?.textContent).to.match(/Time left: \d+:\d{2}/)
    expect(qr()?.querySelector('svg path')?.getAttribute('d')?.length).to.be.greaterThan(100)
    await expect(el).to.be.accessible()
    const sent = oneEvent(el, 'pay-submit')
    const ok = oneEvent(el, 'pay-success')
    el.submit()
    // "I have paid" sends the wallet's payment: told as a card's pay is.
    expect((await sent).detail).to.deep.equal({ flow: 'qr' })
    await ok
    expect(status(el)).to.equal('Payment successful.')
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })

  it('a wallet declined: says so, in the language the page switches to, and asks for the wallet again (a new code), which then pays', async () => {
    const { el, session } = await mount({
      flow: 'qr',
      amount: '25.00',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const qr = () => root(el).querySelector('pay-qr-wallet')?.shadowRoot
    const verify = async (walletId: string) => {
      const wallet = qr()?.querySelector<HTMLInputElement>('#walletId')
      if (!wallet) throw new Error('no wallet step')
      wallet.value = walletId
      qr()?.querySelector('form')?.requestSubmit()
      await until(() => !!qr()?.querySelector('svg[part=qr]'))
    }
    await verify('wallet-declined')
    const declined = oneEvent(el, 'pay-declined')
    el.submit()
    expect((await declined).detail.attemptsRemaining).to.equal(2)
    // The declined code is not offered again: the wallet step, with what happened.
    await until(() => !!qr()?.querySelector('#walletId'))
    expect(qr()?.querySelector('svg[part=qr]')).to.equal(null)
    expect(status(el)).to.contain('Your wallet payment was declined.')
    // The page's language switcher: what the status line says follows, its count too.
    el.setAttribute('locale', 'es')
    await until(
      () =>
        status(el) ===
        'Su pago con monedero ha sido rechazado. Inténtelo de nuevo o use otro monedero. Quedan 2 intentos.',
    )
    el.setAttribute('locale', 'en')
    await until(() => status(el).startsWith('Your wallet payment was declined.'))
    await verify('wallet-ok')
    const ok = oneEvent(el, 'pay-success')
    el.submit()
    await ok
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })

  it('a card number given as the wallet id: the Worker’s refusal is shown at the wallet id, focused, and a wallet id then goes on to the code', async () => {
    const { el } = await mount({
      flow: 'qr',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const qr = () => root(el).querySelector('pay-qr-wallet')?.shadowRoot
    const wallet = () => qr()?.querySelector<HTMLInputElement>('#walletId')
    const refused = oneEvent(el, 'pay-error')
    const given = wallet()
    if (given) given.value = '4111111111111111'
    qr()?.querySelector('form')?.requestSubmit()
    const { detail } = await refused
    expect(detail.fields.map((f: { field: string; code: string }) => [f.field, f.code])).to.deep.equal([
      ['walletId', 'not_allowed'],
    ])
    await until(() => wallet()?.getAttribute('aria-invalid') === 'true')
    expect(status(el)).to.equal('Some details are not valid. Please check the highlighted fields and try again.')
    expect(qr()?.querySelector('#walletId-error')?.textContent?.trim()).to.equal('Please check this value.')
    expect(qr()?.activeElement).to.equal(wallet())
    await expect(el).to.be.accessible()
    const fixed = wallet()
    if (fixed) fixed.value = 'wallet-ok'
    qr()?.querySelector('form')?.requestSubmit()
    await until(() => !!qr()?.querySelector('svg[part=qr]'))
    el.remove()
  })

  it('needs name and email when not prefilled, and says which field', async () => {
    const { el } = await mount({ flow: 'qr' }, { theme: 'dark' })
    const qr = root(el).querySelector('pay-qr-wallet')?.shadowRoot
    qr?.querySelector('form')?.requestSubmit()
    await until(() => !!qr?.querySelector('.error'))
    expect(qr?.querySelector('#walletId')?.getAttribute('aria-invalid')).to.equal('true')
    await expect(el).to.be.accessible()
  })
})

describe('<pay-checkout> invoice flow', () => {
  it('shows the expired invoice, regenerates it, then links to the hosted page; the way back from it leads to this page', async () => {
    const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
      systemInvoiceId: string
    }
    const ref = `inv-new-${Date.now()}`
    // The merchant's invoice page has a path of its own (the runner's page is the origin's root).
    const runnerPage = location.href
    history.replaceState(null, '', '/shop/invoices/42?token=t')
    try {
      const { el, session } = await mount({
        flow: 'invoice',
        amount: '250.00',
        invoiceId: existing.systemInvoiceId,
        merchantInvoiceId: ref,
        invoiceExpirationPeriod: '24',
      })
      const view = () => root(el).querySelector('pay-invoice-view')?.shadowRoot
      expect(view()?.textContent).to.contain('This invoice has expired.')
      await expect(el).to.be.accessible()
      el.submit()
      await until(() => !!view()?.querySelector('[part=pay-link]'))
      const link = view()?.querySelector<HTMLAnchorElement>('[part=pay-link]')
      expect(link?.href).to.match(/^http:\/\/127\.0\.0\.1:\d+\/invoice\/pay\/INV\d+$/)
      expect(view()?.textContent).to.contain(`Invoice ${ref}`)
      expect(view()?.textContent).to.contain('€250.00')
      expect(view()?.querySelector('dl')?.textContent).to.contain('Expires')
      expect(status(el)).to.equal('Your new invoice is ready.')
      await expect(el).to.be.accessible()
      // The session has no returnUrl: the result page after the invoice's page links back here.
      const result = await (await fetch(`/__merchant/return?id=${session.id}`)).text()
      expect(result).to.contain(`<a class="back" href="${location.origin}/shop/invoices/42">`)
    } finally {
      history.replaceState(null, '', runnerPage)
    }
  })
})

describe('<pay-checkout> invoice declined on its page', () => {
  it('says the decline when the page is loaded again, above the link to pay the invoice again', async () => {
    const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
      systemInvoiceId: string
    }
    const { el, session } = await mount({
      flow: 'invoice',
      amount: '250.00',
      invoiceId: existing.systemInvoiceId,
      merchantInvoiceId: `inv-declined-${Date.now()}`,
      invoiceExpirationPeriod: '24',
    })
    const view = (of: PayCheckout) => root(of).querySelector('pay-invoice-view')?.shadowRoot
    el.submit()
    await until(() => !!view(el)?.querySelector('[part=pay-link]'))
    const payUrl = view(el)?.querySelector<HTMLAnchorElement>('[part=pay-link]')?.href ?? ''
    el.remove()
    // The shopper's card is declined on the gateway's page, which notifies the Worker.
    await fetch(payUrl, {
      method: 'POST',
      mode: 'no-cors',
      body: new URLSearchParams({
        holder: 'Ada Lovelace',
        number: '4000000000000002',
        month: '12',
        year: '2030',
        cvv: '123',
      }),
    })
    let state = ''
    const deadline = Date.now() + 15_000
    while (state !== 'declined' && Date.now() < deadline) {
      state = String((await sessionState(session.id)).status)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(state).to.equal('declined')
    const again = inlineFor(session)
    try {
      await until(() => status(again) === 'The payment of this invoice was declined. You can try again below.')
      expect(view(again)?.querySelector('[part=pay-link]')?.getAttribute('href')).to.equal(payUrl)
      await expect(again).to.be.accessible()
    } finally {
      again.remove()
    }
  })
})

describe('<pay-checkout> invoice for another amount than the session', () => {
  it('says the shop must help (never that a card was declined), before and after the page is loaded again, and fires no pay-declined', async () => {
    const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
      systemInvoiceId: string
    }
    const session = {
      flow: 'invoice',
      amount: '10.00', // the invoice is for 250.00
      invoiceId: existing.systemInvoiceId,
      merchantInvoiceId: `inv-other-${Date.now()}`,
      invoiceExpirationPeriod: '24',
    }
    const { el, session: s } = await mount(session)
    const declined: unknown[] = []
    el.addEventListener('pay-declined', (e) => declined.push(e.detail))
    const refused = oneEvent(el, 'pay-error')
    el.submit()
    expect((await refused).detail.code).to.equal('invoice_mismatch')
    await until(() => status(el) === 'This payment cannot be completed here. Please contact the shop.')
    // The page loaded again: the failed session says the same, not "Your card was declined".
    const again = inlineFor(s, (el) => el.addEventListener('pay-declined', (e) => declined.push(e.detail)))
    try {
      await until(() => status(again) === 'This payment cannot be completed here. Please contact the shop.')
      expect(root(again).querySelector('pay-invoice-view')).to.equal(null)
      expect(declined).to.deep.equal([])
    } finally {
      again.remove()
    }
  })
})

describe('<pay-checkout> a saved card the merchant deleted while the checkout is open', () => {
  /** A card saved by a setup session, as a returning customer's is. */
  async function savedCard(): Promise<string> {
    const { el, session } = await mount({ flow: 'setup', amount: null })
    await fill(el)
    const saved = oneEvent(el, 'pay-success')
    payButton(el).click()
    await saved
    el.remove()
    return String((await sessionState(session.id)).registrationId)
  }

  for (const methods of [['saved-card'], ['saved-card', 'card']]) {
    it(`is refused (pay-error registration_deleted): the pay is gone and the shop is named; ${methods.length > 1 ? 'a new card then pays' : 'nothing else to pay with'}`, async () => {
      const registrationId = await savedCard()
      const { el, session } = await mount({
        flow: 'saved-card',
        methods,
        registrationId,
        savedCard: { brand: 'visa', last4: '1111' },
      })
      expect((await fetch(`/__merchant/registration?id=${registrationId}`, { method: 'DELETE' })).status).to.equal(200)
      setValue(input(el, 'cvv'), '123')
      const refused = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await refused).detail.code).to.equal('registration_deleted')
      await until(() => status(el) === 'This payment cannot be completed here. Please contact the shop.')
      expect(root(el).querySelector(CARD_BOX)).to.equal(null)
      await expect(el).to.be.accessible()
      if (methods.length === 1) return
      const picker = root(el).querySelector('pay-method-picker')?.shadowRoot
      picker?.querySelector<HTMLElement>('[data-method=card]')?.click()
      await until(() => !!root(el).querySelector(CARD_BOX)?.shadowRoot?.querySelector('#number'))
      await fill(el)
      const ok = oneEvent(el, 'pay-success')
      payButton(el).click()
      await ok
      expect((await sessionState(session.id)).status).to.equal('succeeded')
    })

    it(`loaded again after the deletion: ${methods.length > 1 ? 'only a new card is offered, and it pays' : 'the shop is named at once, with nothing to pay'}`, async () => {
      const registrationId = await savedCard()
      const { el: first, session } = await mount({
        flow: 'saved-card',
        methods,
        registrationId,
        savedCard: { brand: 'visa', last4: '1111' },
      })
      first.remove()
      expect((await fetch(`/__merchant/registration?id=${registrationId}`, { method: 'DELETE' })).status).to.equal(200)
      const el = inlineFor(session)
      try {
        await loaded(el)
        if (methods.length === 1) {
          await until(() => status(el) === 'This payment cannot be completed here. Please contact the shop.')
          expect(root(el).querySelector(CARD_BOX)).to.equal(null)
          await expect(el).to.be.accessible()
          return
        }
        await until(() => !!root(el).querySelector(CARD_BOX)?.shadowRoot?.querySelector('#number'))
        expect(root(el).querySelector('pay-method-picker')).to.equal(null)
        expect(root(el).textContent).to.not.contain('1111')
        await fill(el)
        const ok = oneEvent(el, 'pay-success')
        payButton(el).click()
        await ok
        expect((await sessionState(session.id)).status).to.equal('succeeded')
      } finally {
        el.remove()
      }
    })
  }
})

describe('inside another shadow root', () => {
  it('renders and pays from within a host component’s shadow DOM', async () => {
    const { el } = await mount()
    const host = document.createElement('div')
    document.body.append(host)
    const shadow = host.attachShadow({ mode: 'open' })
    shadow.append(el)
    await el.updateComplete
    const card = root(el).querySelector(CARD_BOX)
    expect(card?.shadowRoot?.querySelector('#number')).to.exist
    let bubbled = false
    host.addEventListener('pay-change', () => (bubbled = true))
    const number = card?.shadowRoot?.querySelector<HTMLInputElement>('#number')
    if (number) {
      number.value = '4111111111111111'
      number.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }))
    }
    expect(bubbled).to.equal(true)
    host.remove()
  })
})

describe('<pay-checkout> inline, the full checkout', () => {
  it('reads nothing while off the page, and settles a pending payment once put back', async () => {
    // Defined before the element looks: a card session then shows the full checkout too.
    await import('../../widget/inline/pay-checkout-inline.ts')
    const { el, session } = await mount()
    expect(el.shadowRoot?.querySelector('pay-checkout-inline')).to.not.equal(null)
    const { away, back } = await pendingWhileAway(el, session.id)
    expect(away).to.equal(0)
    expect(back).to.be.greaterThan(0)
  })
})
