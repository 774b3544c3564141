/**
 * @module
 * Types derived from the field table, so that a field added there is typed everywhere.
 */
import type {
  AUTH_TOKEN_RESPONSE,
  INVOICE_RESPONSE,
  NOTIFICATION_FIELDS,
  Operation,
  PAYMENT_RESPONSE,
  QR_RESPONSE,
  REDIRECT_FIELDS,
  REQUEST_FIELDS,
  RETURN_FIELDS,
  ResponseField,
} from './fields.ts'

type Fields = typeof REQUEST_FIELDS

/** Logical names of the fields an operation requires (R) or may send (O). */
export type RequiredFieldOf<Op extends Operation> = {
  [K in keyof Fields]: Fields[K]['use'] extends { readonly [P in Op]: 'R' } ? K : never
}[keyof Fields]
export type OptionalFieldOf<Op extends Operation> = {
  [K in keyof Fields]: Fields[K]['use'] extends { readonly [P in Op]: 'O' } ? K : never
}[keyof Fields]

/** One operation's request, keyed by logical field name (what the gateway client takes). */
export type RequestOf<Op extends Operation> = { [K in RequiredFieldOf<Op>]: string } & {
  [K in OptionalFieldOf<Op>]?: string
}

/** A validated request as wire name -> text value, ready to form-encode. */
export type WireRequest = Record<string, string>

/** A response table read into a flat object: required paths are strings, the rest may be missing. */
export type Flat<T extends Record<string, ResponseField>> = {
  [K in keyof T]: T[K] extends { readonly required: true } ? string : string | undefined
}

export type PaymentResponse = Flat<typeof PAYMENT_RESPONSE>
export type QrResponse = Flat<typeof QR_RESPONSE>
export type InvoiceResponse = Flat<typeof INVOICE_RESPONSE>
export type AuthTokenResponse = Flat<typeof AUTH_TOKEN_RESPONSE>
export type Notification = Flat<typeof NOTIFICATION_FIELDS>
export type BrowserReturn = Flat<typeof RETURN_FIELDS>

/** The 3-D Secure step: a form of hidden fields to submit to `url`. */
export type Redirect = Flat<typeof REDIRECT_FIELDS> & {
  readonly parameters: readonly { readonly name: string; readonly value: string }[]
}
