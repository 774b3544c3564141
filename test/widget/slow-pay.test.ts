/**
 * A pay the gateway is slow to answer, inline, in real Chromium against the Worker and the
 * sandbox (its slow card, which answers after the Worker's gateway timeout): after a few seconds
 * the shopper reads that the payment is being confirmed and must not be made again, the pay still
 * under way. Both inline card forms: the light one (whose flow the card frame runs too) and the
 * full checkout's (a session with several ways to pay).
 */
import { expect } from '@open-wc/testing'
import { fill, formIs, INLINE_FORMS, mount, payButton, status, until } from './helpers.ts'

for (const [label, body] of INLINE_FORMS) {
  describe(`a slow gateway, inline: ${label}`, () => {
    it('first says the payment is processing, then, still unanswered after a few seconds, that it is being confirmed and not to pay again; the pay button stays disabled', async () => {
      const { el } = await mount(body)
      formIs(el, body)
      await fill(el, { number: '4000 0000 0000 9995' })
      const submitted = Date.now()
      payButton(el).click()
      await until(() => status(el).includes('Processing your payment'))
      await until(() => status(el).includes('Please don’t pay again'), 10_000)
      expect(Date.now() - submitted).to.be.greaterThanOrEqual(4_900)
      expect(payButton(el).disabled).to.equal(true)
      el.remove()
    })
  })
}
