/**
 * Never silent, never stuck (issue 15): every way a checkout used to fail quietly or strand the
 * shopper, through the element, its events and the real Worker, in both modes where both apply.
 * What each inline card form (the light one and the full checkout's) must do alike is in
 * `never-stuck-forms.test.ts`, whose page never loads the full checkout before its light tests ran.
 */
import { expect, fixture, html, oneEvent } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import { CHANNEL } from '../../widget/card-frame/messages.ts'
import type { PayCheckout } from '../../widget/index.ts'
import '../../widget/index.ts'
import {
  CARD_BOX,
  createSession,
  fill,
  form,
  input,
  loaded,
  mount,
  payButton,
  root,
  sessionState,
  setValue,
  status,
  until,
  frameOf,
  mountFrame,
} from './helpers.ts'
import { answering } from './answering.ts'

describe('a page origin the session does not allow', () => {
  it('inline: says so and what to do, and fires pay-error origin_not_allowed (not "Network error")', async () => {
    const s = await createSession({ allowedOrigins: ['https://elsewhere.example'] })
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="inline" locale="en" endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret}></pay-checkout>`,
    )
    const e = await oneEvent(el, 'pay-error')
    expect(e.detail.code).to.equal('origin_not_allowed')
    await until(() => status(el).startsWith('This payment form cannot be shown on this page.'))
    expect(root(el).querySelector(CARD_BOX)).to.equal(null)
    await expect(el).to.be.accessible()
  })

  it('frame: shows the message in place of the refused frame and fires pay-error origin_not_allowed', async () => {
    const s = await createSession({ allowedOrigins: ['https://elsewhere.example'] })
    const el = await mountFrame(s)
    const e = await oneEvent(el, 'pay-error')
    expect(e.detail.code).to.equal('origin_not_allowed')
    await until(() => !!el.shadowRoot?.querySelector('[role=alert]'))
    expect(el.shadowRoot?.querySelector('[role=alert]')?.textContent).to.contain(
      'This payment form cannot be shown on this page.',
    )
    // The refused frame (the browser's broken-page icon) is gone, not merely flagged.
    const frame = frameOf(el)
    expect(frame && getComputedStyle(frame).display).to.equal('none')
  })
})

describe('the Worker cannot be reached', () => {
  it('inline: network_error, a message to check the connection, and a way to try again', async () => {
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="inline" locale="en" endpoint="http://127.0.0.1:9" session="cs_AAAAAAAAAAAAAAAAAAAAAAAA" client-secret="x"></pay-checkout>`,
    )
    const e = await oneEvent(el, 'pay-error')
    expect(e.detail.code).to.equal('network_error')
    await until(() => status(el).includes('Check your internet connection'))
    expect(root(el).querySelector('[part=retry]')?.textContent).to.equal('Try again')
  })

  it('frame: network_error, the message and a way to try again, not a broken frame', async () => {
    const el = await fixture<PayCheckout>(
      html`<pay-checkout locale="en" endpoint="http://127.0.0.1:9" session="cs_AAAAAAAAAAAAAAAAAAAAAAAA" client-secret="x"></pay-checkout>`,
    )
    const e = await oneEvent(el, 'pay-error')
    expect(e.detail.code).to.equal('network_error')
    await until(() => !!el.shadowRoot?.querySelector('[role=alert]'))
    expect(el.shadowRoot?.querySelector('[role=alert]')?.textContent).to.contain('Check your internet connection')
    const retry = el.shadowRoot?.querySelector<HTMLButtonElement>('[part=retry]')
    expect(retry?.textContent).to.equal('Try again')
    await expect(el).to.be.accessible()
    // Trying again builds a new frame (the message goes); the Worker is still away, so it is told again.
    const again = oneEvent(el, 'pay-error')
    retry?.click()
    expect(el.shadowRoot?.querySelector('[role=alert]')).to.equal(null)
    expect(frameOf(el)).to.not.equal(null)
    expect((await again).detail.code).to.equal('network_error')
    await until(() => !!el.shadowRoot?.querySelector('[part=retry]'))
  })
})

describe('a pay whose answer was lost', () => {
  /** The first pay reaches the Worker, which charges; its answer is lost on the way back. */
  async function losingThePaysAnswer<T>(fn: () => Promise<T>): Promise<T> {
    const real = window.fetch
    let lost = false
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      const res = await real(req, init)
      const url = req instanceof Request ? req.url : String(req)
      if (!lost && (init?.method ?? 'GET').toUpperCase() === 'POST' && url.endsWith('/pay')) {
        lost = true
        throw new TypeError('Failed to fetch')
      }
      return res
    }
    try {
      return await fn()
    } finally {
      window.fetch = real
    }
  }

  it('inline: is a network error (not a refused origin), and paying again shows the payment made, with the customer from the session', async () => {
    const { el, session } = await mount({ customer: { givenName: 'Grace', surname: 'Hopper', email: 'g@example.com' } })
    for (const [id, value] of Object.entries({ number: '4111 1111 1111 1111', expiry: '12 / 30', cvv: '123' }))
      setValue(input(el, id), value)
    const e = await losingThePaysAnswer(async () => {
      const error = oneEvent(el, 'pay-error')
      payButton(el).click()
      return await error
    })
    expect(e.detail.code).to.equal('network_error')
    await until(() => status(el).includes('Check your internet connection'))
    // Paid already: the same request, sent again with its key, gets that payment back.
    const success = oneEvent(el, 'pay-success')
    payButton(el).click()
    expect((await success).detail.status).to.equal('succeeded')
    await until(() => status(el) === 'Payment successful.')
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })
})

const GRACE = { givenName: 'Grace', surname: 'Hopper', email: 'g@example.com' }

describe('a new session set on the element while a pay of the one before is on its way', () => {
  const CARD = { number: '4111 1111 1111 1111', expiry: '12 / 30', cvv: '123' }

  it('inline, the full checkout (card and QR wallet): the new session is not shown paid by the old pay’s answer, and its own pay goes through', async () => {
    const { el } = await mount({ methods: ['card', 'qr'], customer: GRACE })
    for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
    const next = await createSession({ methods: ['card', 'qr'], amount: '42.00', customer: GRACE })
    const successes: unknown[] = []
    el.addEventListener('pay-success', (e) => successes.push(e.detail))
    const real = window.fetch
    let held = false
    // The old session's pay is answered a second and a half late.
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      const url = req instanceof Request ? req.url : String(req)
      if (held || (init?.method ?? 'GET').toUpperCase() !== 'POST' || !url.endsWith('/pay')) return real(req, init)
      held = true
      const res = await real(req, init)
      await new Promise((r) => setTimeout(r, 1_500))
      return res
    }
    try {
      payButton(el).click()
      await until(() => held)
      el.session = next.id
      el.clientSecret = next.clientSecret
      await until(() => payButton(el).textContent?.trim() === 'Pay €42.00')
      await new Promise((r) => setTimeout(r, 2_000))
      expect(successes).to.deep.equal([])
      expect(status(el)).to.not.equal('Payment successful.')
      for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
      const success = oneEvent(el, 'pay-success')
      payButton(el).click()
      expect((await success).detail.status).to.equal('succeeded')
      expect((await sessionState(next.id)).status).to.equal('succeeded')
    } finally {
      window.fetch = real
    }
  })
})

describe('gateway errors leave the form usable with a message saying what to do', () => {
  for (const code of ['gateway_rejected', 'gateway_auth_failed', 'gateway_unavailable', 'duplicate_order']) {
    it(`inline: ${code}`, async () => {
      const { el } = await mount()
      await fill(el)
      const errors: string[] = []
      el.addEventListener('pay-error', (e) => errors.push(e.detail.code))
      await answering(
        '/pay',
        {
          status: code === 'duplicate_order' ? 409 : code === 'gateway_unavailable' ? 503 : 502,
          body: { error: { code, message: 'x' } },
        },
        async () => {
          payButton(el).click()
          await until(() => errors.length > 0)
        },
      )
      expect(errors).to.deep.equal([code])
      await form(el).updateComplete
      // The form as the shopper left it, the button usable, and a message that is not a shrug.
      expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
      expect(payButton(el).disabled).to.equal(false)
      expect(status(el)).to.match(/Please|contact the shop/)
      expect(status(el)).to.not.equal('Something went wrong. Please try again.')
    })
  }

  it('frame: the host relays the frame’s error as pay-error and keeps the frame', async () => {
    const endpoint = 'http://127.0.0.1:9'
    const el = await fixture<PayCheckout>(
      html`<pay-checkout endpoint=${endpoint} session="cs_AAAAAAAAAAAAAAAAAAAAAAAA" client-secret="x"></pay-checkout>`,
    )
    const frame = frameOf(el)
    if (!frame?.contentWindow) throw new Error('no frame')
    const got = oneEvent(el, 'pay-error')
    window.dispatchEvent(
      new MessageEvent('message', {
        data: { channel: CHANNEL, type: 'error', code: 'gateway_unavailable', message: 'x', fields: [] },
        origin: endpoint,
        source: frame.contentWindow,
      }),
    )
    expect((await got).detail.code).to.equal('gateway_unavailable')
    expect(frameOf(el)?.hidden).to.equal(false)
  })
})

describe('a card-velocity refusal', () => {
  it('inline: says to use another card, keeps the form and button, and another card then pays', async () => {
    const { el } = await mount()
    await fill(el)
    await answering(
      '/pay',
      { status: 429, body: { error: { code: 'too_many_attempts', message: 'This card was used too often.' } } },
      async () => {
        const refused = oneEvent(el, 'pay-error')
        payButton(el).click()
        expect((await refused).detail.code).to.equal('too_many_attempts')
      },
    )
    await form(el).updateComplete
    expect(status(el)).to.equal('This card has been tried too many times. Please use another card, or try again later.')
    expect(payButton(el).disabled).to.equal(false)
    setValue(input(el, 'number'), '5555 5555 5555 4444')
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    await paid
  })

  it('inline: a pause of card payments across the shop says to wait, not to change cards, and keeps the form', async () => {
    const { el } = await mount()
    await fill(el)
    await answering(
      '/pay',
      {
        status: 429,
        body: { error: { code: 'payments_paused', message: 'Card payments are paused for a few minutes.' } },
      },
      async () => {
        const refused = oneEvent(el, 'pay-error')
        payButton(el).click()
        expect((await refused).detail.code).to.equal('payments_paused')
      },
    )
    await form(el).updateComplete
    expect(status(el)).to.equal('Too many tries in a short time. Please wait a minute and try again.')
    expect(payButton(el).disabled).to.equal(false)
  })
})

describe('no session yet (a single-page app)', () => {
  it('frame: renders no frame and requests nothing until the session is set, then shows the form', async () => {
    const s = await createSession()
    const before = performance.getEntriesByType('resource').length
    const el = await fixture<PayCheckout>(html`<pay-checkout locale="en" endpoint=${s.endpoint}></pay-checkout>`)
    await new Promise((r) => setTimeout(r, 300))
    expect(frameOf(el)).to.equal(null)
    const requested = performance
      .getEntriesByType('resource')
      .slice(before)
      .map((e) => e.name)
    expect(requested.filter((u) => u.includes('/frame/') || u.includes('/v1/checkout'))).to.deep.equal([])
    const ready = oneEvent(el, 'pay-ready')
    el.session = s.id
    el.clientSecret = s.clientSecret
    await ready
    expect(frameOf(el)?.src).to.contain(`/frame/${s.id}?`)
  })

  it("frame: with the session's frame token, the frame's address carries it and the form is ready", async () => {
    const s = await createSession()
    expect(s.frameToken).to.be.a('string')
    const el = await fixture<PayCheckout>(html`<pay-checkout locale="en" endpoint=${s.endpoint}></pay-checkout>`)
    const ready = oneEvent(el, 'pay-ready')
    el.frameToken = s.frameToken ?? ''
    el.session = s.id
    el.clientSecret = s.clientSecret
    await ready
    const src = new URL(frameOf(el)?.src ?? '')
    expect(src.pathname).to.equal(`/frame/${s.id}`)
    expect(src.searchParams.get('t')).to.equal(s.frameToken)
  })

  it('inline: requests nothing until the session is set', async () => {
    const before = performance.getEntriesByType('resource').length
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="inline" locale="en" endpoint="http://127.0.0.1:9"></pay-checkout>`,
    )
    await new Promise((r) => setTimeout(r, 300))
    const requested = performance
      .getEntriesByType('resource')
      .slice(before)
      .map((e) => e.name)
    expect(requested.filter((u) => u.includes('/v1/checkout'))).to.deep.equal([])
    expect(el.shadowRoot?.querySelector('iframe')).to.equal(null)
  })
})

describe('render first', () => {
  it('inline: the card inputs accept typing and pay-ready fires before the session answers; the pay button fills in after', async () => {
    const s = await createSession()
    await answering(
      '',
      {
        status: 200,
        delayMs: 1500,
        body: {
          id: s.id,
          flow: 'card',
          status: 'open',
          amount: '100.00',
          currency: 'EUR',
          expiresAt: new Date(Date.now() + 3600e3).toISOString(),
          attemptsRemaining: 3,
          savedCard: null,
          invoice: null,
          qr: null,
          customer: null,
          result: null,
          redirect: null,
          testMode: true,
        },
      },
      async () => {
        const el = await fixture<PayCheckout>(
          html`<pay-checkout isolation="inline" locale="en" endpoint=${s.endpoint} session=${s.id} client-secret=${s.clientSecret}></pay-checkout>`,
        )
        const ready = await oneEvent(el, 'pay-ready')
        expect(ready.detail).to.deep.equal({ flow: 'card', status: 'loading' })
        setValue(input(el, 'number'), '4111 1111 1111 1111')
        expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
        expect(payButton(el).disabled).to.equal(true)
        await loaded(el)
        expect(payButton(el).disabled).to.equal(false)
        expect(payButton(el).textContent?.trim()).to.equal('Pay €100.00')
        expect(input(el, 'number').value).to.equal('4111 1111 1111 1111')
      },
      'GET',
    )
  })
})

describe('the frame follows its content', () => {
  it('frame: after paying, the frame shrinks to the result instead of leaving a gap', async () => {
    const s = await createSession()
    const el = await mountFrame(s)
    await oneEvent(el, 'pay-ready')
    const frame = frameOf(el)
    if (!frame) throw new Error('no frame')
    await until(() => Number(frame.height) > 400)
    const tall = Number(frame.height)
    // A keyboard shopper, typing into the frame (cross-origin: only real key presses reach it).
    frame.focus()
    await sendKeys({ press: 'Tab' })
    const texts = ['4111111111111111', '1230', '123', 'Ada', 'Lovelace', 'ada@example.com']
    for (const [i, text] of texts.entries()) {
      await sendKeys({ type: text })
      if (i < texts.length - 1) await sendKeys({ press: 'Tab' })
    }
    // Enter in the last field submits the form once the session has answered (the pay button waits
    // for it, and a disabled button is skipped by Tab and takes no Enter): until then the shopper
    // presses again. The page hears pay-submit when the frame takes it.
    const paid = oneEvent(el, 'pay-success')
    let submitted = false
    el.addEventListener('pay-submit', () => (submitted = true), { once: true })
    for (let i = 0; i < 40 && !submitted; i++) {
      await sendKeys({ press: 'Enter' })
      await new Promise((r) => setTimeout(r, 250))
    }
    await paid
    await until(() => Number(frame.height) < tall - 200)
    expect(Number(frame.height)).to.be.lessThan(200)
  })
})

describe('3-D Secure without a returnUrl', () => {
  it('inline: the pay tells the Worker which page started it (origin and path, never the query), for the result page to link back to', async () => {
    const { el } = await mount()
    await fill(el, { number: '4000000000003220' })
    const sent: Record<string, unknown>[] = []
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (String(req instanceof Request ? req.url : req).endsWith('/pay'))
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
      return real(req, init)
    }
    try {
      // The bank's page is not followed here: the element announces it, the test keeps the page.
      el.addEventListener('pay-action', (e) => e.preventDefault(), { once: true })
      const action = oneEvent(el, 'pay-action')
      payButton(el).click()
      expect((await action).detail.redirect.url).to.contain('/acs/')
    } finally {
      window.fetch = real
    }
    expect(sent.length).to.equal(1)
    expect(sent[0]?.returnPage).to.equal(location.origin + location.pathname)
    expect(String(sent[0]?.returnPage)).to.not.contain('?')
  })

  it('inline: a Worker that refuses the page (an earlier release, or a page it will not link to) still takes the payment: once more without it, same key', async () => {
    const { el } = await mount()
    await fill(el)
    const sent: { body: Record<string, unknown>; key: string | null }[] = []
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (!String(req instanceof Request ? req.url : req).endsWith('/pay')) return real(req, init)
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>
      sent.push({ body, key: new Headers(init?.headers).get('Idempotency-Key') })
      // As a Worker without the field answers: the strict body schema names the unknown key.
      if ('returnPage' in body)
        return new Response(
          JSON.stringify({
            error: {
              code: 'invalid_request',
              message: 'Some fields are missing or invalid.',
              fields: [{ field: 'returnPage', code: 'unknown', expected: 'no such field' }],
            },
          }),
          { status: 400, headers: { 'Content-Type': 'application/json' } },
        )
      return real(req, init)
    }
    try {
      const paid = oneEvent(el, 'pay-success')
      payButton(el).click()
      await paid
    } finally {
      window.fetch = real
    }
    expect(sent.map((s) => 'returnPage' in s.body)).to.deep.equal([true, false])
    expect(sent[1]?.key).to.equal(sent[0]?.key)
  })
})

describe('what the shopper sees', () => {
  /** A QR session's code shown for the sandbox wallet `walletId` (its name says how it pays). */
  async function qrCodeShown(walletId: string): Promise<PayCheckout> {
    const { el } = await mount({
      flow: 'qr',
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    })
    const qr = () => root(el).querySelector('pay-qr-wallet')?.shadowRoot
    const wallet = qr()?.querySelector<HTMLInputElement>('#walletId')
    if (wallet) wallet.value = walletId
    qr()?.querySelector('form')?.requestSubmit()
    await until(() => !!qr()?.querySelector('svg[part=qr]'))
    return el
  }

  it('a QR payment whose "I have paid" got no answer: the session is read again and shows it paid (pay-success), not "nothing was charged"', async () => {
    const el = await qrCodeShown('wallet-ok')
    // The completion reaches the Worker, which takes the payment; its answer is lost on the way back.
    const real = window.fetch
    let lost = false
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      const res = await real(req, init)
      const url = req instanceof Request ? req.url : String(req)
      if (!lost && url.endsWith('/qr/complete')) {
        lost = true
        throw new TypeError('Failed to fetch')
      }
      return res
    }
    try {
      const error = oneEvent(el, 'pay-error')
      const success = oneEvent(el, 'pay-success')
      el.submit()
      expect((await error).detail.code).to.equal('network_error')
      expect((await success).detail.status).to.equal('succeeded')
    } finally {
      window.fetch = real
    }
    await until(() => status(el) === 'Payment successful.')
  })

  it('a declined QR wallet says the wallet payment was declined, not the card', async () => {
    const el = await qrCodeShown('wallet-declined')
    const declined = oneEvent(el, 'pay-declined')
    el.submit()
    await declined
    await until(() => status(el) !== '' && !status(el).startsWith('Processing'))
    expect(status(el)).to.match(/^Your wallet payment was declined\. /)
    expect(status(el)).to.not.contain('card')
  })

  it('the invoice’s pay link sits below the Expires row, not over it', async () => {
    const existing = (await (await fetch('/__merchant/invoice', { method: 'POST' })).json()) as {
      systemInvoiceId: string
    }
    const { el } = await mount({
      flow: 'invoice',
      amount: '250.00',
      invoiceId: existing.systemInvoiceId,
      merchantInvoiceId: `inv-o-${Date.now()}`,
      invoiceExpirationPeriod: '24',
    })
    const view = () => root(el).querySelector('pay-invoice-view')?.shadowRoot
    el.submit()
    await until(() => !!view()?.querySelector('[part=pay-link]'))
    const dl = view()?.querySelector('dl')?.getBoundingClientRect()
    const link = view()?.querySelector('[part=pay-link]')?.getBoundingClientRect()
    expect(dl && link && link.top >= dl.bottom).to.equal(true)
  })

  it('busy states show a spinner beside the text, in the status and on the pay button', async () => {
    const { el } = await mount()
    await fill(el)
    await answering(
      '/pay',
      {
        status: 200,
        delayMs: 800,
        body: { status: 'succeeded', paymentId: 'P1', attemptsRemaining: 2, message: 'ok' },
      },
      async () => {
        const paid = oneEvent(el, 'pay-success')
        payButton(el).click()
        await until(() => status(el) === 'Processing your payment…')
        expect(root(el).querySelector('[role=status] .spinner')).to.exist
        await form(el).updateComplete
        expect(payButton(el).querySelector('.spinner')).to.exist
        await paid
      },
    )
    expect(root(el).querySelector('.spinner')).to.equal(null)
  })

  it('the sandbox shows a test-mode badge', async () => {
    const { el } = await mount()
    expect(root(el).querySelector('[part=badge]')?.textContent).to.equal('Test mode')
  })

  it('the country is a list of countries in the shopper’s language, the phone code a list too; it pays', async () => {
    const { el, session } = await mount({}, { locale: 'de', shipping: true })
    const country = input(el, 'country') as unknown as HTMLSelectElement
    expect(country.tagName).to.equal('SELECT')
    expect(country.querySelector('option[value=DE]')?.textContent).to.equal('Deutschland')
    const code = input(el, 'telnocc') as unknown as HTMLSelectElement
    expect(code.querySelector('option[value="DE+49"]')?.textContent).to.equal('Deutschland (+49)')
    await fill(el)
    country.value = 'DE'
    country.dispatchEvent(new Event('change'))
    code.value = 'DE+49'
    code.dispatchEvent(new Event('change'))
    setValue(input(el, 'phone'), '30 1234567')
    const paid = oneEvent(el, 'pay-success')
    payButton(el).click()
    await paid
    expect(session.id).to.match(/^cs_/)
  })
})
