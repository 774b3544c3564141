/**
 * @module
 * Request schemas of the merchant routes on payments and invoices: a repeat, an inquiry, capture,
 * void and refund, an invoice regeneration. Formats come from the field table (build.ts).
 */
import * as v from 'valibot'
import { DEFAULT_AMOUNT_BOUNDS, fitsMinorUnits, parseAmount, type AmountBounds } from '../../shared/money.ts'
import { containsCardNumber } from '../../shared/card.ts'
import { described, failed, field, invoicePeriod, oneOf, report } from './build.ts'
import { metadataSchema } from './sessions.ts'

/** `POST /v1/payments/{paymentId}/repeat`: amount, currency, and DB (default) or PA. */
export const repeatBody = (bounds: AmountBounds = DEFAULT_AMOUNT_BOUNDS) =>
  v.pipe(
    v.strictObject({
      amount: field('amount', {
        amountBounds: bounds,
        description: 'Decimal text with two decimals, not finer than the currency minor unit',
      }),
      currency: field('currency'),
      paymentType: v.optional(field('paymentType', { description: 'DB (default) or PA' })),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      const b = dataset.value as { amount?: unknown; currency?: unknown }
      if (
        failed(dataset.issues, 'amount') ||
        failed(dataset.issues, 'currency') ||
        typeof b.amount !== 'string' ||
        typeof b.currency !== 'string'
      )
        return
      if (!fitsMinorUnits(b.amount, b.currency))
        report(addIssue, b, 'amount', 'minor_units', "a whole number of the currency's minor units")
    }),
    v.metadata({ ref: 'RepeatRequest' }),
  )

/** `POST /v1/payments/{id}/inquiry`: the id is a gateway paymentId (PID, default) or a merchantTransactionId (MID). */
export const inquiryBody = v.pipe(
  v.strictObject({
    idType: v.optional(oneOf(['PID', 'MID'], 'PID (default): the id is a paymentId; MID: a merchantTransactionId')),
  }),
  v.metadata({ ref: 'InquiryRequest' }),
)

const optionalAmount = (description: string) =>
  v.optional(
    v.pipe(
      field('amount', { description }),
      v.transform((a) => parseAmount(a) ?? 0),
    ),
  )

/** `POST /v1/payments/{paymentId}/capture`: the amount in hundredths, or the whole authorisation. */
export const captureBody = v.pipe(
  v.strictObject({ amount: optionalAmount('Default: the whole authorisation') }),
  v.metadata({ ref: 'CaptureRequest' }),
  v.transform((b) => (b.amount === undefined ? {} : { amountMinor: b.amount })),
)

const MAX_REASON = 200

/** `POST /v1/payments/{paymentId}/refunds`: the amount (default what remains) and a reason with no card data. */
export const refundBody = v.pipe(
  v.strictObject({
    amount: optionalAmount('Default: what remains refundable'),
    reason: v.optional(
      described(
        v.pipe(
          v.string('format'),
          v.maxLength(MAX_REASON, 'length'),
          v.check((r) => !containsCardNumber(r), 'not_allowed'),
        ),
        `text of at most ${MAX_REASON} characters, no card number`,
        { maxLength: MAX_REASON },
      ),
    ),
  }),
  v.metadata({ ref: 'RefundRequest' }),
  v.transform((b) => ({
    ...(b.amount === undefined ? {} : { amountMinor: b.amount }),
    ...(b.reason === undefined ? {} : { reason: b.reason }),
  })),
)

/** `POST /v1/payments/{paymentId}/void`: no fields. */
export const voidBody = v.pipe(v.strictObject({}), v.metadata({ ref: 'VoidRequest' }))

/** `POST /v1/invoices/{invoiceId}/regenerate`. */
export const regenerateBody = v.pipe(
  v.strictObject({
    merchantInvoiceId: field('merchantInvoiceId', { description: 'The reference of the regenerated invoice' }),
    invoiceExpirationPeriod: invoicePeriod('Hours'),
    merchantRedirectUrl: v.optional(
      field('merchantRedirectUrl', { description: "Where the shopper returns; default: this operation's status page" }),
    ),
    metadata: v.optional(metadataSchema),
  }),
  v.metadata({ ref: 'InvoiceRegenerateRequest' }),
)
