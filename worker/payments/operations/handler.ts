/**
 * @module
 * What one money operation on a payment is made of, so that the next one is one new module: its
 * typed request (its schema, checked at the route), its admission against the payment's state and amounts
 * (inside the payment object, before anything is written), its typed gateway call, what its
 * success does to the payment, and its events. The payment object runs every kind through the
 * same state machine (`types.ts`: processing -> succeeded | failed | unknown -> ...) by looking
 * the handler up in `HANDLERS` (index.ts); nothing branches on the kind.
 */
import type { ErrorCode, FieldError } from '../../../shared/errors.ts'
import { fitsMinorUnits, formatAmount } from '../../../shared/money.ts'
import type { GatewayClient } from '../../gateway/client.ts'
import type { PaymentOutcome } from '../../gateway/outcome.ts'
import type { EventType } from '../../../shared/webhooks/events.ts'
import type { MoneyOperation, OperationKind, PaymentRecord } from '../types.ts'

/** A request the payment's state or amounts do not allow; the route turns the code into a status. */
export interface Refusal {
  readonly kind: 'refused'
  readonly code: ErrorCode
  readonly message: string
  readonly fields?: readonly FieldError[]
}

export const refuse = (code: ErrorCode, message: string, fields?: readonly FieldError[]): Refusal => ({
  kind: 'refused',
  code,
  message,
  ...(fields ? { fields } : {}),
})

/** What an admitted request moves. */
export interface Admitted {
  readonly amountMinor: number
  readonly reason?: string
}

export interface OperationHandler<Req> {
  readonly kind: OperationKind
  /** Prefix of the operation's id (`re_...`) and of its merchantTransactionId at the gateway. */
  readonly prefix: string
  /** Against the payment as it stands, counting operations in flight: a refusal, or what it moves. */
  admit(p: PaymentRecord, req: Req): Refusal | Admitted
  /** The gateway call, with the operation's own merchantTransactionId. */
  call(client: GatewayClient, p: PaymentRecord, op: MoneyOperation): Promise<PaymentOutcome>
  /** What the operation's success does to the payment (totals, voided). */
  apply(p: PaymentRecord, op: MoneyOperation): void
  /** The event told when the operation enters each of these states, and when its inquiries run out. */
  readonly events: Readonly<Record<'succeeded' | 'failed' | 'unknown' | 'needs_attention', EventType>>
}

/** An amount must be a whole number of the payment currency's minor units (JPY: whole yen). */
export function minorUnitsRefusal(p: PaymentRecord, amountMinor: number): Refusal | undefined {
  return fitsMinorUnits(formatAmount(amountMinor), p.currency)
    ? undefined
    : refuse('invalid_request', 'The amount is finer than the currency allows.', [
        { field: 'amount', code: 'minor_units', expected: `whole ${p.currency} (it has no minor unit): decimals .00` },
      ])
}
