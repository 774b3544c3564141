/**
 * @module
 * The ways to pay as the inline checkout shows them, one row each (the Worker's rows are in
 * `worker/checkout/methods/table.ts`). The card methods use the card form, which is in the
 * checkout's own chunk; any other method's component is a chunk of its own, loaded only for the
 * sessions that show it, and its steps are in `./other-methods.ts`. A new way to pay is a row
 * here, its component, and its render function there.
 */
import type { CheckoutFlow } from '../../shared/checkout.ts'
import type { MessageKey } from '../i18n/index.ts'

export interface MethodView {
  /** Its element in the checkout: what the pay button submits and what `pay-ready` waits for. */
  readonly tag: 'pay-card-form' | 'pay-qr-wallet' | 'pay-invoice-view'
  /** Its component's chunk; none for the card form, which is always loaded. */
  readonly load?: () => Promise<unknown>
  /** Its view stays up while its payment waits (a QR code shown waits to be scanned). */
  readonly shownWhileWaiting?: true
  /** What a decline says, with tries left (`{n}`) and the last one; the card's words if none. */
  readonly declined?: readonly [retry: MessageKey, final: MessageKey]
  /**
   * What a decline on a page of the gateway's (an invoice's) says when the session is read again:
   * the shopper comes back from that page to this one, which has not seen the decline.
   */
  readonly declinedElsewhere?: MessageKey
}

const card: MethodView = { tag: 'pay-card-form' }

export const METHOD_VIEWS: Readonly<Record<CheckoutFlow, MethodView>> = {
  card,
  'saved-card': card,
  qr: {
    tag: 'pay-qr-wallet',
    load: () => import('../qr-wallet/qr-wallet.ts'),
    shownWhileWaiting: true,
    declined: ['walletDeclinedRetry', 'walletDeclinedFinal'],
  },
  invoice: {
    tag: 'pay-invoice-view',
    load: () => import('../invoice-view/invoice-view.ts'),
    declinedElsewhere: 'invoiceDeclined',
  },
}

/** Whether a method pays with the card form (a card or a saved card). */
export const usesCardForm = (m: CheckoutFlow): m is 'card' | 'saved-card' => METHOD_VIEWS[m].tag === card.tag

/** What a decline with tries left (0) or the last one (1) says for a method. */
export const declinedMessage = (m: CheckoutFlow, final: 0 | 1): MessageKey =>
  METHOD_VIEWS[m].declined?.[final] ?? (final ? 'declinedFinal' : 'declinedRetry')

/** Every method's element, for a query that finds whichever is shown. */
export const METHOD_TAGS = [...new Set(Object.values(METHOD_VIEWS).map((v) => v.tag))].join()
