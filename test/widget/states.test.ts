import { expect, fixture, html, oneEvent } from '@open-wc/testing'
import type { PayCheckout } from '../../widget/index.ts'
import { CARD_BOX, createSession, fill, mount, payButton, status, until, root } from './helpers.ts'

describe('accessibility of every flow and state, in both themes', () => {
  for (const theme of ['light', 'dark']) {
    it(`saved card (${theme})`, async () => {
      const { el } = await mount(
        { flow: 'saved-card', registrationId: 'R1', savedCard: { brand: 'visa', last4: '1111' } },
        { theme },
      )
      await expect(el).to.be.accessible()
    })

    it(`QR step 1 (${theme})`, async () => {
      const { el } = await mount({ flow: 'qr' }, { theme })
      await expect(el).to.be.accessible()
    })

    it(`invoice (${theme})`, async () => {
      const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
        systemInvoiceId: string
      }
      const { el } = await mount(
        {
          flow: 'invoice',
          invoiceId: existing.systemInvoiceId,
          merchantInvoiceId: `i-${Date.now()}-${theme}`,
          invoiceExpirationPeriod: '24',
        },
        { theme },
      )
      await expect(el).to.be.accessible()
    })

    it(`pending (${theme})`, async () => {
      const { el } = await mount({}, { theme })
      await fill(el, { number: '4000 0000 0000 0259' })
      const pending = oneEvent(el, 'pay-pending')
      payButton(el).click()
      await pending
      await expect(el).to.be.accessible()
    })

    it(`error: a wrong client secret (${theme})`, async () => {
      const s = await createSession()
      const el = await fixture<PayCheckout>(
        html`<pay-checkout endpoint=${s.endpoint} session=${s.id} client-secret="wrong" theme=${theme} isolation="inline"></pay-checkout>`,
      )
      await until(() => status(el) === 'Something went wrong. Please try again.')
      await expect(el).to.be.accessible()
    })
  }
})

describe('zoom', () => {
  it('at 200% text size in a 320 px column nothing overflows sideways', async () => {
    const { el } = await mount({}, {})
    el.style.width = '320px'
    el.style.fontSize = '200%'
    await el.updateComplete
    const container = root(el).querySelector<HTMLElement>('.container')
    const card = root(el).querySelector(CARD_BOX)?.shadowRoot?.querySelector<HTMLElement>('form')
    expect(container && container.scrollWidth <= container.clientWidth + 1).to.equal(true)
    expect(card && card.scrollWidth <= card.clientWidth + 1).to.equal(true)
  })
})

describe('frame mode (the default)', () => {
  it('renders the card form in a titled frame on the Worker’s origin and is accessible', async () => {
    const s = await createSession()
    const el = await fixture<PayCheckout>(
      html`<pay-checkout endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret}></pay-checkout>`,
    )
    expect(el.isolation).to.equal('frame')
    const ready = oneEvent(el, 'pay-ready')
    await ready
    const frame = el.shadowRoot?.querySelector('iframe')
    expect(frame?.getAttribute('title')).to.equal('Payment')
    expect(new URL(frame?.src ?? '').origin).to.equal(new URL(s.endpoint).origin)
    expect(frame?.src).to.not.contain('secret')
    await until(() => (frame?.height ? Number(frame.height) : 0) > 300)
    await expect(el).to.be.accessible()
  })

  it('names its frame in the shopper’s language, as the frame’s own document is named', async () => {
    const s = await createSession()
    const el = await fixture<PayCheckout>(
      html`<pay-checkout endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret} locale="uk"></pay-checkout>`,
    )
    await oneEvent(el, 'pay-ready')
    expect(el.shadowRoot?.querySelector('iframe')?.getAttribute('title')).to.equal('Оплата')
  })
})
