/**
 * `<pay-invoice-view>` alone, from a fixture: an expired invoice offers a new one (an
 * `invoice-regenerate` event: the checkout makes the call), a regenerated one shows its details
 * and a link to pay it, only to an address that is safe to open.
 */
import { expect, fixture, html } from '@open-wc/testing'
import type { InvoiceDetails } from '../../../shared/checkout.ts'
import '../../../widget/invoice-view/invoice-view.ts'
import type { PayInvoiceView } from '../../../widget/invoice-view/invoice-view.ts'
import { messages, view } from './fixtures.ts'

const invoiceView = (regenerated: InvoiceDetails | null) =>
  view({
    flow: 'invoice',
    methods: ['invoice'],
    invoice: { merchantInvoiceId: 'INV-OLD-1', invoiceExpirationPeriod: '24', regenerated },
  })

const REGENERATED: InvoiceDetails = {
  systemInvoiceId: 'INV123456789',
  merchantInvoiceId: 'INV-NEW-1',
  amount: '49.00',
  currency: 'EUR',
  createdDate: '2026-11-25',
  createdTime: '10:00:00',
  invoiceExpirationPeriod: '24',
  transactionUrl: 'https://pay.example.com/invoice/INV123456789',
}

describe('<pay-invoice-view> from a fixture', () => {
  it('an expired invoice offers a new one: the button and submit() each ask once', async () => {
    const m = await messages()
    const el = await fixture<PayInvoiceView>(
      html`<pay-invoice-view .messages=${m} .view=${invoiceView(null)}></pay-invoice-view>`,
    )
    expect(el.shadowRoot?.textContent).to.contain(m.invoiceExpired)
    let asked = 0
    el.addEventListener('invoice-regenerate', () => asked++)
    el.shadowRoot?.querySelector('button')?.click()
    el.submit()
    expect(asked).to.equal(2)
  })

  it('a regenerated invoice shows its amount and dates in the locale, a link to pay it, and asks for nothing more', async () => {
    const m = await messages()
    const el = await fixture<PayInvoiceView>(
      html`<pay-invoice-view .messages=${m} .locale=${'de'} .view=${invoiceView(REGENERATED)}></pay-invoice-view>`,
    )
    const details = el.shadowRoot?.querySelector('[part=details]')?.textContent ?? ''
    expect(details).to.contain('49,00')
    expect(details).to.contain('2026')
    expect(el.shadowRoot?.querySelector<HTMLAnchorElement>('a[part=pay-link]')?.href).to.equal(
      REGENERATED.transactionUrl,
    )
    let asked = 0
    el.addEventListener('invoice-regenerate', () => asked++)
    el.submit()
    expect(asked).to.equal(0)
  })

  it('offers no link to an address that is not safe to open', async () => {
    const m = await messages()
    const el = await fixture<PayInvoiceView>(
      html`<pay-invoice-view .messages=${m} .view=${invoiceView({ ...REGENERATED, transactionUrl: 'javascript:alert(1)' })}></pay-invoice-view>`,
    )
    expect(el.shadowRoot?.querySelector('a[part=pay-link]')).to.equal(null)
  })
})
