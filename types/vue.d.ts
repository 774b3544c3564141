// `<pay-checkout>` in Vue templates (vue-tsc / Volar): `import type {} from 'pay-checkout/vue'`
// once. Tell the compiler the tag is a custom element:
// `compilerOptions.isCustomElement = (t) => t === 'pay-checkout'`.
import type { DefineComponent } from 'vue'
import type { PayActionEvent, PayChangeEvent, PayDeclinedEvent, PayErrorEvent, PayPendingEvent, PayReadyEvent, PaySubmitEvent, PaySuccessEvent } from '../dist/package/widget/index.js'

export interface PayCheckoutVueProps {
  endpoint?: string
  session?: string
  'client-secret'?: string
  clientSecret?: string
  'frame-token'?: string
  frameToken?: string
  locale?: string
  theme?: 'light' | 'dark' | 'auto'
  'collect-shipping'?: boolean
  collectShipping?: boolean
  isolation?: 'inline' | 'frame'
  'onPay-ready'?: (event: PayReadyEvent) => void
  'onPay-change'?: (event: PayChangeEvent) => void
  'onPay-submit'?: (event: PaySubmitEvent) => void
  'onPay-action'?: (event: PayActionEvent) => void
  'onPay-success'?: (event: PaySuccessEvent) => void
  'onPay-pending'?: (event: PayPendingEvent) => void
  'onPay-declined'?: (event: PayDeclinedEvent) => void
  'onPay-error'?: (event: PayErrorEvent) => void
  onPayReady?: (event: PayReadyEvent) => void
  onPayChange?: (event: PayChangeEvent) => void
  onPaySubmit?: (event: PaySubmitEvent) => void
  onPayAction?: (event: PayActionEvent) => void
  onPaySuccess?: (event: PaySuccessEvent) => void
  onPayPending?: (event: PayPendingEvent) => void
  onPayDeclined?: (event: PayDeclinedEvent) => void
  onPayError?: (event: PayErrorEvent) => void
}

declare module 'vue' {
  interface GlobalComponents {
    'pay-checkout': DefineComponent<PayCheckoutVueProps>
  }
}
