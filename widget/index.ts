/**
 * @module
 * `<pay-checkout>`: import this module (or load it as one `<script type="module">` from the
 * Worker's origin) and the element is defined.
 *
 * @example
 * <pay-checkout endpoint="https://pay.example.workers.dev" session="cs_..." client-secret="..."></pay-checkout>
 */
import { PayCheckout } from './pay-checkout/pay-checkout.ts'

export { PayCheckout }
export * from './events.ts'
export type { CheckoutState } from './pay-checkout/pay-checkout.ts'

if (!customElements.get('pay-checkout')) customElements.define('pay-checkout', PayCheckout)
