/**
 * On the gateway's invoice page a declined card may be followed by another that pays: each try is
 * a payment of its own. The session must end paid by the second, whose payment id differs from the
 * declined one's (the invoice is not locked to the first notification's payment).
 */
import { describe, expect, it } from 'vitest'
import {
  browser,
  createSession,
  deliverNotification,
  notificationSentFor,
  payInvoicePage,
  sessionState,
} from './api.ts'
import { uniqueId } from './helpers.ts'
import { sandboxInvoice } from './outcome-support.ts'

async function nextNotification(sessionId: string, previous: string): Promise<string> {
  const deadline = Date.now() + 8_000
  while (Date.now() < deadline) {
    const note = await notificationSentFor(sessionId)
    if (note !== previous) return note
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('no second notification')
}

describe('an invoice paid on its page after a declined card', () => {
  it.each([[['invoice']], [['invoice', 'card']]])(
    'methods %j: the declined try leaves the session open to the paying one, which ends it paid',
    async (methods) => {
      const s = await createSession({
        flow: undefined,
        methods,
        invoiceId: await sandboxInvoice('100.00'),
        merchantInvoiceId: uniqueId('new'),
        invoiceExpirationPeriod: '24',
      })
      const regen = await browser<{ invoice: { transactionUrl: string } }>(s, 'POST', '/invoice/regenerate', {})
      expect(regen.status).toBe(200)

      await payInvoicePage(regen.body.invoice.transactionUrl, '4000000000000002')
      const declined = await notificationSentFor(s.id)
      expect((await deliverNotification(s.id, declined)).status).toBe(200)
      expect((await sessionState(s.id)).status).toBe('declined')

      await payInvoicePage(regen.body.invoice.transactionUrl, '4111111111111111')
      const paid = await nextNotification(s.id, declined)
      expect((await deliverNotification(s.id, paid)).status).toBe(200)
      // Named by the card that paid it, never the declined one.
      expect(await sessionState(s.id)).toMatchObject({
        status: 'succeeded',
        method: 'invoice',
        card: { brand: 'visa', last4: '1111' },
      })
    },
  )
})
