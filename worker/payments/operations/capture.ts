/**
 * @module
 * Capture an authorisation (`paymentType PA`), in full or in part, once: `CP` on
 * `payments/{paymentId}` with the amount (checksum memberId|secureKey|paymentId|amount). What is
 * not captured is released by the gateway; a captured payment can then be refunded.
 */
import { parseAmount } from '../../../shared/money.ts'
import { IN_FLIGHT_OPERATION } from '../types.ts'
import { minorUnitsRefusal, refuse, type OperationHandler } from './handler.ts'

export interface CaptureRequest {
  /** Hundredths; the whole authorisation when absent. */
  readonly amountMinor?: number
}

export const capture: OperationHandler<CaptureRequest> = {
  kind: 'capture',
  prefix: 'cp',
  admit(p, req) {
    if (p.paymentType !== 'PA')
      return refuse(
        'payment_state',
        'Only an authorisation (paymentType PA) can be captured; this payment was captured when it was paid.',
      )
    if (p.voided) return refuse('payment_state', 'This authorisation was voided.')
    const other = p.operations.find(
      (o) =>
        (o.kind === 'capture' || o.kind === 'void') &&
        (o.status === 'succeeded' || IN_FLIGHT_OPERATION.includes(o.status)),
    )
    if (other)
      return refuse(
        'payment_state',
        other.status !== 'succeeded'
          ? `A ${other.kind} of this authorisation is in progress.`
          : 'This authorisation is captured already (a capture happens once).',
      )
    const authorised = parseAmount(p.amount) ?? 0
    const amountMinor = req.amountMinor ?? authorised
    if (amountMinor > authorised)
      return refuse('amount_too_large', `A capture may not exceed the authorised ${p.amount} ${p.currency}.`, [
        { field: 'amount', code: 'out_of_range', expected: `at most ${p.amount} (the authorised amount)` },
      ])
    return minorUnitsRefusal(p, amountMinor) ?? { amountMinor }
  },
  call(client, p, op) {
    return client.capture(p.paymentId, {
      amount: op.amount,
      currency: p.currency,
      merchantTransactionId: op.merchantTransactionId,
    })
  },
  apply(p, op) {
    p.capturedMinor = op.amountMinor
  },
  events: {
    succeeded: 'payment.captured',
    failed: 'payment.capture_failed',
    unknown: 'payment.capture_unknown',
    needs_attention: 'payment.capture_needs_attention',
  },
}
