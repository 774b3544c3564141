// `<pay-checkout>` in React 19 JSX: `import type {} from 'pay-checkout/react'` once (or add
// "pay-checkout/react" to `compilerOptions.types`). React 19 sets attributes and listens to
// custom events as written: `onpay-success={(e) => ...}`.
import type { PayCheckout, PayActionEvent, PayChangeEvent, PayDeclinedEvent, PayErrorEvent, PayPendingEvent, PayReadyEvent, PaySubmitEvent, PaySuccessEvent } from '../dist/package/widget/index.js'
import type { DetailedHTMLProps, HTMLAttributes } from 'react'

export interface PayCheckoutJSXProps extends DetailedHTMLProps<HTMLAttributes<PayCheckout>, PayCheckout> {
  endpoint?: string
  session?: string
  'client-secret'?: string
  'frame-token'?: string
  locale?: string
  theme?: 'light' | 'dark' | 'auto'
  'collect-shipping'?: boolean
  isolation?: 'inline' | 'frame'
  'onpay-ready'?: (event: PayReadyEvent) => void
  'onpay-change'?: (event: PayChangeEvent) => void
  'onpay-submit'?: (event: PaySubmitEvent) => void
  'onpay-action'?: (event: PayActionEvent) => void
  'onpay-success'?: (event: PaySuccessEvent) => void
  'onpay-pending'?: (event: PayPendingEvent) => void
  'onpay-declined'?: (event: PayDeclinedEvent) => void
  'onpay-error'?: (event: PayErrorEvent) => void
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'pay-checkout': PayCheckoutJSXProps
    }
  }
}
