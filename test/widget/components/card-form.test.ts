/**
 * `<pay-card-form>` alone, from a fixture: no Worker, no session. It is given its messages and
 * mode as the checkout gives them, and answers with events: `pay-change` (validity and brand,
 * never a value) and `card-form-submit` (the wire fields, to the checkout only).
 */
import { expect, fixture, html } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import '../../../widget/card-form/card-form.ts'
import type { PayCardForm } from '../../../widget/card-form/card-form.ts'
import type { PayChangeEvent } from '../../../widget/events.ts'

const input = (form: PayCardForm, id: string): HTMLInputElement => {
  const i = form.shadowRoot?.querySelector<HTMLInputElement>(`#${id}`)
  if (!i) throw new Error(`no input #${id}`)
  return i
}

async function type(form: PayCardForm, values: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(values)) {
    const i = input(form, id)
    i.value = value
    i.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste' }))
    i.dispatchEvent(new FocusEvent('blur'))
  }
  await form.updateComplete
}

/** Submits as the pay button does; the `card-form-submit` details it fired. */
async function submit(form: PayCardForm): Promise<Record<string, string>[]> {
  const fired: Record<string, string>[] = []
  const listener = (e: Event) => fired.push((e as CustomEvent<Record<string, string>>).detail)
  form.addEventListener('card-form-submit', listener)
  form.shadowRoot?.querySelector('form')?.requestSubmit()
  await form.updateComplete
  form.removeEventListener('card-form-submit', listener)
  return fired
}

const invalid = (form: PayCardForm): string[] =>
  [...(form.shadowRoot?.querySelectorAll<HTMLInputElement>('input[aria-invalid=true]') ?? [])].map((i) => i.id)

const VALID = {
  number: '4111111111111111',
  expiry: '12 / 30',
  cvv: '123',
  givenName: 'Ada',
  surname: 'Lovelace',
  email: 'ada@example.com',
}

describe('<pay-card-form> from a fixture', () => {
  it('formats the number as typed and tells the brand and validity in pay-change, never a value', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const changes: PayChangeEvent['detail'][] = []
    form.addEventListener('pay-change', (e) => changes.push((e as PayChangeEvent).detail))
    await type(form, { number: '4111111111111111' })
    expect(input(form, 'number').value).to.equal('4111 1111 1111 1111')
    expect(changes.at(-1)).to.deep.equal({ valid: false, brand: 'visa' })
    await type(form, { expiry: '12 / 30', cvv: '123', givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' })
    expect(changes.at(-1)).to.deep.equal({ valid: true, brand: 'visa' })
    expect(JSON.stringify(changes)).not.to.contain('4111')
  })

  it('an empty submit marks every required field and fires nothing', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    expect(await submit(form)).to.deep.equal([])
    expect(invalid(form)).to.include.members(['number', 'expiry', 'cvv', 'givenName', 'surname', 'email'])
    expect(form.shadowRoot?.querySelector('#number-error')?.textContent).to.equal(form.messages.err_required)
  })

  it('the optional inputs say so in their label; the required ones, and the lines of a shipping address optional as a whole, do not', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form collect-shipping></pay-card-form>`)
    const label = (id: string) => form.shadowRoot?.querySelector(`label[for=${id}]`)?.textContent?.trim()
    expect(label('number')).to.equal('Card number')
    expect(label('email')).to.equal('Email')
    expect(label('phone')).to.equal('Phone (optional)')
    expect(label('telnocc')).to.equal('Phone country code (optional)')
    expect(form.shadowRoot?.querySelector('legend')?.textContent?.trim()).to.equal('Shipping address (optional)')
    expect(label('street')).to.equal('Street and number')
    // The required ones are the ones the browser requires: the label and the rule agree.
    for (const id of ['number', 'email', 'phone', 'telnocc'])
      expect(input(form, id).required, id).to.equal(!label(id)?.endsWith('(optional)'))
  })

  it('a refused email or name says what it takes, not only "check this field"', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    await type(form, { ...VALID, email: 'ada@example', givenName: 'Æ A-12' })
    const error = (id: string) => form.shadowRoot?.querySelector(`#${id}-error`)?.textContent
    expect(error('email')).to.equal('Enter an email address like name@example.com.')
    expect(error('givenName')).to.equal('Use letters only, without digits or symbols.')
    expect(error('number')).to.equal(undefined)
  })

  it('the shared cross-field rules: an expiry more than 20 years ahead, and a 3-digit CVV on an Amex card, are refused', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const far = String((new Date().getUTCFullYear() + 23) % 100).padStart(2, '0')
    await type(form, { ...VALID, number: '378282246310005', expiry: `12 / ${far}`, cvv: '123' })
    expect(await submit(form)).to.deep.equal([])
    expect(invalid(form)).to.have.members(['expiry', 'cvv'])
    await type(form, { expiry: '12 / 30', cvv: '1234' })
    expect((await submit(form)).length).to.equal(1)
  })

  it('a valid form fires card-form-submit with the wire fields: the number without spaces, the year in four digits', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    await type(form, VALID)
    const [fields] = await submit(form)
    expect(fields).to.deep.equal({
      'card.number': '4111111111111111',
      'card.expiryMonth': '12',
      'card.expiryYear': '2030',
      'card.cvv': '123',
      'customer.givenName': 'Ada',
      'customer.surname': 'Lovelace',
      'customer.email': 'ada@example.com',
    })
  })

  it('digits typed in the shopper’s script (Arabic, Persian, a Japanese IME’s full width) become the ASCII digits the gateway takes', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    await type(form, {
      ...VALID,
      number: '٤١١١ ١١١١ ١١١١ ١١١١',
      expiry: '۱۲۳۰',
      cvv: '１２３',
    })
    expect(input(form, 'number').value).to.equal('4111 1111 1111 1111')
    expect(input(form, 'expiry').value).to.equal('12 / 30')
    expect(input(form, 'cvv').value).to.equal('123')
    const [fields] = await submit(form)
    expect(fields).to.include({
      'card.number': '4111111111111111',
      'card.expiryMonth': '12',
      'card.expiryYear': '2030',
      'card.cvv': '123',
    })
  })

  it('an expiry month typed as one digit gets its zero as the shopper types: 4 is April, 1/ and 13 are January', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const expiry = input(form, 'expiry')
    for (const [typed, shown] of [
      ['4', '04'],
      ['427', '04 / 27'],
      ['1/30', '01 / 30'],
      ['130', '01 / 30'],
      ['1230', '12 / 30'],
    ]) {
      expiry.value = ''
      expiry.focus()
      await sendKeys({ type: typed as string })
      await form.updateComplete
      expect(expiry.value, typed).to.equal(shown)
    }
  })

  it('a month corrected in the middle of the expiry stays as the shopper types it: 04 / 27 becomes 10 / 27, never 01 / 27', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const expiry = input(form, 'expiry')
    expiry.focus()
    await sendKeys({ type: '0427' })
    expect(expiry.value).to.equal('04 / 27')
    expiry.setSelectionRange(0, 2)
    await sendKeys({ type: '1' })
    await form.updateComplete
    expect(expiry.value).to.equal('1 / 27')
    await sendKeys({ type: '0' })
    await form.updateComplete
    expect(expiry.value).to.equal('10 / 27')
    // A year typed in four digits waits for its last one.
    expiry.select()
    await sendKeys({ type: '122030' })
    await form.updateComplete
    expect(expiry.value).to.equal('12 / 30')
  })

  it('a digit typed or deleted in the middle of the card number stays where it was typed; Backspace after a space takes the digit before it', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const number = input(form, 'number')
    number.focus()
    await sendKeys({ type: '4111222233334444' })
    expect(number.value).to.equal('4111 2222 3333 4444')
    number.setSelectionRange(5, 5) // 4111 |2222
    await sendKeys({ type: '9' })
    await form.updateComplete
    expect(number.value).to.equal('4111 9222 2333 3444 4')
    expect(number.selectionStart).to.equal(6)
    await sendKeys({ press: 'Backspace' })
    await form.updateComplete
    expect(number.value).to.equal('4111 2222 3333 4444')
    expect(number.selectionStart).to.equal(4)
    // Right after the space: Backspace takes the 1 before it, not only the space.
    number.setSelectionRange(5, 5)
    await sendKeys({ press: 'Backspace' })
    await form.updateComplete
    expect(number.value).to.equal('4112 2223 3334 444')
    expect(number.selectionStart).to.equal(3)
  })

  it('a card number pasted with dashes and spaces keeps all its digits', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const number = input(form, 'number')
    number.focus()
    await sendKeys({ type: '4111 - 1111 - 1111 - 1111' })
    await form.updateComplete
    expect(number.value).to.equal('4111 1111 1111 1111')
  })

  it('an expiry with a four-digit year, as autofills and pastes write it (12/2030), is 12 / 30', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const expiry = input(form, 'expiry')
    expiry.value = '12/2030'
    expiry.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertReplacementText' }))
    await form.updateComplete
    expect(expiry.value).to.equal('12 / 30')
    await type(form, { ...VALID, expiry: '12/2030' })
    const [fields] = await submit(form)
    expect(fields).to.include({ 'card.expiryMonth': '12', 'card.expiryYear': '2030' })
  })

  it('a phone typed with its country code chooses that code in the list and keeps the number without it', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form .locale=${'en-CA'}></pay-card-form>`)
    const code = input(form, 'telnocc') as unknown as HTMLSelectElement
    // The lists load just after the first render.
    while (code.options.length < 2) await new Promise((r) => setTimeout(r, 20))
    // +1 is 25 countries': the locale's region says which.
    await type(form, { ...VALID, phone: '+1 (416) 555-0100' })
    expect(code.value).to.equal('CA+1')
    expect(input(form, 'phone').value).to.equal('(416) 555-0100')
    expect(invalid(form)).to.deep.equal([])
    // A code typed with the number wins over the one chosen before, also when only submitted.
    const phone = input(form, 'phone')
    phone.value = '0044 20 7946 0000'
    phone.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste' }))
    const [fields] = await submit(form)
    expect(code.value).to.equal('GB+44')
    expect(fields).to.include({ 'customer.telnocc': '+44', 'customer.phone': '20 7946 0000' })
  })

  it('a phone with a code no country has, or another country’s international prefix (001), is left as typed and refused', async () => {
    const form = await fixture<PayCardForm>(html`<pay-card-form></pay-card-form>`)
    const code = input(form, 'telnocc') as unknown as HTMLSelectElement
    while (code.options.length < 2) await new Promise((r) => setTimeout(r, 20))
    await type(form, { ...VALID, phone: '+999 1234567' })
    expect(input(form, 'phone').value).to.equal('+999 1234567')
    expect(code.value).to.equal('')
    expect(await submit(form)).to.deep.equal([])
    expect(invalid(form)).to.include('phone')
    // 001 is Hong Kong's, Korea's and Singapore's international prefix, never +1: not read as a code.
    await type(form, { phone: '001 49 30 1234567' })
    expect(input(form, 'phone').value).to.equal('001 49 30 1234567')
    expect(code.value).to.equal('')
    expect(await submit(form)).to.deep.equal([])
  })

  it('for a saved card asks for the CVV alone, its length by the saved brand', async () => {
    const form = await fixture<PayCardForm>(
      html`<pay-card-form .mode=${'saved-card'} .savedBrand=${'amex'}></pay-card-form>`,
    )
    expect([...(form.shadowRoot?.querySelectorAll('input') ?? [])].map((i) => i.id)).to.deep.equal(['cvv'])
    await type(form, { cvv: '123' })
    expect(await submit(form)).to.deep.equal([])
    await type(form, { cvv: '1234' })
    expect(await submit(form)).to.deep.equal([{ 'card.cvv': '1234' }])
  })
})
