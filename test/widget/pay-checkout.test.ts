import { expect, oneEvent } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import { en } from '../../shared/i18n/messages/en.ts'
import { loadMessages, resolveLocale, SUPPORTED_LOCALES } from '../../widget/i18n/index.ts'
import type { PayCheckout } from '../../widget/index.ts'
import { CARD, fill, form, input, mount, payButton, sessionState, setValue, status, until, root } from './helpers.ts'

const collect = (el: PayCheckout, types: string[]) => {
  const seen: { type: string; detail: unknown }[] = []
  for (const t of types) el.addEventListener(t, (e) => seen.push({ type: t, detail: (e as CustomEvent).detail }))
  return seen
}

describe('<pay-checkout> card flow', () => {
  describe('accessibility', () => {
    for (const theme of ['light', 'dark']) {
      it(`is accessible when ready (${theme})`, async () => {
        const { el } = await mount({}, { theme })
        await expect(el).to.be.accessible()
      })

      it(`is accessible with field errors shown (${theme})`, async () => {
        const { el } = await mount({}, { theme, shipping: true })
        payButton(el).click()
        await form(el).updateComplete
        expect(input(el, 'number').getAttribute('aria-invalid')).to.equal('true')
        await expect(el).to.be.accessible()
      })

      it(`is accessible after a success and after a decline (${theme})`, async () => {
        const { el } = await mount({}, { theme })
        await fill(el, { number: '4000 0000 0000 0002' })
        const declined = oneEvent(el, 'pay-declined')
        payButton(el).click()
        await declined
        await expect(el).to.be.accessible()
        await fill(el)
        const ok = oneEvent(el, 'pay-success')
        payButton(el).click()
        await ok
        await expect(el).to.be.accessible()
      })
    }

    it('labels every input, with autofill tokens and numeric keyboards', async () => {
      const { el } = await mount()
      const expected: Record<string, [string, string]> = {
        number: ['cc-number', 'numeric'],
        expiry: ['cc-exp', 'numeric'],
        cvv: ['cc-csc', 'numeric'],
        givenName: ['given-name', 'text'],
        surname: ['family-name', 'text'],
        email: ['email', 'email'],
        telnocc: ['tel-country-code', ''],
        phone: ['tel-national', 'tel'],
      }
      for (const [id, [autocomplete, mode]] of Object.entries(expected)) {
        const i = input(el, id)
        expect(i.autocomplete, id).to.equal(autocomplete)
        // The phone country code is a list (a select has no virtual keyboard).
        expect(i.inputMode ?? '', id).to.equal(mode)
        expect(form(el).shadowRoot?.querySelector(`label[for=${id}]`)?.textContent, id).to.not.be.empty
      }
    })
  })

  describe('validation through the real inputs', () => {
    const cases: [string, string, string, string | null][] = [
      ['number', '4111 1111 1111 1112', 'This card number is not valid.', null],
      ['number', '4111', 'This has the wrong number of digits.', null],
      ['number', '9999 9999 9999 9995', 'This card type is not accepted.', null],
      ['expiry', '01 / 20', 'This card has expired.', null],
      ['expiry', '13 / 30', 'Please check this field.', null],
      // More than 20 years ahead: refused here as the Worker refuses it (a typo such as 12/49).
      [
        'expiry',
        `12 / ${String((new Date().getUTCFullYear() + 21) % 100).padStart(2, '0')}`,
        'Please check this value.',
        null,
      ],
      ['cvv', '12', 'This has the wrong number of digits.', null],
      // A refused email or name says what it takes.
      ['email', 'ada@', 'Enter an email address like name@example.com.', null],
      ['email', 'ada@example', 'Enter an email address like name@example.com.', null],
      ['givenName', 'Æ A-12', 'Use letters only, without digits or symbols.', null],
      ['surname', 'O’Brien-Smith', '', null],
      ['number', '4111 1111 1111 1111', '', 'visa'],
      ['number', '3782 822463 10005', '', 'amex'],
      ['number', '5555 5555 5555 4444', '', 'mastercard'],
    ]
    for (const [id, value, message, brand] of cases) {
      it(`${id} ${JSON.stringify(value)} -> ${message || 'valid'}`, async () => {
        const { el } = await mount()
        setValue(input(el, id), value)
        await form(el).updateComplete
        // Nothing is shown while typing...
        expect(form(el).shadowRoot?.querySelector(`#${id}-error`)).to.equal(null)
        input(el, id).dispatchEvent(new FocusEvent('blur'))
        await form(el).updateComplete
        const error = form(el).shadowRoot?.querySelector(`#${id}-error`)
        // ...and after blur, the rule (never the value).
        expect(error?.textContent?.trim() ?? '').to.equal(message)
        if (message) expect(input(el, id).getAttribute('aria-describedby')).to.contain(`${id}-error`)
        // The brand as an icon (inline SVG) named for assistive technology.
        const mark = form(el).shadowRoot?.querySelector('[part=brand]')
        if (brand) expect(mark?.getAttribute('aria-label')?.toLowerCase()).to.contain(brand.slice(0, 4))
        if (brand) expect(mark?.querySelector('svg')).to.exist
      })
    }

    it('groups digits as typed: 4-4-4-4, Amex 4-6-5', async () => {
      const { el } = await mount()
      input(el, 'number').focus()
      await sendKeys({ type: '4111111111111111' })
      expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
      setValue(input(el, 'number'), '')
      input(el, 'number').focus()
      await sendKeys({ type: '378282246310005' })
      expect(input(el, 'number').value).to.equal('3782 822463 10005')
      input(el, 'expiry').focus()
      await sendKeys({ type: '1230' })
      expect(input(el, 'expiry').value).to.equal('12 / 30')
    })

    it('on submit, shows every error and focuses the first invalid field', async () => {
      const { el } = await mount()
      setValue(input(el, 'number'), CARD.number)
      payButton(el).click()
      await form(el).updateComplete
      await until(() => form(el).shadowRoot?.activeElement?.id === 'expiry')
      expect(form(el).shadowRoot?.querySelectorAll('.error').length).to.be.greaterThan(2)
    })

    it('accepts autofill that sets every field without input events', async () => {
      const { el, session } = await mount()
      for (const [id, value] of Object.entries(CARD)) input(el, id).value = value
      const ok = oneEvent(el, 'pay-success')
      payButton(el).click()
      await ok
      expect((await sessionState(session.id)).status).to.equal('succeeded')
    })
  })

  describe('paying', () => {
    it('pay-ready says "ready to pay" once: never again after the shopper paid', async () => {
      // Heard on the document (they bubble, composed), from before the element exists.
      const seen = collect(document as unknown as PayCheckout, ['pay-ready', 'pay-success'])
      const { el } = await mount({}, { isolation: 'inline' })
      await until(() => seen.some((s) => s.type === 'pay-ready'))
      await fill(el)
      const ok = oneEvent(el, 'pay-success')
      payButton(el).click()
      await ok
      // The success view has nothing to fill in; it is a result, not a new "ready".
      await new Promise((r) => setTimeout(r, 500))
      expect(seen.map((s) => s.type)).to.deep.equal(['pay-ready', 'pay-success'])
    })

    it('a session already paid when the element loads it fires pay-ready once with status succeeded (after the card form’s early loading one)', async () => {
      const first = await mount({}, { isolation: 'inline' })
      await fill(first.el)
      const ok = oneEvent(first.el, 'pay-success')
      payButton(first.el).click()
      await ok
      const again = document.createElement('pay-checkout') as PayCheckout
      const seen = collect(again, ['pay-ready'])
      again.setAttribute('isolation', 'inline')
      again.setAttribute('endpoint', first.session.endpoint)
      again.setAttribute('session', first.session.id)
      again.setAttribute('client-secret', first.session.clientSecret)
      document.body.append(again)
      await until(() => seen.length >= 2)
      // Nothing more comes after the session's answer.
      await new Promise((r) => setTimeout(r, 500))
      // The card form renders before the session answers (pay-ready, loading); the answer then says it is paid.
      expect(seen.map((s) => (s.detail as { status: string }).status)).to.deep.equal(['loading', 'succeeded'])
      again.remove()
    })

    it('pays, announces the result politely, fires the documented events without card data', async () => {
      const { el, session } = await mount()
      const seen = collect(el, ['pay-change', 'pay-submit', 'pay-success'])
      await fill(el)
      const ok = oneEvent(el, 'pay-success')
      payButton(el).click()
      const event = await ok
      expect(event.detail).to.deep.equal({
        status: 'succeeded',
        paymentId: event.detail.paymentId,
        brand: 'visa',
        last4: '1111',
      })
      expect(status(el)).to.equal('Payment successful.')
      expect(root(el).querySelector('[role=status]')?.getAttribute('aria-live')).to.equal('polite')
      expect(seen.map((s) => s.type)).to.include.members(['pay-change', 'pay-submit', 'pay-success'])
      const change = seen.find((s) => s.type === 'pay-change')?.detail as Record<string, unknown>
      expect(Object.keys(change).sort()).to.deep.equal(['brand', 'valid'])
      const all = JSON.stringify(seen)
      expect(all).to.not.contain('4111111111111111')
      expect(all).to.not.contain('4111 1111')
      expect(all).to.not.contain('"123"')
      expect((await sessionState(session.id)).status).to.equal('succeeded')
    })

    it('a double click sends one request', async () => {
      const { el, session } = await mount()
      await fill(el)
      const calls: string[] = []
      const original = window.fetch
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        calls.push(`${init?.method ?? 'GET'} ${String(input)}`)
        return original(input, init)
      }
      try {
        const ok = oneEvent(el, 'pay-success')
        payButton(el).click()
        payButton(el).click()
        payButton(el).dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }))
        await ok
      } finally {
        window.fetch = original
      }
      expect(calls.filter((c) => c.startsWith('POST') && c.endsWith('/pay'))).to.have.length(1)
      expect(((await sessionState(session.id)).attempts as unknown[]).length).to.equal(1)
    })

    it('after a decline, says so coarsely and lets the shopper retry; then succeeds', async () => {
      const { el } = await mount()
      await fill(el, { number: '4000 0000 0000 0002' })
      const declined = oneEvent(el, 'pay-declined')
      payButton(el).click()
      expect((await declined).detail.attemptsRemaining).to.equal(2)
      expect(status(el)).to.contain('Your card was declined.')
      expect(status(el)).to.not.match(/10001|authori/i)
      expect(input(el, 'cvv').value).to.equal('')
      await fill(el)
      const ok = oneEvent(el, 'pay-success')
      payButton(el).click()
      await ok
    })

    it('a pending card ends succeeded once the notification settles it', async () => {
      const { el } = await mount()
      await fill(el, { number: '4000 0000 0000 0259' })
      const pending = oneEvent(el, 'pay-pending')
      payButton(el).click()
      await pending
      expect(status(el)).to.equal(
        'Your payment is being processed. You don’t need to pay again: this page updates by itself.',
      )
      // The sandbox notifies the Worker; the element polls the session.
      await until(() => status(el) === 'Payment successful.', 20_000)
    })

    it('3-D Secure: pay-action carries the redirect; cancelling it keeps the page', async () => {
      const { el } = await mount()
      await fill(el, { number: '4000 0000 0000 3220' })
      el.addEventListener('pay-action', (e) => e.preventDefault())
      const action = oneEvent(el, 'pay-action')
      payButton(el).click()
      const e = await action
      expect(e.detail.redirect.url).to.contain('/acs/')
      expect(e.detail.redirect.parameters.map((p: { name: string }) => p.name)).to.deep.equal(['PaReq', 'MD'])
      expect(status(el)).to.equal(
        'Your bank needs you to confirm this payment. You are being taken to your bank’s page.',
      )
      // The page stayed: read again, the session says the bank's step waits, and offers its page.
      await until(() => status(el) === 'Your bank needs you to confirm this payment.')
      expect(root(el).querySelector('[part=retry]')?.textContent).to.equal('Continue to your bank’s page')
    })

    it('a keyboard-only shopper pays; focus follows the visual order', async () => {
      const { el } = await mount()
      input(el, 'number').focus()
      const order: string[] = []
      for (const [id, text] of [
        ['number', '4111111111111111'],
        ['expiry', '1230'],
        ['cvv', '123'],
        ['givenName', 'Ada'],
        ['surname', 'Lovelace'],
        ['email', 'ada@example.com'],
      ]) {
        order.push(form(el).shadowRoot?.activeElement?.id ?? '')
        await sendKeys({ type: text ?? '' })
        await sendKeys({ press: 'Tab' })
        expect(id).to.be.a('string')
      }
      expect(order).to.deep.equal(['number', 'expiry', 'cvv', 'givenName', 'surname', 'email'])
      const rendered = [...(form(el).shadowRoot?.querySelectorAll('input') ?? [])].map((i) => i.id)
      expect(rendered.slice(0, 6)).to.deep.equal(order)
      // Past the phone country code list to the phone number, where Enter submits the form.
      expect(form(el).shadowRoot?.activeElement?.id).to.equal('telnocc')
      await sendKeys({ press: 'Tab' })
      const ok = oneEvent(el, 'pay-success')
      await sendKeys({ press: 'Enter' })
      await ok
    })

    it('submit() pays and reset() clears the form', async () => {
      const { el } = await mount()
      await fill(el, { cvv: '12' })
      el.reset()
      await form(el).updateComplete
      expect(input(el, 'number').value).to.equal('')
      await fill(el)
      const ok = oneEvent(el, 'pay-success')
      el.submit()
      await ok
    })
  })

  describe('saved card', () => {
    it('asks only for the CVV and shows brand and last 4', async () => {
      const { el } = await mount({
        flow: 'saved-card',
        registrationId: 'R1',
        savedCard: { brand: 'amex', last4: '0005' },
      })
      expect(root(el).textContent).to.contain('Card ending in 0005')
      const inputs = [...(form(el).shadowRoot?.querySelectorAll('input') ?? [])].map((i) => i.id)
      expect(inputs).to.deep.equal(['cvv'])
      setValue(input(el, 'cvv'), '123')
      input(el, 'cvv').dispatchEvent(new FocusEvent('blur'))
      await form(el).updateComplete
      expect(form(el).shadowRoot?.querySelector('#cvv-error')?.textContent).to.contain('wrong number of digits')
      await expect(el).to.be.accessible()
    })
  })

  describe('saving a card without paying (flow setup)', () => {
    it('shows no amount, offers "Save card", and says the card is saved once the Worker registered it', async () => {
      const { el, session } = await mount({ flow: 'setup', amount: null })
      expect(root(el).querySelector('[part=amount]')).to.equal(null)
      expect(payButton(el).textContent?.trim()).to.equal('Save card')
      expect(payButton(el).textContent).not.to.contain('0.01')
      await expect(el).to.be.accessible()
      await fill(el)
      const saved = oneEvent(el, 'pay-success')
      payButton(el).click()
      // The card is saved: no payment is named (the authorisation it took is voided).
      expect((await saved).detail.paymentId ?? null).to.equal(null)
      expect(status(el)).to.equal('Card saved.')
      const state = await sessionState(session.id)
      expect(state).to.include({ flow: 'setup', status: 'succeeded' })
      expect(state.registrationId).to.be.a('string')
    })
  })
})

describe('locales', () => {
  it('each locale has every message key, and none is left as a raw key', async () => {
    for (const locale of SUPPORTED_LOCALES) {
      const messages = await loadMessages(locale)
      for (const key of Object.keys(en)) {
        const text = messages[key as keyof typeof en]
        expect(text, `${locale}.${key}`).to.be.a('string').and.not.be.empty
        expect(text, `${locale}.${key}`).to.not.equal(key)
      }
    }
  })

  it('falls back from region to language to English', () => {
    expect(resolveLocale(['de-AT'])).to.equal('de')
    expect(resolveLocale(['pt-BR', 'en'])).to.equal('pt-BR')
    expect(resolveLocale(['pt-PT'])).to.equal('pt')
    expect(resolveLocale(['sv-SE'])).to.equal('sv')
    expect(resolveLocale(['xx-YY'])).to.equal('en')
  })

  it('de-AT renders German, with the amount formatted for the locale', async () => {
    const { el } = await mount({}, { locale: 'de-AT' })
    expect(form(el).shadowRoot?.querySelector('label[for=number]')?.textContent).to.equal('Kartennummer')
    expect(payButton(el).textContent).to.contain('100,00')
    expect(payButton(el).textContent).to.contain('bezahlen')
  })

  it('ja renders Japanese; JPY shows no decimals', async () => {
    const { el } = await mount({ currency: 'JPY', amount: '1000.00' }, { locale: 'ja' })
    expect(form(el).shadowRoot?.querySelector('label[for=number]')?.textContent).to.equal('カード番号')
    expect(payButton(el).textContent).to.match(/[￥¥]1,000 を支払う/)
  })
})
