import { expect, fixture, html } from '@open-wc/testing'
import { CHANNEL, parseFrameMessage } from '../../widget/card-frame/messages.ts'
import { parseParentMessage } from '../../widget/card-frame/page-says.ts'
import type { PayCheckout } from '../../widget/index.ts'
import '../../widget/index.ts'

describe('card frame messages', () => {
  const ok = [
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'cs_x_secret_y',
      locale: 'de',
      theme: 'dark',
      collectShipping: false,
      style: {},
    },
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'cs_x_secret_y',
      locale: 'de',
      theme: 'dark',
      collectShipping: false,
      style: { '--pay-accent': '#7a1fa2', '--pay-radius': '2px', '--pay-font': "'Inter', sans-serif" },
    },
    { channel: CHANNEL, type: 'page', page: 'https://shop.example/checkout' },
    { channel: CHANNEL, type: 'submit' },
    { channel: CHANNEL, type: 'method', method: 'saved-card' },
  ]
  const bad: unknown[] = [
    { channel: CHANNEL, type: 'method', method: 'qr' },
    { channel: CHANNEL, type: 'method', method: 'card', card: '4111111111111111' },
    null,
    'init',
    { type: 'submit' },
    { channel: 'other', type: 'submit' },
    { channel: CHANNEL, type: 'submit', extra: 1 },
    { channel: CHANNEL, type: 'init', clientSecret: 'x', locale: 'de', theme: 'dark', collectShipping: false },
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'x',
      locale: 'de',
      theme: 'dark',
      collectShipping: false,
      style: { '--pay-bg': 'url(https://evil.example/x)' },
    },
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'x',
      locale: 'de',
      theme: 'dark',
      collectShipping: false,
      style: { color: 'red' },
    },
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'x',
      locale: 'de',
      theme: 'neon',
      collectShipping: false,
      style: {},
    },
    { channel: CHANNEL, type: 'init', clientSecret: 1, locale: 'de', theme: 'dark', collectShipping: false, style: {} },
    // The page: an http(s) origin and path only, never a query, fragment or `;` parameters (they
    // may hold the secret), and in a message of its own (an init with one more key is refused).
    { channel: CHANNEL, type: 'page', page: 'https://shop.example/?client-secret=cs_x_secret_y' },
    { channel: CHANNEL, type: 'page', page: 'https://shop.example/checkout;jsessionid=abc' },
    { channel: CHANNEL, type: 'page', page: 'javascript:alert(1)' },
    { channel: CHANNEL, type: 'page' },
    {
      channel: CHANNEL,
      type: 'init',
      clientSecret: 'x',
      locale: 'de',
      theme: 'dark',
      collectShipping: false,
      style: {},
      page: 'https://shop.example/checkout',
    },
    { channel: CHANNEL, type: 'toString' },
    { channel: CHANNEL, type: '__proto__' },
  ]

  it('the frame accepts exactly the parent shapes, nothing more', () => {
    for (const m of ok) expect(parseParentMessage(m), JSON.stringify(m)).to.deep.equal(m)
    for (const m of bad) expect(parseParentMessage(m), JSON.stringify(m)).to.equal(undefined)
  })

  it('the parent accepts exactly the frame shapes: no card number can ride along', () => {
    expect(
      parseFrameMessage({
        channel: CHANNEL,
        type: 'result',
        status: 'succeeded',
        paymentId: '1',
        brand: 'visa',
        last4: '1111',
        attemptsRemaining: 2,
      }),
    ).to.not.equal(undefined)
    expect(
      parseFrameMessage({
        channel: CHANNEL,
        type: 'result',
        status: 'succeeded',
        paymentId: '1',
        brand: 'visa',
        last4: '4111111111111111',
        attemptsRemaining: 2,
      }),
    ).to.equal(undefined)
    expect(
      parseFrameMessage({ channel: CHANNEL, type: 'change', valid: true, brand: 'visa', number: '4111111111111111' }),
    ).to.equal(undefined)
    expect(parseFrameMessage({ channel: CHANNEL, type: 'resize', height: -1 })).to.equal(undefined)
    expect(parseFrameMessage({ channel: CHANNEL, type: 'submitted', flow: 'card' })).to.not.equal(undefined)
    expect(
      parseFrameMessage({ channel: CHANNEL, type: 'submitted', flow: 'card', number: '4111111111111111' }),
    ).to.equal(undefined)
    // The methods of a session with several: known names only, each once, nothing else.
    expect(
      parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: ['card', 'qr'], method: null }),
    ).to.not.equal(undefined)
    expect(
      parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: ['card', 'qr'], method: 'qr' }),
    ).to.not.equal(undefined)
    expect(
      parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: ['card', '4111111111111111'], method: null }),
    ).to.equal(undefined)
    expect(parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: ['card', 'card'], method: null })).to.equal(
      undefined,
    )
    expect(parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: [], method: null })).to.equal(undefined)
    expect(parseFrameMessage({ channel: CHANNEL, type: 'methods', methods: ['card'], method: 'cash' })).to.equal(
      undefined,
    )
  })

  it('<pay-checkout isolation="frame"> ignores a well-formed message that does not come from its frame', async () => {
    const el = await fixture<PayCheckout>(
      html`<pay-checkout isolation="frame" endpoint="http://127.0.0.1:9" session="cs_AAAAAAAAAAAAAAAAAAAAAAAA" client-secret="x"></pay-checkout>`,
    )
    let fired = false
    el.addEventListener('pay-success', () => (fired = true))
    window.postMessage(
      {
        channel: CHANNEL,
        type: 'result',
        status: 'succeeded',
        paymentId: '1',
        brand: 'visa',
        last4: '1111',
        attemptsRemaining: 0,
      },
      '*',
    )
    await new Promise((r) => setTimeout(r, 200))
    expect(fired).to.equal(false)
    expect(el.shadowRoot?.querySelector('iframe')?.getAttribute('src')).to.match(
      /^http:\/\/127\.0\.0\.1:9\/frame\/cs_A{24}\?locale=/,
    )
  })
})
