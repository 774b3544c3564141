/**
 * The server SDK's webhook events are typed by event type: `PayWebhookEvent` is a union
 * discriminated by `type`, each `data` from the API document's `webhooks` (server/api.ts, generated).
 * A merchant's handler is typechecked as written (strict, against the SDK's sources, as
 * client.test.ts does the README's snippets): narrowing gives typed fields, and a field the event
 * does not carry is an error (`@ts-expect-error` fails the compile if it is not).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EVENT_TYPES, isKnownEvent, signatureHeader, verifyWebhook } from '../../server/index.ts'
import { typecheckAgainstSdk } from '../support/typecheck.ts'

const tmp = mkdtempSync(join(tmpdir(), 'pay-webhook-types-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const handler = `import { verifyWebhook, isKnownEvent, type PayWebhookEvent, type PayWebhookEventData } from 'pay-checkout/server'

export async function receive(rawBody: string, header: string | null): Promise<number> {
  const result = await verifyWebhook(rawBody, header, 'whsec')
  if (!result.ok) return result.reason === 'replayed' ? 200 : 400
  const event = result.event
  if (!isKnownEvent(event)) return 200
  if (event.type === 'checkout.session.succeeded') {
    const paymentId: string | null = event.data.paymentId
    const amount: string = event.data.amount
    const order: string = event.data.merchantTransactionId
    const sequence: number = event.data.sequence
    const from: 'open' | 'processing' | 'action_required' | 'pending' | 'unknown' | 'declined' | 'failed' | 'succeeded' | 'expired' = event.data.previousStatus
    const plan: string | undefined = event.data.metadata['plan']
    // @ts-expect-error a session event carries no amountRefunded (a payment's field)
    void event.data.amountRefunded
    // @ts-expect-error nor a field that does not exist
    void event.data.paidAmount
    return paymentId && amount && order && sequence && from && plan !== '' ? 200 : 500
  }
  switch (event.type) {
    case 'refund.succeeded':
    case 'payment.captured': {
      const refunded: string = event.data.amountRefunded
      const operation: 'capture' | 'void' | 'refund' | undefined = event.data.operation.object
      const opAmount: string = event.data.operation.amount
      return refunded && operation && opAmount ? 200 : 500
    }
    case 'checkout.breaker.tripped': {
      const until: string = event.data.until
      // @ts-expect-error the breaker is about the deployment, not a session
      void event.data.paymentId
      return until ? 200 : 500
    }
    case 'payment.repeat.succeeded':
      return event.data.status === 'succeeded' && typeof event.data.paymentId === 'string' ? 200 : 500
    case 'invoice.regenerated':
      return event.data.invoice?.transactionUrl ? 200 : 500
    case 'registration.deleted': {
      const deleted: 'deleting' | 'deleted' | undefined = event.data.status
      return deleted ? 200 : 500
    }
    // @ts-expect-error not an event pay-checkout sends
    case 'checkout.session.paid':
      return 500
    default:
      return 200
  }
}

export const succeeded: PayWebhookEventData<'checkout.session.succeeded'>['status'] = 'succeeded'
// @ts-expect-error a type outside the catalogue has no data
export type Unknown = PayWebhookEventData<'checkout.session.paid'>
export function typeOf(e: PayWebhookEvent): string {
  // @ts-expect-error data is read-only
  e.data = {}
  return e.type
}
`

describe('PayWebhookEvent', () => {
  it('narrows data by event type: typed fields, and a field the event lacks is an error', () => {
    const out = typecheckAgainstSdk(tmp, 'handler.ts', handler, {
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
    })
    expect(out).toBe('')
  })

  it('isKnownEvent takes a verified event of the catalogue, not one of a newer type', async () => {
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'checkout.session.succeeded',
      created: 1,
      data: { amount: '1.00' },
    })
    const result = await verifyWebhook(body, await signatureHeader('whsec', body), 'whsec')
    expect(result.ok && isKnownEvent(result.event)).toBe(true)
    const newer = { id: 'evt_2', type: 'checkout.session.paid_later', created: 1, data: {} }
    expect(isKnownEvent(newer)).toBe(false)
    expect(Object.hasOwn(EVENT_TYPES, newer.type)).toBe(false)
  })
})
