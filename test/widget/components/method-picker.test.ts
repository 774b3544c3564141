/**
 * `<pay-method-picker>` alone, from a fixture: a radio group of the session's methods with one tab
 * stop; choosing fires `pay-change` with the method; a method under way disables the others and
 * says why in a live region.
 */
import { expect, fixture, html } from '@open-wc/testing'
import type { PayChangeEvent } from '../../../widget/events.ts'
import '../../../widget/method-picker/method-picker.ts'
import type { PayMethodPicker } from '../../../widget/method-picker/method-picker.ts'
import { messages } from './fixtures.ts'

const radios = (p: PayMethodPicker) => [...(p.shadowRoot?.querySelectorAll<HTMLElement>('[role=radio]') ?? [])]
const radio = (p: PayMethodPicker, m: string) => radios(p).find((r) => r.dataset.method === m)

describe('<pay-method-picker> from a fixture', () => {
  it('is a labelled radio group of the methods, the chosen one checked and the only tab stop', async () => {
    const m = await messages()
    const p = await fixture<PayMethodPicker>(
      html`<pay-method-picker .messages=${m} .methods=${['card', 'qr', 'invoice']} selected="qr"></pay-method-picker>`,
    )
    expect(p.shadowRoot?.querySelector('[role=radiogroup]')?.getAttribute('aria-label')).to.be.a('string').that.is.not
      .empty
    expect(radios(p).map((r) => [r.dataset.method, r.getAttribute('aria-checked'), r.tabIndex])).to.deep.equal([
      ['card', 'false', -1],
      ['qr', 'true', 0],
      ['invoice', 'false', -1],
    ])
    await expect(p).to.be.accessible()
  })

  it('choosing another method fires pay-change with it; the method under way disables the others and says why', async () => {
    const m = await messages()
    const p = await fixture<PayMethodPicker>(
      html`<pay-method-picker .messages=${m} .methods=${['card', 'qr']}></pay-method-picker>`,
    )
    const chosen: (string | undefined)[] = []
    p.addEventListener('pay-change', (e) => chosen.push((e as PayChangeEvent).detail.method))
    radio(p, 'qr')?.click()
    await p.updateComplete
    expect(chosen).to.deep.equal(['qr'])
    expect(radio(p, 'qr')?.getAttribute('aria-checked')).to.equal('true')

    p.selected = 'card'
    p.locked = 'card'
    await p.updateComplete
    radio(p, 'qr')?.click()
    await p.updateComplete
    expect(chosen).to.deep.equal(['qr'])
    expect(radio(p, 'qr')?.getAttribute('aria-disabled')).to.equal('true')
    expect(p.shadowRoot?.querySelector('[role=status] [part=method-note]')?.textContent?.trim()).to.be.a('string').that
      .is.not.empty
  })
})
