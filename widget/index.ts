/**
 * @module
 * `<pay-checkout>`: import this module (or load it as one `<script type="module">` from the
 * Worker's origin) and the element is defined. It is small: in the default frame mode the card
 * form runs in the frame; `isolation="inline"` loads the inline checkout when first used.
 *
 * @example
 * <pay-checkout endpoint="https://pay.example.workers.dev" session="cs_..." client-secret="..."></pay-checkout>
 */
import { PayCheckout } from './pay-checkout/pay-checkout.ts'

export { PayCheckout }
export * from './events.ts'
export type { CheckoutState } from './inline/pay-checkout-inline.ts'

// The card frame's page (served by the Worker, marked `data-pay-frame`) loads this same file and
// runs the frame instead of defining the element: so the element a merchant page loads is one file
// with nothing shared, pinned entirely by its `integrity` attribute in frame mode.
if (typeof document !== 'undefined' && document.documentElement.hasAttribute('data-pay-frame'))
  void import('./card-frame/frame-page.ts')
else if (!customElements.get('pay-checkout')) customElements.define('pay-checkout', PayCheckout)
