/**
 * @module
 * Refund a captured payment in full or in part: `RF` on `payments/{paymentId}` with the amount
 * (checksum memberId|secureKey|paymentId|amount). Several partial refunds may follow each other;
 * together they never exceed what was captured, counting the refunds still in flight.
 */
import { formatAmount } from '../../../shared/money.ts'
import { refundable } from '../status.ts'
import { IN_FLIGHT_OPERATION } from '../types.ts'
import { minorUnitsRefusal, refuse, type OperationHandler } from './handler.ts'

export interface RefundRequest {
  /** Hundredths; what remains refundable when absent. */
  readonly amountMinor?: number
  readonly reason?: string
}

export const refund: OperationHandler<RefundRequest> = {
  kind: 'refund',
  prefix: 're',
  admit(p, req) {
    if (p.voided) return refuse('payment_state', 'This authorisation was voided; there is nothing to refund.')
    if (p.capturedMinor === 0) {
      // A capture under way is not "nothing captured": the refund can follow it.
      const capturing = p.operations.some((o) => o.kind === 'capture' && IN_FLIGHT_OPERATION.includes(o.status))
      return refuse(
        'payment_state',
        capturing
          ? 'A capture of this authorisation is in progress: refund once it is captured.'
          : 'Nothing is captured yet: capture the authorisation first, or void it.',
      )
    }
    const remaining = refundable(p)
    if (remaining === 0)
      return refuse('amount_too_large', 'Nothing remains to refund (refunds in progress count).', [
        { field: 'amount', code: 'out_of_range', expected: 'nothing: 0.00 remains refundable' },
      ])
    const amountMinor = req.amountMinor ?? remaining
    if (amountMinor > remaining) {
      return refuse(
        'amount_too_large',
        `A refund may not exceed what remains refundable: ${formatAmount(remaining)} ${p.currency} (refunds in progress count).`,
        [
          {
            field: 'amount',
            code: 'out_of_range',
            expected: `at most ${formatAmount(remaining)} (what remains refundable)`,
          },
        ],
      )
    }
    return minorUnitsRefusal(p, amountMinor) ?? { amountMinor, ...(req.reason ? { reason: req.reason } : {}) }
  },
  call(client, p, op) {
    return client.refund(p.paymentId, {
      amount: op.amount,
      currency: p.currency,
      merchantTransactionId: op.merchantTransactionId,
    })
  },
  apply(p, op) {
    p.refundedMinor += op.amountMinor
  },
  events: {
    succeeded: 'refund.succeeded',
    failed: 'refund.failed',
    unknown: 'refund.unknown',
    needs_attention: 'refund.needs_attention',
  },
}
