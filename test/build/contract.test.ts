/**
 * The contract the Worker's answers and events are held to (test/support/contract.ts): the API
 * document. A right answer and event pass; each way of breaking it is named.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadContract } from '../support/contract.ts'
import { root } from '../../tools/stacks.mjs'

const contract = loadContract(join(root, 'docs/openapi.json'))

const payment = {
  id: 'P1',
  object: 'payment',
  status: 'captured',
  amount: '10.00',
  currency: 'EUR',
  paymentType: 'DB',
  amountCaptured: '10.00',
  amountRefunded: '0.00',
  amountRefundable: '10.00',
  sessionId: 'cs_x',
  merchantTransactionId: 'o-1',
  source: 'card',
  registrationId: null,
  card: { brand: 'visa', last4: '1111' },
  email: null,
  metadata: {},
  captures: [],
  voids: [],
  refunds: [],
  needsAttention: false,
  createdAt: '2026-11-25T00:00:00.000Z',
  updatedAt: '2026-11-25T00:00:00.000Z',
}
const refund = {
  id: 're_1',
  object: 'refund',
  status: 'succeeded',
  amount: '5.00',
  reason: null,
  gatewayId: 'G1',
  resultCode: '00005',
  failure: null,
  needsAttention: false,
  createdAt: '2026-11-25T00:00:00.000Z',
  updatedAt: '2026-11-25T00:00:00.000Z',
}

describe('the API document as a contract', () => {
  it('passes an answer with every field the document requires, and names a missing one', () => {
    expect(contract.answer('GET', '/v1/payments/P1', 200, payment)).toEqual([])
    const { amountRefundable: _, ...without } = payment
    expect(contract.answer('GET', '/v1/payments/P1', 200, without).join()).toContain('amountRefundable')
    expect(
      contract
        .answer('POST', '/v1/sessions', 201, { id: 'cs_1', status: 'open', expiresAt: '2026-11-25T00:00:00.000Z' })
        .join(),
    ).toContain('clientSecret')
  })

  it('passes a real event, and fails a deliberately wrong one: an unknown type, a missing field, a wrong status', () => {
    const event = {
      id: 'evt_1',
      type: 'refund.succeeded',
      created: 1,
      data: { ...payment, operation: refund, previousStatus: 'processing', sequence: 2 },
    }
    expect(contract.event(event)).toEqual([])
    expect(contract.event({ ...event, type: 'refund.done' })).toEqual([
      "event type refund.done is not in the document's webhooks",
    ])
    const { sequence: _, ...noSequence } = event.data
    expect(contract.event({ ...event, data: noSequence }).join()).toContain('sequence')
    expect(
      contract.event({ ...event, data: { ...event.data, operation: { ...refund, status: 'done' } } }).join(),
    ).toContain('/data/operation/status')
  })
})
