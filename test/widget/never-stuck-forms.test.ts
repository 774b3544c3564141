/**
 * Never stuck, in both inline card forms: the light one (whose flow the card frame runs too) and
 * the full checkout's (a session with several ways to pay). A file of its own, so that every light
 * variant runs before the full checkout is defined in the page: the element shows the light form
 * only until then (afterwards the full checkout costs nothing, and is used), and a page of
 * another test that loads it (a refused frame's message does) would test the full checkout twice.
 */
import { expect, oneEvent } from '@open-wc/testing'
import { sendKeys } from '@web/test-runner-commands'
import type { FormBody, TestSession } from './helpers.ts'
import { bare500Answer, BEING_CONFIRMED, jsonAnswer } from './answering.ts'
import '../../widget/index.ts'
import { POLL_MAX, POLL_MS, POLL_SLOW_MS } from '../../widget/inline/states.ts'
import {
  createSession,
  fill,
  form,
  formIs,
  FULL_CHECKOUT,
  input,
  inlineFor,
  isPay,
  LIGHT_FORM,
  mount,
  payButton,
  root,
  sessionState,
  setValue,
  status,
  until,
} from './helpers.ts'

const GRACE = { givenName: 'Grace', surname: 'Hopper', email: 'g@example.com' }

/** Pays `s` with `number`, as the page did before it was left; answers the pay's status. */
async function paidBefore(s: TestSession, number: string): Promise<string> {
  const res = await fetch(`${s.endpoint}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.clientSecret}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': crypto.randomUUID(),
    },
    body: JSON.stringify({ card: { number, expiryMonth: '12', expiryYear: '2030', cvv: '123' } }),
  })
  return ((await res.json()) as { status: string }).status
}

/**
 * The full checkout's variants, registered at the end of this file. The element shows the light
 * form only while the full checkout is not defined in the page (once a session of several ways to
 * pay has loaded it, it costs nothing and is used instead), so every light variant runs first.
 */
const fullCheckoutLater: (() => void)[] = []

/** `tests` for both inline card forms: the light one's here, the full checkout's at the end of this file. */
function inBothForms(title: string, tests: (what: string, body: FormBody) => void): void {
  describe(title, () => tests(...LIGHT_FORM))
  fullCheckoutLater.push(() => describe(title, () => tests(...FULL_CHECKOUT)))
}

inBothForms(
  'a session declined before the page loaded it (the bank refused 3-D Secure, the page came back)',
  (what, body) => {
    it(`inline, ${what}: the form says the card was declined and how many tries are left, and pay-declined fires`, async () => {
      const s = await createSession({ ...body, customer: GRACE })
      expect(await paidBefore(s, '4000000000000002')).to.equal('declined')
      let gotDeclined!: Promise<CustomEvent<{ attemptsRemaining: number }>>
      const el = inlineFor(s, (el) => (gotDeclined = oneEvent(el, 'pay-declined')))
      try {
        expect((await gotDeclined).detail.attemptsRemaining).to.equal(2)
        formIs(el, body)
        await until(
          () => status(el) === 'Your card was declined. Please try again or use another card. 2 attempts left.',
        )
        expect(payButton(el).disabled).to.equal(false)
      } finally {
        el.remove()
      }
    })
  },
)

inBothForms('a session that moved on without this page', (what, body) => {
  const CARD = { number: '4111 1111 1111 1111', expiry: '12 / 30', cvv: '123' }

  it(`inline, ${what}: paid in another tab, a pay here shows the payment made and fires pay-success`, async () => {
    const { el, session } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
    expect(await paidBefore(session, '4111111111111111')).to.equal('succeeded')
    const success = oneEvent(el, 'pay-success')
    payButton(el).click()
    expect((await success).detail.status).to.equal('succeeded')
    await until(() => status(el) === 'Payment successful.')
  })

  /**
   * The first pay's answer is a bare HTTP 500 from something in between: after the Worker took it
   * (`reached`), or before. The keys of every pay are kept in `keys`.
   */
  async function bare500<T>(reached: boolean, keys: string[], fn: () => Promise<T>): Promise<T> {
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (!isPay(req, init)) return real(req, init)
      keys.push(new Headers(init?.headers).get('Idempotency-Key') ?? '')
      if (keys.length > 1) return real(req, init)
      if (reached) await real(req, init)
      return bare500Answer()
    }
    try {
      return await fn()
    } finally {
      window.fetch = real
    }
  }

  it(`inline, ${what}: a pay answered by a bare 500 after the Worker charged is not "nothing was charged": the session is read again, and pay-success fires`, async () => {
    const { el } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
    const keys: string[] = []
    await bare500(true, keys, async () => {
      const error = oneEvent(el, 'pay-error')
      const success = oneEvent(el, 'pay-success')
      payButton(el).click()
      expect((await error).detail.code).to.equal('internal_error')
      expect((await success).detail.status).to.equal('succeeded')
    })
    await until(() => status(el) === 'Payment successful.')
    expect(keys).to.have.length(1)
  })

  it(`inline, ${what}: a pay answered by a bare 500 before the Worker took it: the form again, and the retry carries the same key and pays once`, async () => {
    const { el, session } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
    const keys: string[] = []
    await bare500(false, keys, async () => {
      const error = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await error).detail.code).to.equal('internal_error')
      // Being confirmed until the session, read again, says it is open: the form as it was.
      await until(() => !payButton(el).disabled && status(el) === '')
      expect(input(el, 'cvv').value).to.equal('123')
      const success = oneEvent(el, 'pay-success')
      payButton(el).click()
      expect((await success).detail.status).to.equal('succeeded')
    })
    expect(keys).to.have.length(2)
    expect(keys[1]).to.equal(keys[0])
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })

  it(`inline, ${what}: a pay answered by a bare 500, its payment then found never made: the next pay has a key of its own and goes through`, async () => {
    const { el, session } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
    // The first pay never reaches the Worker; the session, read right after it, says it is being
    // confirmed (scripted), and then as it is: open.
    const keys: string[] = []
    let reads = 0
    const real = window.fetch
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (isPay(req, init)) {
        keys.push(new Headers(init?.headers).get('Idempotency-Key') ?? '')
        if (keys.length > 1) return real(req, init)
        return bare500Answer()
      }
      const res = await real(req, init)
      const url = req instanceof Request ? req.url : String(req)
      if (keys.length !== 1 || !url.endsWith(`/v1/checkout/${session.id}`) || reads++ > 0) return res
      return jsonAnswer({ ...((await res.json()) as object), status: 'unknown' })
    }
    const told: string[] = []
    for (const type of ['pay-error', 'pay-pending', 'pay-success'])
      el.addEventListener(type, (e) =>
        told.push(`${type} ${(e as CustomEvent).detail.code ?? (e as CustomEvent).detail.status}`),
      )
    try {
      payButton(el).click()
      await until(() => told.includes('pay-error payment_not_made'))
      expect(told).to.deep.equal(['pay-error internal_error', 'pay-pending unknown', 'pay-error payment_not_made'])
      await until(() => !payButton(el).disabled)
      for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
      payButton(el).click()
      await until(() => told.includes('pay-success succeeded'))
    } finally {
      window.fetch = real
    }
    expect(keys).to.have.length(2)
    expect(keys[1]).to.not.equal(keys[0])
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })

  it(`inline, ${what}: a pay answered by a bare 500 after the Worker took a payment that is pending: pay-error, then pay-pending as its answer would have told`, async () => {
    const { el } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    for (const [id, value] of Object.entries({ ...CARD, number: '4000 0000 0000 0259' })) setValue(input(el, id), value)
    const keys: string[] = []
    await bare500(true, keys, async () => {
      const error = oneEvent(el, 'pay-error')
      const pending = oneEvent(el, 'pay-pending')
      payButton(el).click()
      expect((await error).detail.code).to.equal('internal_error')
      expect((await pending).detail.status).to.equal('pending')
    })
    await until(() => status(el).startsWith('Your payment is being processed.'))
    expect(keys).to.have.length(1)
  })
})

inBothForms('a payment being confirmed that the gateway never received', (what, body) => {
  it(`inline, ${what}: the form comes back asking to try again (not that nothing was charged: it is asked about once more), pay-error payment_not_made fires, and the next pay goes through`, async () => {
    const { el, session } = await mount({ ...body, customer: GRACE })
    formIs(el, body)
    const card = { number: '4111 1111 1111 1111', expiry: '12 / 30', cvv: '123' }
    for (const [id, value] of Object.entries(card)) setValue(input(el, id), value)
    // The first pay is answered "being confirmed" before it reaches the Worker: the session stays
    // open, as it is once the Worker's inquiry finds no such payment (before the page reads it).
    const real = window.fetch
    let first = true
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      if (!isPay(req, init) || !first) return real(req, init)
      first = false
      return jsonAnswer(BEING_CONFIRMED)
    }
    try {
      const pending = oneEvent(el, 'pay-pending')
      const error = oneEvent(el, 'pay-error')
      payButton(el).click()
      expect((await pending).detail.status).to.equal('unknown')
      await until(() => status(el).startsWith('We are confirming your payment.'))
      const e = (await error).detail
      expect(e.code).to.equal('payment_not_made')
      expect(e.message).to.contain('asked once more')
      await until(() => status(el) === 'Something went wrong. Please try again.')
      expect(payButton(el).disabled).to.equal(false)
      // (The full checkout's form was made again for it; the light one kept what was typed.)
      for (const [id, value] of Object.entries(card)) setValue(input(el, id), value)
      const success = oneEvent(el, 'pay-success')
      payButton(el).click()
      expect((await success).detail.status).to.equal('succeeded')
    } finally {
      window.fetch = real
    }
    expect((await sessionState(session.id)).status).to.equal('succeeded')
  })
})

inBothForms('the focus after a pay', (what, body) => {
  it(`inline, ${what}: a keyboard shopper who paid from the button is on it again after a decline`, async () => {
    const s = await createSession({ ...body, customer: GRACE })
    let ready!: Promise<unknown>
    const el = inlineFor(s, (el) => (ready = oneEvent(el, 'pay-ready')))
    try {
      await ready
      formIs(el, body)
      await until(() => !payButton(el).disabled)
      for (const [id, value] of Object.entries({ number: '4000 0000 0000 0002', expiry: '12 / 30', cvv: '123' }))
        setValue(input(el, id), value)
      const declined = oneEvent(el, 'pay-declined')
      payButton(el).focus()
      await sendKeys({ press: 'Enter' })
      await declined
      await until(() => !payButton(el).disabled)
      const button = payButton(el)
      await until(() => (button.getRootNode() as ShadowRoot).activeElement === button)
    } finally {
      el.remove()
    }
  })
})

inBothForms(
  'a bank step left waiting (the shopper came back from the bank’s page, or loaded the page again)',
  (what, body) => {
    it(`inline, ${what}: says the bank waits, and a button goes to the bank’s page (pay-action)`, async () => {
      const s = await createSession({ ...body, customer: GRACE })
      expect(await paidBefore(s, '4000000000003220')).to.equal('action_required')
      const actions: string[] = []
      const el = inlineFor(s, (el) =>
        el.addEventListener('pay-action', (e) => {
          e.preventDefault() // the test page stays
          actions.push(e.detail.redirect.url)
        }),
      )
      try {
        await until(() => status(el) === 'Your bank needs you to confirm this payment.')
        formIs(el, body)
        const toBank = root(el).querySelector<HTMLButtonElement>('button[part=retry]')
        expect(toBank?.textContent).to.equal('Continue to your bank’s page')
        await expect(el).to.be.accessible()
        expect(actions).to.deep.equal([])
        toBank?.click()
        await until(() => actions.length === 1)
        expect(actions[0]).to.match(/\/acs\//)
      } finally {
        el.remove()
      }
    })
  },
)

inBothForms('a payment watched for a long time, then another', (what, body) => {
  const CARD = { number: '4111 1111 1111 1111', expiry: '12 / 30', cvv: '123' }
  // The test scripts `fetch` and `setTimeout`: they are the page's own again after it, even if it
  // timed out with its awaits still running.
  const own = { fetch: window.fetch, setTimeout: window.setTimeout }
  afterEach(() => {
    window.fetch = own.fetch
    window.setTimeout = own.setTimeout
  })

  it(`inline, ${what}: the new payment is checked every ${POLL_MS / 1000} s again, not as seldom as the first had come to be`, async () => {
    const s = await createSession({ ...body, customer: GRACE })
    const realFetch = window.fetch
    const realTimeout = window.setTimeout
    const view = (await (
      await realFetch(`${s.endpoint}/v1/checkout/${s.id}`, { headers: { Authorization: `Bearer ${s.clientSecret}` } })
    ).json()) as Record<string, unknown>
    // What the session says: scripted, so that a payment stays pending for as long as the test needs.
    let says: Record<string, unknown> = view
    window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
      const url = req instanceof Request ? req.url : String(req)
      if (!url.includes(`/v1/checkout/${s.id}`)) return realFetch(req, init)
      if ((init?.method ?? 'GET').toUpperCase() !== 'POST') return jsonAnswer(says)
      says = {
        ...view,
        status: 'pending',
        method: 'card',
        result: { paymentId: 'pay_watched', card: { brand: 'visa', last4: '1111' } },
      }
      return jsonAnswer({ status: 'pending', paymentId: 'pay_watched', attemptsRemaining: 2, message: '' })
    }
    // The checks' waits, recorded and made short: many minutes of checks in a moment.
    const waits: number[] = []
    window.setTimeout = ((fn: TimerHandler, ms?: number, ...args: unknown[]) => {
      if (ms !== POLL_MS && ms !== POLL_SLOW_MS) return realTimeout(fn, ms, ...args)
      waits.push(ms)
      return realTimeout(fn, 1, ...args)
    }) as typeof window.setTimeout
    let ready!: Promise<unknown>
    const el = inlineFor(s, (el) => (ready = oneEvent(el, 'pay-ready')))
    try {
      await ready
      await until(() => !payButton(el).disabled)
      formIs(el, body)
      for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
      payButton(el).click()
      // Checked often for a while, then seldom.
      await until(() => waits.includes(POLL_SLOW_MS))
      expect(waits.indexOf(POLL_SLOW_MS)).to.be.greaterThanOrEqual(POLL_MAX)
      // It is declined at last (a try left); the shopper pays again, and that one is pending too.
      says = {
        ...view,
        status: 'declined',
        attemptsRemaining: 1,
        result: { paymentId: 'pay_watched', card: { brand: 'visa', last4: '1111' } },
      }
      await until(() => status(el).includes('declined'))
      await until(() => !payButton(el).disabled)
      waits.length = 0
      for (const [id, value] of Object.entries(CARD)) setValue(input(el, id), value)
      payButton(el).click()
      await until(() => waits.length > 0)
      expect(waits[0]).to.equal(POLL_MS)
    } finally {
      window.fetch = realFetch
      window.setTimeout = realTimeout
      el.remove()
    }
  })
})

inBothForms('a field only the Worker checks', (what, body) => {
  it(`inline, ${what}: a card number typed in the street is refused at the street, which holds its error until it changes, and the pay goes through then`, async () => {
    const { el } = await mount(body, { shipping: true })
    formIs(el, body)
    await fill(el)
    // The form's own checks let free text by: the Worker refuses a card number in it (R: none stored).
    const street = input(el, 'street')
    setValue(street, '4111 1111 1111 1111')
    const valid: boolean[] = []
    el.addEventListener('pay-change', (e) => valid.push(e.detail.valid))
    const refused = oneEvent(el, 'pay-error')
    payButton(el).click()
    const { detail } = await refused
    expect(detail.code).to.equal('invalid_request')
    expect(detail.fields.map((f: { field: string; code: string }) => [f.field, f.code])).to.deep.equal([
      ['shipping.street1', 'not_allowed'],
    ])
    await until(() => street.getAttribute('aria-invalid') === 'true')
    expect(status(el)).to.equal('Some details are not valid. Please check the highlighted fields and try again.')
    const said = () => form(el).shadowRoot?.querySelector('#street-error')?.textContent?.trim()
    expect(said()).to.equal('Please check this value.')
    expect(street.getAttribute('aria-describedby')).to.include('street-error')
    expect(form(el).shadowRoot?.activeElement).to.equal(street)
    // The page hears the form is not valid while it holds what the Worker refused.
    expect(valid).to.deep.equal([false])
    // Left as it was, it is not sent again, and leaving the input keeps what the Worker said.
    street.blur()
    const pays: string[] = []
    const real = window.fetch
    window.fetch = (req, init) => (isPay(req, init) && pays.push('pay'), real(req, init))
    try {
      payButton(el).click()
      await form(el).updateComplete
      expect(pays).to.deep.equal([])
      expect(said()).to.equal('Please check this value.')
      setValue(street, '1 Bond Street')
      await form(el).updateComplete
      expect(street.getAttribute('aria-invalid')).to.equal('false')
      expect(valid).to.deep.equal([false, true])
      const paid = oneEvent(el, 'pay-success')
      payButton(el).click()
      expect((await paid).detail).to.include({ status: 'succeeded' })
      expect(pays).to.deep.equal(['pay'])
    } finally {
      window.fetch = real
      el.remove()
    }
  })
})

describe('the full checkout (card and QR wallet), after every test of the light form', () => {
  for (const register of fullCheckoutLater) register()
})
