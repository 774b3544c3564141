/**
 * @module
 * Void an authorisation that is not captured: reversal `RV` on `payments/{paymentId}` (checksum
 * memberId|secureKey|paymentId). The shopper's funds are released; nothing can be captured after.
 */
import { parseAmount } from '../../../shared/money.ts'
import { IN_FLIGHT_OPERATION } from '../types.ts'
import { refuse, type OperationHandler } from './handler.ts'

export type VoidRequest = Record<string, never>

export const voidAuthorisation: OperationHandler<VoidRequest> = {
  kind: 'void',
  prefix: 'vd',
  admit(p) {
    if (p.paymentType !== 'PA')
      return refuse(
        'payment_state',
        'Only an authorisation (paymentType PA) can be voided; refund this payment instead.',
      )
    if (p.voided) return refuse('payment_state', 'This authorisation is voided already.')
    if (p.capturedMinor > 0) return refuse('payment_state', 'This authorisation is captured; refund it instead.')
    const other = p.operations.find(
      (o) => (o.kind === 'capture' || o.kind === 'void') && IN_FLIGHT_OPERATION.includes(o.status),
    )
    if (other) return refuse('payment_state', `A ${other.kind} of this authorisation is in progress.`)
    return { amountMinor: parseAmount(p.amount) ?? 0 }
  },
  call(client, p, op) {
    return client.reverse(p.paymentId, { merchantTransactionId: op.merchantTransactionId })
  },
  apply(p) {
    p.voided = true
  },
  events: {
    succeeded: 'payment.voided',
    failed: 'payment.void_failed',
    unknown: 'payment.void_unknown',
    needs_attention: 'payment.void_needs_attention',
  },
}
