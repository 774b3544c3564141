/**
 * @module
 * The events `<pay-checkout>` fires. Each is a small class: `bubbles` and `composed`, so they
 * cross shadow roots; a typed `detail` that never carries a card number or CVV.
 */
import type { CardBrand } from '../shared/card.ts'
import type { CheckoutFlow } from '../shared/checkout.ts'
import type { FieldError } from '../shared/errors.ts'

export interface PayReadyDetail {
  readonly flow: 'card' | 'saved-card' | 'qr' | 'invoice'
  readonly status: string
}
export interface PayChangeDetail {
  /** True when every field passes validation. */
  readonly valid: boolean
  /** Detected from the first digits; never the number itself. */
  readonly brand: CardBrand | null
  /** Set when the shopper picks another way to pay (the method picker); its form starts empty. */
  readonly method?: CheckoutFlow
}
export interface PaySubmitDetail {
  readonly flow: string
}
export interface PayActionDetail {
  /** The 3-D Secure step: a form of hidden fields to submit to `url`. */
  readonly redirect: {
    readonly url: string
    readonly method?: string | undefined
    readonly parameters: readonly { name: string; value: string }[]
  }
}
export interface PayResultDetail {
  readonly status: string
  readonly paymentId: string | null
  readonly brand: CardBrand | null
  readonly last4: string | null
}
export interface PayDeclinedDetail extends PayResultDetail {
  readonly attemptsRemaining: number
}
export interface PayErrorDetail {
  readonly code: string
  readonly message: string
  readonly fields: readonly FieldError[]
}

class PayEvent<T> extends Event {
  constructor(
    type: string,
    readonly detail: T,
    cancelable = false,
  ) {
    super(type, { bubbles: true, composed: true, cancelable })
  }
}

export class PayReadyEvent extends PayEvent<PayReadyDetail> {
  constructor(detail: PayReadyDetail) {
    super('pay-ready', detail)
  }
}
export class PayChangeEvent extends PayEvent<PayChangeDetail> {
  constructor(detail: PayChangeDetail) {
    super('pay-change', detail)
  }
}
export class PaySubmitEvent extends PayEvent<PaySubmitDetail> {
  constructor(detail: PaySubmitDetail) {
    super('pay-submit', detail)
  }
}
/** Cancelable: call `preventDefault()` to run the 3-D Secure step yourself. */
export class PayActionEvent extends PayEvent<PayActionDetail> {
  constructor(detail: PayActionDetail) {
    super('pay-action', detail, true)
  }
}
export class PaySuccessEvent extends PayEvent<PayResultDetail> {
  constructor(detail: PayResultDetail) {
    super('pay-success', detail)
  }
}
export class PayPendingEvent extends PayEvent<PayResultDetail> {
  constructor(detail: PayResultDetail) {
    super('pay-pending', detail)
  }
}
export class PayDeclinedEvent extends PayEvent<PayDeclinedDetail> {
  constructor(detail: PayDeclinedDetail) {
    super('pay-declined', detail)
  }
}
export class PayErrorEvent extends PayEvent<PayErrorDetail> {
  constructor(detail: PayErrorDetail) {
    super('pay-error', detail)
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'pay-ready': PayReadyEvent
    'pay-change': PayChangeEvent
    'pay-submit': PaySubmitEvent
    'pay-action': PayActionEvent
    'pay-success': PaySuccessEvent
    'pay-pending': PayPendingEvent
    'pay-declined': PayDeclinedEvent
    'pay-error': PayErrorEvent
  }
}
