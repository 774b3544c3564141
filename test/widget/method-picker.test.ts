/**
 * The method picker of a session with several ways to pay, in real Chromium against the Worker:
 * a WAI-ARIA radio group (one tab stop, arrows/Home/End/Space/Enter, wrapping), its note on the
 * method under way a live region that describes the group, accessible in both themes, in both
 * isolation modes (in frame mode the card form stays in its frame and the other methods
 * render in the element), each method's code loaded when chosen, `pay-change` with the method,
 * and the method under way shown with the others disabled.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import type { PayCheckout } from '../../widget/index.ts'
import {
  createSession,
  form,
  input,
  mount,
  payButton,
  root,
  setValue,
  status,
  until,
  type TestSession,
} from './helpers.ts'

const CUSTOMER = { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' }
/** A session offering card, QR wallet and invoice; each its own invoice reference (a second session with one is 409 duplicate_order). */
const methods = () => ({
  flow: 'card',
  methods: ['card', 'qr', 'invoice'],
  invoiceId: 'INV0000001',
  merchantInvoiceId: `inv-picker-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  invoiceExpirationPeriod: '24',
  customer: CUSTOMER,
})

/** The picker: inside the inline checkout (inline mode) or in the element itself (frame mode). */
function picker(el: PayCheckout): ShadowRoot | null {
  const host = el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot ?? el.shadowRoot
  return (
    host?.querySelector('pay-method-picker')?.shadowRoot ??
    el.shadowRoot?.querySelector('pay-method-picker')?.shadowRoot ??
    null
  )
}
/** The card fields only: name and email come prefilled from the session. */
async function fillCard(el: PayCheckout, number = '4111 1111 1111 1111'): Promise<void> {
  for (const [id, value] of Object.entries({ number, expiry: '12 / 30', cvv: '123' })) setValue(input(el, id), value)
  await form(el).updateComplete
}
const radios = (el: PayCheckout) => [...(picker(el)?.querySelectorAll<HTMLElement>('[role=radio]') ?? [])]
const checked = (el: PayCheckout) => radios(el).find((r) => r.getAttribute('aria-checked') === 'true')?.dataset.method
const focused = (el: PayCheckout) => (picker(el)?.activeElement as HTMLElement | null)?.dataset.method
/**
 * The note on the method under way is in a live region that is in the page before it (so screen
 * readers announce the note when it appears), and describes the radio group while it is shown.
 */
function expectLiveNote(el: PayCheckout, text: string | null): void {
  const group = picker(el)?.querySelector('[role=radiogroup]')
  const status = picker(el)?.querySelector('[role=status]')
  expect(status, 'live region').to.not.equal(null)
  const note = picker(el)?.querySelector('[part=method-note]') ?? null
  if (text === null) {
    expect(note).to.equal(null)
    expect(status?.textContent?.trim()).to.equal('')
    expect(group?.hasAttribute('aria-describedby')).to.equal(false)
    return
  }
  expect(note?.textContent).to.contain(text)
  expect(note?.closest('[role=status]')).to.equal(status)
  const described = picker(el)?.getElementById(group?.getAttribute('aria-describedby') ?? '')
  expect(described, 'aria-describedby').to.equal(status)
}

async function mountFrame(
  body: Record<string, unknown>,
  theme = 'light',
): Promise<{ el: PayCheckout; session: TestSession }> {
  const session = await createSession(body)
  const el = await fixture<PayCheckout>(
    html`<pay-checkout endpoint=${session.endpoint} session=${session.id} client-secret=${session.clientSecret} locale="en" theme=${theme}></pay-checkout>`,
  )
  await until(() => radios(el).length > 0)
  return { el, session }
}

describe('method picker, inline', () => {
  it('is a labelled radio group of the session methods with one tab stop, the first chosen', async () => {
    const { el } = await mount(methods())
    await until(() => radios(el).length === 3)
    const group = picker(el)?.querySelector('[role=radiogroup]')
    expect(group?.getAttribute('aria-label')).to.equal('Payment method')
    expect(radios(el).map((r) => r.textContent?.trim())).to.deep.equal(['Card', 'QR wallet', 'Invoice'])
    expect(radios(el).map((r) => r.getAttribute('tabindex'))).to.deep.equal(['0', '-1', '-1'])
    expect(checked(el)).to.equal('card')
    expect(root(el).querySelector('pay-card-form')).to.not.equal(null)
    // Each method's code loads only when chosen.
    expect(customElements.get('pay-invoice-view')).to.equal(undefined)
  })

  it('arrows, Home, End, Space and Enter move and choose, wrapping; each choice fires pay-change with the method and shows it; Tab leaves the group', async () => {
    const { el } = await mount(methods())
    await until(() => radios(el).length === 3)
    const changes: unknown[] = []
    el.addEventListener('pay-change', (e) => e.detail.method && changes.push(e.detail.method))
    radios(el)[0]?.focus()
    await sendKeys({ press: 'ArrowRight' })
    await until(() => !!root(el).querySelector('pay-qr-wallet'))
    expect([checked(el), focused(el)]).to.deep.equal(['qr', 'qr'])
    expect(radios(el).map((r) => r.getAttribute('tabindex'))).to.deep.equal(['-1', '0', '-1'])
    expect(root(el).querySelector('pay-card-form')).to.equal(null)
    await sendKeys({ press: 'End' })
    await until(() => !!root(el).querySelector('pay-invoice-view'))
    expect([checked(el), focused(el)]).to.deep.equal(['invoice', 'invoice'])
    await sendKeys({ press: 'ArrowDown' }) // wraps to the first
    expect([checked(el), focused(el)]).to.deep.equal(['card', 'card'])
    await sendKeys({ press: 'ArrowLeft' }) // wraps to the last
    await sendKeys({ press: 'Home' })
    await sendKeys({ press: 'ArrowUp' })
    expect(checked(el)).to.equal('invoice')
    // Space and Enter choose the focused method.
    radios(el)[1]?.focus()
    await sendKeys({ press: 'Space' })
    await until(() => !!root(el).querySelector('pay-qr-wallet'))
    expect([checked(el), focused(el)]).to.deep.equal(['qr', 'qr'])
    radios(el)[0]?.focus()
    await sendKeys({ press: 'Enter' })
    await until(() => !!root(el).querySelector('pay-card-form'))
    expect([checked(el), focused(el)]).to.deep.equal(['card', 'card'])
    expect(changes).to.deep.equal(['qr', 'invoice', 'card', 'invoice', 'card', 'invoice', 'qr', 'card'])
    // Tab leaves the group: one stop only.
    await sendKeys({ press: 'Tab' })
    expect(focused(el)).to.equal(undefined)
  })

  for (const theme of ['light', 'dark']) {
    it(`is accessible with the picker, on the card and on the QR method (${theme})`, async () => {
      const { el } = await mount(methods(), { theme })
      await until(() => radios(el).length === 3)
      await expect(el).to.be.accessible()
      radios(el)[1]?.click()
      await until(() => !!root(el).querySelector('pay-qr-wallet'))
      await expect(el).to.be.accessible()
    })
  }

  it('once the card is paid, the picker shows card under way and disables the others; keys skip them', async () => {
    const { el, session } = await mount(methods())
    await until(() => radios(el).length === 3)
    await fillCard(el)
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    await paid
    await until(() => radios(el)[1]?.getAttribute('aria-disabled') === 'true')
    expect(radios(el).map((r) => r.getAttribute('aria-disabled'))).to.deep.equal([null, 'true', 'true'])
    expectLiveNote(el, 'Paying by card.')
    radios(el)[0]?.focus()
    await sendKeys({ press: 'ArrowRight' })
    radios(el)[2]?.click()
    expect(checked(el)).to.equal('card')
    await expect(el).to.be.accessible()
    expect(session.id).to.match(/^cs_/)
  })

  it('a QR code shown, then a card payment declined: back on QR the old code is withdrawn and a new one is asked for', async () => {
    const { el } = await mount(methods())
    await until(() => radios(el).length === 3)
    radios(el)[1]?.click()
    await until(() => !!root(el).querySelector('pay-qr-wallet'))
    const qr = () => root(el).querySelector('pay-qr-wallet')?.shadowRoot
    await until(() => !!qr()?.querySelector('#walletId'))
    const wallet = qr()?.querySelector<HTMLInputElement>('#walletId')
    if (!wallet) throw new Error('no wallet input')
    wallet.value = 'wallet-ok'
    wallet.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }))
    qr()?.querySelector('form')?.requestSubmit()
    await until(() => !!qr()?.querySelector('svg[part=qr]'))
    radios(el)[0]?.click()
    await until(() => !!root(el).querySelector('pay-card-form'))
    await fillCard(el, '4000 0000 0000 0002')
    let declines = 0
    el.addEventListener('pay-declined', () => declines++)
    const declined = oneEvent(el, 'pay-declined')
    payButton(el).click()
    await declined
    radios(el)[1]?.click()
    await until(() => root(el).querySelector('[part=method-note]')?.textContent?.includes('withdrawn') ?? false)
    await until(() => !!qr()?.querySelector('#walletId'))
    expect(qr()?.querySelector('svg[part=qr]')).to.equal(null)
    // The card's decline is told once: not again when the session is read for the wallet, whose
    // view does not say a card's decline as its own.
    expect(declines).to.equal(1)
    expect(status(el)).to.not.contain('wallet')
  })
})

describe('method picker, an invoice chosen', () => {
  for (const isolation of ['inline', 'frame'] as const) {
    it(`once the invoice is issued, the picker shows it under way and disables the card (${isolation})`, async () => {
      const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
        systemInvoiceId: string
      }
      const body = {
        flow: 'card',
        methods: ['card', 'invoice'],
        amount: '250.00',
        invoiceId: existing.systemInvoiceId,
        merchantInvoiceId: `inv-new-${Date.now()}`,
        invoiceExpirationPeriod: '24',
      }
      const { el } = isolation === 'inline' ? await mount(body) : await mountFrame(body)
      await until(() => radios(el).length === 2)
      expectLiveNote(el, null)
      radios(el)[1]?.click()
      const invoice = () =>
        (el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('pay-invoice-view') as
          (HTMLElement & { submit?: () => void }) | null) ?? null
      await until(() => !!invoice()?.shadowRoot?.querySelector('button'))
      el.submit()
      await until(() => !!invoice()?.shadowRoot?.querySelector('[part=pay-link]'))
      await until(() => radios(el)[0]?.getAttribute('aria-disabled') === 'true')
      expect(checked(el)).to.equal('invoice')
      expectLiveNote(el, 'Paying by invoice.')
      await expect(el).to.be.accessible()
    })
  }
})

describe('method picker, frame mode', () => {
  for (const theme of ['light', 'dark']) {
    it(`the picker is in the element, the card form stays in its frame, QR renders in the element (${theme})`, async () => {
      const { el } = await mountFrame(methods(), theme)
      const frame = el.shadowRoot?.querySelector('iframe')
      expect(frame?.hidden).to.equal(false)
      expect(checked(el)).to.equal('card')
      expect(el.shadowRoot?.querySelector('pay-checkout-inline')).to.equal(null)
      await expect(el).to.be.accessible()
      const change = oneEvent(el, 'pay-change')
      radios(el)[0]?.focus()
      await sendKeys({ press: 'ArrowRight' })
      expect((await change).detail.method).to.equal('qr')
      await until(
        () => !!el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('pay-qr-wallet'),
      )
      expect(frame?.hidden).to.equal(true)
      expect(focused(el)).to.equal('qr')
      await expect(el).to.be.accessible()
      await sendKeys({ press: 'Home' })
      await until(() => frame?.hidden === false)
      expect(el.shadowRoot?.querySelector('pay-checkout-inline')).to.equal(null)
    })
  }

  it('speaks the shopper’s language, not the merchant page’s: the picker above the frame carries its lang and direction', async () => {
    const session = await createSession(methods())
    const el = await fixture<PayCheckout>(
      html`<pay-checkout endpoint=${session.endpoint} session=${session.id} client-secret=${session.clientSecret} locale="ar"></pay-checkout>`,
    )
    await until(() => radios(el).length > 0)
    const host = el.shadowRoot?.querySelector('pay-method-picker')
    expect([host?.lang, host?.dir]).to.deep.equal(['ar', 'rtl'])
    expect(picker(el)?.querySelector('[role=radio]')?.matches(':lang(ar)')).to.equal(true)
  })

  it('arrows, Home, End, Space and Enter move and choose, wrapping; each choice fires pay-change and shows the method; Tab leaves the group', async () => {
    const { el } = await mountFrame(methods())
    const frame = el.shadowRoot?.querySelector('iframe')
    const inline = () => el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot
    const changes: unknown[] = []
    el.addEventListener('pay-change', (e) => e.detail.method && changes.push(e.detail.method))
    radios(el)[0]?.focus()
    await sendKeys({ press: 'End' })
    await until(() => !!inline()?.querySelector('pay-invoice-view'))
    expect([checked(el), focused(el)]).to.deep.equal(['invoice', 'invoice'])
    expect(radios(el).map((r) => r.getAttribute('tabindex'))).to.deep.equal(['-1', '-1', '0'])
    expect(frame?.hidden).to.equal(true)
    await sendKeys({ press: 'ArrowRight' }) // wraps to the first
    await until(() => frame?.hidden === false)
    expect([checked(el), focused(el)]).to.deep.equal(['card', 'card'])
    await sendKeys({ press: 'ArrowLeft' }) // wraps to the last
    expect([checked(el), focused(el)]).to.deep.equal(['invoice', 'invoice'])
    await sendKeys({ press: 'Home' })
    expect([checked(el), focused(el)]).to.deep.equal(['card', 'card'])
    await sendKeys({ press: 'ArrowUp' }) // wraps to the last
    expect([checked(el), focused(el)]).to.deep.equal(['invoice', 'invoice'])
    // Space and Enter choose the focused method.
    radios(el)[1]?.focus()
    expect(checked(el)).to.equal('invoice')
    await sendKeys({ press: 'Space' })
    await until(() => !!inline()?.querySelector('pay-qr-wallet'))
    expect([checked(el), focused(el)]).to.deep.equal(['qr', 'qr'])
    radios(el)[0]?.focus()
    await sendKeys({ press: 'Enter' })
    await until(() => frame?.hidden === false)
    expect([checked(el), focused(el)]).to.deep.equal(['card', 'card'])
    expect(changes).to.deep.equal(['invoice', 'card', 'invoice', 'card', 'invoice', 'qr', 'card'])
    // Tab leaves the group: one stop only.
    await sendKeys({ press: 'Tab' })
    expect(focused(el)).to.equal(undefined)
    expect(checked(el)).to.equal('card')
  })

  it('a session whose card payment is done opens with card chosen and the others disabled', async () => {
    const session = await createSession(methods())
    const paid = await fetch(`${session.endpoint}/v1/checkout/${session.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${session.clientSecret}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': crypto.randomUUID(),
      },
      body: JSON.stringify({
        card: { number: '4111111111111111', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
        customer: CUSTOMER,
      }),
    })
    expect(paid.status).to.equal(200)
    const el = await fixture<PayCheckout>(
      html`<pay-checkout endpoint=${session.endpoint} session=${session.id} client-secret=${session.clientSecret} locale="en"></pay-checkout>`,
    )
    await until(() => radios(el).length === 3 && radios(el)[1]?.getAttribute('aria-disabled') === 'true')
    expect(checked(el)).to.equal('card')
    expect(radios(el)[2]?.getAttribute('aria-disabled')).to.equal('true')
    expect(el.shadowRoot?.querySelector('iframe')?.hidden).to.equal(false)
    expectLiveNote(el, 'Paying by card.')
  })
})
