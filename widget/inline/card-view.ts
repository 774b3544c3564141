/**
 * @module
 * The card methods in the inline checkout: the card form (a new card, or the CVV of a saved one)
 * and its pay button's label. In the checkout's own chunk: the card form renders at once, before
 * the session answers.
 */
import { html, nothing, type TemplateResult } from 'lit'
import type { CheckoutView } from '../api-client.ts'
import '../card-form/card-form.ts'
import { format, formatMoney, isolateLtr } from '../i18n/index.ts'
import type { PayCheckoutInline } from './pay-checkout-inline.ts'

/** A card method's form: a new card, or the CVV of the saved one. */
export function renderCardForm(
  c: PayCheckoutInline,
  flow: 'card' | 'saved-card',
  view: CheckoutView | null,
  pay: (fields: Record<string, string>) => void,
): TemplateResult {
  const locale = c.resolvedLocale
  // A setup saves the card and charges nothing the shopper should read as a price.
  const submitLabel = view?.setup
    ? c.messages.saveCard
    : view
      ? format(c.messages, 'pay', { amount: isolateLtr(formatMoney(view.amount, view.currency, locale), locale) })
      : c.messages.payNoAmount
  const saved = flow === 'saved-card' ? view?.savedCard : undefined
  return html`${saved ? html`<p class="saved">${format(c.messages, 'savedCard', { last4: saved.last4 })}</p>` : nothing}
    <pay-card-form
      exportparts="form, field, input, error, brand, submit"
      .mode=${flow}
      .messages=${c.messages}
      .locale=${locale}
      .prefill=${view?.customer ?? null}
      .savedBrand=${view?.savedCard?.brand ?? null}
      .collectShipping=${c.collectShipping}
      .submitLabel=${submitLabel}
      .disabled=${!view || c.state === 'submitting'}
      .busy=${c.state === 'submitting'}
      @card-form-submit=${(e: CustomEvent<Record<string, string>>) => pay(e.detail)}
    ></pay-card-form>`
}
