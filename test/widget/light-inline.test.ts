/**
 * The light inline form (issue 21): in inline mode a card session is shown without Lit, by the
 * card flow the frame runs over the shared markup; a session the light form does not show goes to
 * the full checkout. Its own file, so this page has not loaded the full checkout before.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import type { PayCheckout } from '../../widget/index.ts'
import {
  createSession,
  fill,
  form,
  input,
  isPay,
  loaded,
  mount,
  payButton,
  pendingWhileAway,
  root,
  setValue,
  status,
  until,
} from './helpers.ts'
import { bare500Answer, BEING_CONFIRMED, jsonAnswer } from './answering.ts'

const fullCheckoutLoaded = () => customElements.get('pay-checkout-inline') !== undefined

/** Holds every pay on its way to the Worker until `release`; `paying` once one was sent. */
function holdPays(): { paying: () => boolean; release: () => void; restore: () => void } {
  const real = window.fetch
  let release: () => void = () => undefined
  const held = new Promise<void>((r) => (release = r))
  let paying = false
  window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
    if (isPay(req, init)) {
      paying = true
      await held
    }
    return real(req, init)
  }
  return { paying: () => paying, release, restore: () => void (window.fetch = real) }
}

/** Fills the form and pays, the pay held on its way to the Worker until `release`. */
async function payHeld(el: PayCheckout) {
  const hold = holdPays()
  try {
    await fill(el)
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    await until(hold.paying)
    return { ...hold, paid }
  } catch (e) {
    hold.restore()
    throw e
  }
}

describe('inline mode, a card session', () => {
  // A test that scripts `fetch` and times out leaves it to the next ones otherwise.
  const pageFetch = window.fetch
  afterEach(() => {
    window.fetch = pageFetch
  })

  it('shows the light form, pays, and never loads the full checkout', async () => {
    const { el } = await mount()
    expect(el.shadowRoot?.querySelector('pay-card-inline')).to.not.equal(null)
    expect(el.shadowRoot?.querySelector('pay-checkout-inline')).to.equal(null)
    expect(payButton(el).textContent?.trim()).to.equal('Pay €100.00')
    await expect(el).to.be.accessible()
    await fill(el)
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    expect((await paid).detail).to.include({ status: 'succeeded', brand: 'visa', last4: '1111' })
    expect(status(el)).to.equal('Payment successful.')
    expect(fullCheckoutLoaded()).to.equal(false)
  })

  it('a phone pasted with its country code chooses that code in the list when paid, and pays', async () => {
    const { el } = await mount({}, { locale: 'de', shipping: true })
    const code = input(el, 'telnocc') as unknown as HTMLSelectElement
    await until(() => code.options.length > 1)
    await fill(el)
    // The address's country says which of the countries of +44 is meant.
    const country = input(el, 'country') as unknown as HTMLSelectElement
    country.value = 'JE'
    country.dispatchEvent(new Event('change', { bubbles: true, composed: true }))
    for (const [id, value] of Object.entries({ city: 'St Helier', postcode: 'JE2 3AB', street: '1 Bond Street' }))
      setValue(input(el, id), value)
    setValue(input(el, 'phone'), '+44 1534 123456')
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    expect(code.value).to.equal('JE+44')
    expect(input(el, 'phone').value).to.equal('1534 123456')
    expect((await paid).detail).to.include({ status: 'succeeded' })
  })

  it('in Arabic, a card typed in Arabic-Indic digits is formatted, told as a Visa, and pays', async () => {
    const { el } = await mount({}, { locale: 'ar' })
    const changes: unknown[] = []
    el.addEventListener('pay-change', (e) => changes.push(e.detail))
    await fill(el, { number: '٤١١١١١١١١١١١١١١١', expiry: '١٢٣٠', cvv: '١٢٣' })
    expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
    expect(input(el, 'expiry').value).to.equal('12 / 30')
    expect(changes.at(-1)).to.deep.equal({ valid: true, brand: 'visa' })
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    expect((await paid).detail).to.include({ status: 'succeeded', brand: 'visa', last4: '1111' })
  })

  it('the expiry: a month of one digit gets its zero as typed, a month corrected in the middle stays as typed', async () => {
    const { el } = await mount()
    const expiry = input(el, 'expiry')
    expiry.focus()
    await sendKeys({ type: '4/27' })
    expect(expiry.value).to.equal('04 / 27')
    expiry.setSelectionRange(0, 2)
    await sendKeys({ type: '11' })
    expect(expiry.value).to.equal('11 / 27')
    el.remove()
  })

  it('the card number: a digit typed in the middle stays where it was typed, Backspace after a space takes the digit before it', async () => {
    const { el } = await mount()
    const number = input(el, 'number')
    number.focus()
    await sendKeys({ type: '4111222233334444' })
    number.setSelectionRange(5, 5)
    await sendKeys({ type: '9' })
    expect(number.value).to.equal('4111 9222 2333 3444 4')
    expect(number.selectionStart).to.equal(6)
    number.setSelectionRange(10, 10) // 4111 9222 |2333
    await sendKeys({ press: 'Backspace' })
    expect(number.value).to.equal('4111 9222 3333 4444')
    expect(number.selectionStart).to.equal(8)
    el.remove()
  })

  it('on a phone nothing runs past the box, and the phone code shows its country and number whole: the code and the number one above the other', async () => {
    const { el } = await mount({}, { shipping: true })
    const code = input(el, 'telnocc') as unknown as HTMLSelectElement
    await until(() => code.options.length > 1)
    code.value = 'GB+44'
    for (const width of [256, 328]) {
      el.style.width = `${width}px` // a 320 or 360 px screen less the page's margins
      await until(() => input(el, 'phone').getBoundingClientRect().top > code.getBoundingClientRect().bottom)
      const box = root(el).querySelector('.container')?.getBoundingClientRect()
      if (!box) throw new Error('no container')
      for (const x of form(el).shadowRoot?.querySelectorAll('input, select, button') ?? [])
        expect(x.getBoundingClientRect().right, x.id || x.textContent || '').to.be.at.most(box.right)
      // The chosen option's text fits the list's box (its arrow and padding aside).
      const text = document.createElement('canvas').getContext('2d')
      if (!text) throw new Error('no canvas')
      text.font = getComputedStyle(code).font
      // At 360 px (a 320 px screen leaves less room than some names take).
      const label = code.selectedOptions[0]?.textContent ?? ''
      if (width > 256) expect(text.measureText(label).width, label).to.be.below(code.clientWidth - 40)
    }
    // Wide enough, side by side as before.
    el.style.width = '480px'
    await until(
      () => input(el, 'phone').getBoundingClientRect().top === input(el, 'telnocc').getBoundingClientRect().top,
    )
    el.remove()
  })

  it('a phone typed with its country code: the code moves to its list when the shopper leaves the input', async () => {
    const { el } = await mount()
    const code = input(el, 'telnocc') as unknown as HTMLSelectElement
    await until(() => code.options.length > 1)
    const phone = input(el, 'phone')
    setValue(phone, '+49 (0)30 1234567', 'insertText')
    phone.dispatchEvent(new FocusEvent('blur'))
    expect(code.value).to.equal('DE+49')
    expect(phone.value).to.equal('(0)30 1234567')
    expect(phone.getAttribute('aria-invalid')).to.equal('false')
    el.remove()
  })

  it('fires pay-ready once, for the card while the session loads, and the form keeps what was typed', async () => {
    const s = await createSession()
    const events: unknown[] = []
    const el = document.createElement('pay-checkout') as PayCheckout
    el.addEventListener('pay-ready', (e) => events.push(e.detail))
    el.setAttribute('isolation', 'inline')
    el.setAttribute('locale', 'en')
    el.endpoint = s.endpoint
    el.session = s.id
    el.clientSecret = s.clientSecret
    document.body.append(el)
    await until(() => events.length > 0)
    input(el, 'cvv').value = '123'
    await loaded(el)
    expect(events).to.deep.equal([{ flow: 'card', status: 'loading' }])
    expect(input(el, 'cvv').value).to.equal('123')
    el.remove()
  })

  it('reads nothing while off the page, and settles a pending payment once put back', async () => {
    const { el, session } = await mount()
    const { away, back } = await pendingWhileAway(el, session.id)
    expect(away).to.equal(0)
    expect(back).to.be.greaterThan(0)
    expect(fullCheckoutLoaded()).to.equal(false)
  })

  it('3-D Secure: pay-action carries the redirect that passed the shared rule', async () => {
    const { el } = await mount()
    await fill(el, { number: '4000 0000 0000 3220' })
    el.addEventListener('pay-action', (e) => e.preventDefault())
    const action = oneEvent(el, 'pay-action')
    payButton(el).click()
    const { redirect } = (await action).detail
    expect(redirect.url).to.contain('/acs/')
    expect(redirect.parameters.map((p: { name: string }) => p.name)).to.deep.equal(['PaReq', 'MD'])
    expect(fullCheckoutLoaded()).to.equal(false)
  })

  it('takes a new session set on the same element', async () => {
    const { el } = await mount()
    const next = await createSession({ amount: '42.00' })
    el.session = next.id
    el.clientSecret = next.clientSecret
    await until(() => payButton(el).textContent?.trim() === 'Pay €42.00')
    expect(root(el).querySelectorAll('.container').length).to.equal(1)
  })

  it('a tag for the language it shows (en-US where en shows) keeps the form and what was typed, and tells nothing again', async () => {
    const { el } = await mount()
    const told: string[] = []
    el.addEventListener('pay-ready', () => told.push('pay-ready'))
    const box = root(el).querySelector('.container')
    setValue(input(el, 'givenName'), 'Ada')
    el.setAttribute('locale', 'en-US')
    el.setAttribute('locale', 'EN')
    await new Promise((r) => setTimeout(r, 300))
    expect(root(el).querySelector('.container')).to.equal(box)
    expect(input(el, 'givenName').value).to.equal('Ada')
    expect(told).to.deep.equal([])
    el.remove()
  })

  it('a language switched while a payment made here is pending: the form says so in that language, fires no pay-ready, and its success is told once', async () => {
    const { el } = await mount()
    await fill(el, { number: '4000 0000 0000 0259' })
    const pending = oneEvent(el, 'pay-pending')
    payButton(el).click()
    await pending
    const told: string[] = []
    for (const type of ['pay-ready', 'pay-pending', 'pay-success']) el.addEventListener(type, () => told.push(type))
    el.setAttribute('locale', 'de')
    // The sandbox settles it by notification three seconds after the pay: still pending here.
    await until(() => status(el).startsWith('Ihre Zahlung wird bearbeitet.'))
    expect(told).to.deep.equal([])
    await until(() => status(el) === 'Zahlung erfolgreich.', 20_000)
    await new Promise((r) => setTimeout(r, 300))
    expect(told).to.deep.equal(['pay-success'])
    el.remove()
  })

  it('a payment being confirmed found never made, then a new language: the form is ready to pay again, and pay-ready says so', async () => {
    const { el } = await mount()
    await fill(el)
    // Answered "being confirmed" before it reaches the Worker: the session stays open, as after
    // the Worker's inquiry found no such payment.
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) =>
      isPay(req, init) ? jsonAnswer(BEING_CONFIRMED) : real(req, init)
    try {
      const error = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await error).detail.code).to.equal('payment_not_made')
    } finally {
      window.fetch = real
    }
    const ready = oneEvent(el, 'pay-ready')
    el.setAttribute('locale', 'de')
    // (Its inputs are in the page before the session is read again: `loading` then.)
    expect((await ready).detail.flow).to.equal('card')
    await until(() => root(el).querySelector('.container')?.getAttribute('lang') === 'de' && !payButton(el).disabled)
    el.remove()
  })

  it('a payment being confirmed found never made, then a pay answered by a bare 500 whose payment is being confirmed too: its pay-pending is told, and a new language fires no pay-ready', async () => {
    const { el, session } = await mount()
    await fill(el)
    // Each pay is answered before it reaches the Worker: the first "being confirmed", the second
    // by a bare 500; after the second the session reads "being confirmed" (scripted).
    const real = window.fetch
    let pays = 0
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (isPay(req, init)) {
        pays += 1
        return pays === 1 ? jsonAnswer(BEING_CONFIRMED) : bare500Answer()
      }
      const res = await real(req, init)
      const url = req instanceof Request ? req.url : String(req)
      if (pays < 2 || !url.endsWith(`/v1/checkout/${session.id}`)) return res
      return jsonAnswer({ ...((await res.json()) as object), status: 'unknown' })
    }
    try {
      const notMade = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await notMade).detail.code).to.equal('payment_not_made')
      await until(() => !payButton(el).disabled)
      const error = oneEvent(el, 'pay-error')
      const pending = oneEvent(el, 'pay-pending')
      payButton(el).click()
      expect((await error).detail.code).to.equal('internal_error')
      expect((await pending).detail.status).to.equal('unknown')
      await until(() => status(el).startsWith('We are confirming your payment.'))
      const told: string[] = []
      el.addEventListener('pay-ready', () => told.push('pay-ready'))
      el.setAttribute('locale', 'de')
      await until(() => root(el).querySelector('.container')?.getAttribute('lang') === 'de')
      await new Promise((r) => setTimeout(r, 300))
      expect(told).to.deep.equal([])
    } finally {
      window.fetch = real
      el.remove()
    }
  })

  it('a language switched while a pay is on its way: the pay’s answer is told first, then the form comes in that language, and nothing is told twice', async () => {
    const { el } = await mount()
    const told: string[] = []
    for (const type of ['pay-ready', 'pay-success']) el.addEventListener(type, () => told.push(type))
    const { paid, release, restore } = await payHeld(el)
    try {
      const box = root(el).querySelector('.container')
      el.setAttribute('locale', 'de')
      // The form stays as it is while the pay waits for its answer (nothing made again).
      await new Promise((r) => setTimeout(r, 300))
      expect(root(el).querySelector('.container')).to.equal(box)
      expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
      release()
      await paid
      // Then the form in German, for the same session: paid.
      await until(() => status(el) === 'Zahlung erfolgreich.')
    } finally {
      restore()
    }
    await new Promise((r) => setTimeout(r, 300))
    expect(told).to.deep.equal(['pay-success'])
    el.remove()
  })

  it('a language switched while a pay is on its way, the element taken off the page before the answer: put back, it shows the session in that language', async () => {
    const { el } = await mount()
    const { paid, release, restore } = await payHeld(el)
    try {
      el.setAttribute('locale', 'de')
      // Asked for on the page, and waiting for the pay's answer: the form as it is.
      await new Promise((r) => setTimeout(r, 100))
      expect(root(el).querySelector('.container')?.getAttribute('lang')).to.equal('en')
      el.remove()
      release()
      await paid
    } finally {
      restore()
    }
    // Off the page a while (a dialog closed and opened again).
    await new Promise((r) => setTimeout(r, 500))
    document.body.append(el)
    await until(() => status(el) === 'Zahlung erfolgreich.')
    el.remove()
  })

  it('a retry that got no answer after a decline, then a new language: the decline is told once', async () => {
    const { el } = await mount()
    let declines = 0
    el.addEventListener('pay-declined', () => declines++)
    await fill(el, { number: '4000 0000 0000 0002' })
    const declined = oneEvent(el, 'pay-declined')
    payButton(el).click()
    await declined
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (isPay(req, init)) throw new TypeError('Failed to fetch')
      return real(req, init)
    }
    try {
      await fill(el)
      const failed = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await failed).detail.code).to.equal('network_error')
    } finally {
      window.fetch = real
    }
    el.setAttribute('locale', 'de')
    await until(() => /bezahlen/.test(payButton(el).textContent ?? '') && /abgelehnt/.test(status(el)))
    await new Promise((r) => setTimeout(r, 300))
    expect(declines).to.equal(1)
    el.remove()
  })

  it('a new language after a decline and after the payment: the form follows it, and no decline, success or ready is told twice', async () => {
    const { el } = await mount()
    const told: string[] = []
    for (const type of ['pay-ready', 'pay-declined', 'pay-success']) el.addEventListener(type, () => told.push(type))
    const count = (type: string) => told.filter((t) => t === type).length
    await fill(el, { number: '4000 0000 0000 0002' })
    const declined = oneEvent(el, 'pay-declined')
    payButton(el).click()
    await declined
    el.setAttribute('locale', 'de')
    // The form made again in German reads the session, whose last attempt is that decline.
    await until(() => /bezahlen/.test(payButton(el).textContent ?? '') && /abgelehnt/.test(status(el)))
    expect(count('pay-declined')).to.equal(1)
    await fill(el)
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    await paid
    const readies = count('pay-ready')
    el.setAttribute('locale', 'fr')
    await until(() => status(el) === 'Paiement réussi.')
    await new Promise((r) => setTimeout(r, 300))
    expect(count('pay-ready')).to.equal(readies)
    expect(count('pay-success')).to.equal(1)
    expect(count('pay-declined')).to.equal(1)
    el.remove()
  })
})

describe('inline mode, the light form’s look', () => {
  it('takes the dark theme, and the light one when the page switches it', async () => {
    const { el } = await mount({}, { theme: 'dark' })
    const box = () => root(el).querySelector<HTMLElement>('.container') as HTMLElement
    expect(getComputedStyle(box()).backgroundColor).to.equal('rgb(27, 27, 31)')
    expect(getComputedStyle(input(el, 'number')).color).to.equal('rgb(228, 226, 230)')
    el.theme = 'light'
    await until(() => getComputedStyle(box()).backgroundColor === 'rgb(255, 255, 255)')
    await expect(el).to.be.accessible()
  })

  it('the page’s --pay-* properties reach the form', async () => {
    const { el } = await mount()
    el.style.setProperty('--pay-accent', 'rgb(200, 0, 100)')
    expect(getComputedStyle(payButton(el)).backgroundColor).to.equal('rgb(200, 0, 100)')
  })
})

describe('inline mode, a session the light form does not show', () => {
  it('a QR wallet goes to the full checkout, which shows it', async () => {
    const s = await createSession({
      flow: 'qr',
      amount: '25.00',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="inline" locale="en" endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret}></pay-checkout>`,
    )
    await until(() => !!el.shadowRoot?.querySelector('pay-checkout-inline')?.shadowRoot?.querySelector('pay-qr-wallet'))
    expect(el.shadowRoot?.querySelector('pay-card-inline')).to.equal(null)
    expect(fullCheckoutLoaded()).to.equal(true)
  })
})
