/**
 * Right-to-left locales in real Chromium: `<pay-checkout locale="ar">` and `locale="he"` lay the
 * checkout out mirrored (the container reads right to left, labels sit on the right, the amount
 * heads the right side), while the card number, expiry, CVV and the amount stay left to right.
 * Inline mode here (the form is reachable from the page); the card frame's document is checked
 * as the Worker writes it (test/build/locales.test.ts) and its layout by the end-to-end test
 * (test/e2e/locales.test.ts), which reaches into the frame. And a long-worded locale on a
 * 390 px phone keeps each row of inputs in line.
 */
import { expect } from '@open-wc/testing'
import { setViewport } from '@web/test-runner-commands'
import type { PayCheckout } from '../../widget/index.ts'
import { form, input, mount, payButton, root } from './helpers.ts'

/** Where a label's text is drawn (the label element itself may be as wide as its field). */
function textBox(el: Element): DOMRect {
  const range = document.createRange()
  range.selectNodeContents(el)
  return range.getBoundingClientRect()
}

function label(el: PayCheckout, id: string): HTMLLabelElement {
  const l = form(el).shadowRoot?.querySelector<HTMLLabelElement>(`label[for=${id}]`)
  if (!l) throw new Error(`no label for ${id}`)
  return l
}

const RTL = [
  { locale: 'ar', cardNumber: 'رقم البطاقة', pay: 'ادفع' },
  { locale: 'he', cardNumber: 'מספר כרטיס', pay: 'תשלום' },
]

describe('right-to-left locales, inline mode', () => {
  for (const { locale, cardNumber, pay } of RTL) {
    it(`${locale}: the form is mirrored, labels on the right, in the shopper's language`, async () => {
      const { el } = await mount({}, { locale })
      const container = root(el).querySelector<HTMLElement>('.container')
      expect(container?.getAttribute('dir')).to.equal('rtl')
      expect(getComputedStyle(container as HTMLElement).direction).to.equal('rtl')
      expect(getComputedStyle(form(el)).direction).to.equal('rtl')
      expect(label(el, 'number').textContent).to.equal(cardNumber)
      for (const id of ['number', 'givenName', 'surname']) {
        const text = textBox(label(el, id))
        const field = input(el, id).getBoundingClientRect()
        // The label's text ends at the field's right edge and starts well right of its left edge.
        expect(Math.abs(field.right - text.right), `${id}: label at the right`).to.be.lessThan(2)
        expect(text.left - field.left, `${id}: label not at the left`).to.be.greaterThan(field.width / 4)
      }
      // First name comes first in reading order, so it is the right one of the pair.
      expect(input(el, 'givenName').getBoundingClientRect().left).to.be.greaterThan(
        input(el, 'surname').getBoundingClientRect().left,
      )
      // The amount heads the right side, the test-mode badge is to its left.
      const amount = root(el).querySelector<HTMLElement>('[part=amount]')
      const badge = root(el).querySelector<HTMLElement>('[part=badge]')
      expect(amount?.getBoundingClientRect().right).to.be.greaterThan(badge?.getBoundingClientRect().right ?? Infinity)
      expect(payButton(el).textContent).to.contain(pay)
    })

    it(`${locale}: the card number, expiry, CVV and amount stay left to right`, async () => {
      const { el } = await mount({}, { locale })
      for (const id of ['number', 'expiry', 'cvv']) {
        expect(input(el, id).getAttribute('dir'), id).to.equal('ltr')
        expect(getComputedStyle(input(el, id)).direction, id).to.equal('ltr')
      }
      const number = input(el, 'number')
      number.focus()
      number.value = '4111 1111 1111 1111'
      number.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste' }))
      await form(el).updateComplete
      // The digits start at the input's left, as on the card, and the brand icon sits on the right.
      const brand = form(el).shadowRoot?.querySelector<HTMLElement>('[part=brand]')
      expect(brand?.getBoundingClientRect().right).to.be.closeTo(number.getBoundingClientRect().right, 20)
      expect(getComputedStyle(root(el).querySelector('[part=amount]') as HTMLElement).direction).to.equal('ltr')
      // In the pay button's sentence the amount is isolated left to right (LRI ... PDI).
      expect(payButton(el).textContent).to.match(/\u2066[^\u2069]*100[^\u2069]*\u2069/)
    })
  }

  it('a left-to-right locale is not mirrored (the same measures the other way round)', async () => {
    const { el } = await mount({}, { locale: 'de-AT' })
    expect(getComputedStyle(root(el).querySelector('.container') as HTMLElement).direction).to.equal('ltr')
    const text = textBox(label(el, 'number'))
    expect(Math.abs(text.left - input(el, 'number').getBoundingClientRect().left)).to.be.lessThan(2)
    expect(payButton(el).textContent).to.not.contain('\u2066')
  })
})

describe('a 390 px phone', () => {
  it('inline: the inputs of a row stay in line when a label wraps (German, with shipping); the phone code stands above the number', async () => {
    await setViewport({ width: 390, height: 844 })
    try {
      const { el } = await mount({}, { locale: 'de', shipping: true })
      const rows = [...(form(el).shadowRoot?.querySelectorAll('.row') ?? [])]
      expect(rows.length).to.be.greaterThan(1)
      for (const row of rows) {
        const tops = [...row.querySelectorAll('input, select')].map((i) => Math.round(i.getBoundingClientRect().top))
        // On a phone the code's list takes the whole width, so its country and number show whole.
        expect(new Set(tops).size, row.id || row.className).to.equal(row.classList.contains('phone') ? 2 : 1)
      }
      const box = root(el).querySelector<HTMLElement>('.container')
      expect(box && box.scrollWidth <= box.clientWidth + 1).to.equal(true)
    } finally {
      await setViewport({ width: 800, height: 600 })
    }
  })
})
