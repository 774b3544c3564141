/**
 * @module
 * The fields a shopper types, with their wire names, formats, required-ness and input hints: the
 * part of the field table a browser needs. The full table (`shared/fields.ts`, for the Worker and
 * the sandbox) spreads these entries into its own, so a field is still written once; nothing here
 * names a gateway credential, a gateway path or a field the Worker or the session sets.
 */
import type { Format } from './formats.ts'
import type { ShopperCheck } from './shopper-formats.ts'
import {
  checkCardNumber,
  checkCountry,
  checkCvv,
  checkEmail,
  checkExpiryMonth,
  checkExpiryYear,
  checkName,
  checkPhone,
  checkPostcode,
  checkTelnocc,
  checkText,
  checkWalletId,
} from './shopper-formats.ts'

/** R = required, O = optional, per gateway operation that carries the field. */
type ShopperUse = Partial<Record<'payment' | 'tokenInitial' | 'tokenRepeat' | 'qrVerify' | 'qrComplete', 'R' | 'O'>>

export interface ShopperField {
  /** The name on the wire, exactly as the gateway spells it. */
  readonly wire: string
  readonly format: Format
  readonly use: ShopperUse
  /** The autofill token and the virtual keyboard. */
  readonly input: { readonly autocomplete: string; readonly inputmode?: 'numeric' | 'email' | 'tel' | 'text' }
}

export const SHOPPER_FIELDS = {
  cardNumber: {
    wire: 'card.number',
    format: 'cardNumber',
    use: { payment: 'R' },
    input: { autocomplete: 'cc-number', inputmode: 'numeric' },
  },
  expiryMonth: {
    wire: 'card.expiryMonth',
    format: 'expiryMonth',
    use: { payment: 'R' },
    input: { autocomplete: 'cc-exp-month', inputmode: 'numeric' },
  },
  expiryYear: {
    wire: 'card.expiryYear',
    format: 'expiryYear',
    use: { payment: 'R' },
    input: { autocomplete: 'cc-exp-year', inputmode: 'numeric' },
  },
  // Required whenever the customer is present (recurring rules 2 and 4); a repeat by payment id
  // has the customer absent and sends none (rule 5).
  cvv: {
    wire: 'card.cvv',
    format: 'cvv',
    use: { payment: 'R', tokenInitial: 'R', tokenRepeat: 'R' },
    input: { autocomplete: 'cc-csc', inputmode: 'numeric' },
  },
  // "Not shown" in the spec; required, because issuers' 3-D Secure risk checks want the name.
  givenName: {
    wire: 'customer.givenName',
    format: 'name',
    use: { payment: 'R' },
    input: { autocomplete: 'given-name', inputmode: 'text' },
  },
  surname: {
    wire: 'customer.surname',
    format: 'name',
    use: { payment: 'R', qrVerify: 'R' },
    input: { autocomplete: 'family-name', inputmode: 'text' },
  },
  // Required: receipts and 3-D Secure 2 both want it.
  email: {
    wire: 'customer.email',
    format: 'email',
    use: { payment: 'R', qrVerify: 'R' },
    input: { autocomplete: 'email', inputmode: 'email' },
  },
  phone: {
    wire: 'customer.phone',
    format: 'phone',
    use: { payment: 'O' },
    input: { autocomplete: 'tel-national', inputmode: 'tel' },
  },
  // Optional, but required together with a phone number (a number without its country code is
  // ambiguous): see the cross-field rule in validate.ts.
  telnocc: {
    wire: 'customer.telnocc',
    format: 'telnocc',
    use: { payment: 'O' },
    input: { autocomplete: 'tel-country-code', inputmode: 'tel' },
  },
  shippingCountry: {
    wire: 'shipping.country',
    format: 'country',
    use: { payment: 'O' },
    input: { autocomplete: 'shipping country', inputmode: 'text' },
  },
  shippingCity: {
    wire: 'shipping.city',
    format: 'text',
    use: { payment: 'O' },
    input: { autocomplete: 'shipping address-level2', inputmode: 'text' },
  },
  shippingState: {
    wire: 'shipping.state',
    format: 'text',
    use: { payment: 'O' },
    input: { autocomplete: 'shipping address-level1', inputmode: 'text' },
  },
  shippingPostcode: {
    wire: 'shipping.postcode',
    format: 'postcode',
    use: { payment: 'O' },
    input: { autocomplete: 'shipping postal-code', inputmode: 'text' },
  },
  shippingStreet1: {
    wire: 'shipping.street1',
    format: 'text',
    use: { payment: 'O' },
    input: { autocomplete: 'shipping address-line1', inputmode: 'text' },
  },
  walletId: {
    wire: 'customer.walletId',
    format: 'walletId',
    use: { qrVerify: 'R', qrComplete: 'O' },
    input: { autocomplete: 'off', inputmode: 'text' },
  },
} as const satisfies Record<string, ShopperField>

export type ShopperFieldName = keyof typeof SHOPPER_FIELDS

/** The checker of each shopper field's format (only these formats: the map tree-shakes with its users). */
export const SHOPPER_CHECKS: Readonly<Record<ShopperFieldName, ShopperCheck>> = {
  cardNumber: checkCardNumber,
  expiryMonth: checkExpiryMonth,
  expiryYear: checkExpiryYear,
  cvv: checkCvv,
  givenName: checkName,
  surname: checkName,
  email: checkEmail,
  phone: checkPhone,
  telnocc: checkTelnocc,
  shippingCountry: checkCountry,
  shippingCity: checkText,
  shippingState: checkText,
  shippingPostcode: checkPostcode,
  shippingStreet1: checkText,
  walletId: checkWalletId,
}
