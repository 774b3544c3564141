/**
 * @module
 * Request schemas of the browser routes (`/v1/checkout/{id}/...`): what a shopper's page may send
 * to pay by card or saved card and to start a QR payment. Bodies use the gateway's wire names
 * (`card.number`, dotted; nested objects are accepted too and flattened first). Formats, and
 * which fields are required, come from the field table; amount, currency and order never do:
 * the session fixed them (a body that names them is `param_mismatch`, worker/schemas/parse.ts).
 */
import { resolver, type DescribeRouteOptions } from 'hono-openapi'
import * as v from 'valibot'
import { cvvLength, type CardBrand } from '../../shared/card.ts'
import { REQUEST_FIELDS, type RequestFieldName } from '../../shared/fields.ts'
import { FORMAT_EXPECTED } from '../../shared/formats.ts'
import { crossFieldErrors, fieldsOf } from '../../shared/validate.ts'
import { SESSION_ID } from '../ids.ts'
import { described, failed, field, report } from './build.ts'
import { browser, errors, idempotencyKey, json, pathParams, ref } from './doc.ts'

const turnstileToken = v.optional(
  described(v.string('format'), 'the Turnstile widget token', {
    description: 'Turnstile token, when the deployment asks for one',
  }),
)

/** Where the shopper started: the link back on the result page after 3-D Secure when there is no `returnUrl`. */
export const RETURN_PAGE_EXPECTED =
  'the http(s) URL of the page that started the payment, on one of the checkout’s allowed origins'
const returnPage = v.optional(
  described(
    v.pipe(v.string('format'), v.maxLength(2048, 'length'), v.regex(/^https?:\/\/[^\s]+$/, 'format')),
    RETURN_PAGE_EXPECTED,
    {
      description:
        'The page that started the payment (the widget sends it): the result page after 3-D Secure links back to it when the session has no returnUrl',
    },
  ),
)

/** Cross-field rules of the table (CVV length by brand, expiry date, phone with its code), on the fields that passed. */
const crossField = v.rawCheck<Record<string, string | undefined>>(({ dataset, addIssue }) => {
  const body = dataset.value as Record<string, unknown>
  const values: Record<string, string> = {}
  for (const [k, val] of Object.entries(body))
    if (typeof val === 'string' && !failed(dataset.issues, k)) values[k] = val
  for (const e of crossFieldErrors(values, new Date()))
    report(
      addIssue,
      body,
      e.field,
      e.code,
      e.code === 'required'
        ? FORMAT_EXPECTED.telnocc
        : e.code === 'length'
          ? FORMAT_EXPECTED.cvv
          : FORMAT_EXPECTED.expiryYear,
    )
})

/** The shopper fields of a card payment, by the table: required where `payment` requires them. */
const CARD_FIELDS = fieldsOf('payment').filter((f) => f.field.source === 'shopper')

export const cardPayBody = v.pipe(
  v.strictObject({
    ...Object.fromEntries(
      CARD_FIELDS.map((f) => [f.field.wire, f.use === 'R' ? field(f.name) : v.optional(field(f.name))]),
    ),
    turnstileToken,
    returnPage,
  } as Record<string, v.GenericSchema<unknown, string | undefined>>),
  crossField,
  v.metadata({
    ref: 'CardPayRequest',
    description:
      "A new card: card fields, the customer (the session's customer fills what is left out) and optional shipping",
  }),
)

/** Saved card: the CVV only, its length by the saved card's brand. */
export const savedCardPayBody = (brand?: CardBrand) =>
  v.pipe(
    v.strictObject({ 'card.cvv': field('cvv'), turnstileToken, returnPage }),
    v.rawCheck<{ 'card.cvv': string; turnstileToken?: string; returnPage?: string }>(({ dataset, addIssue }) => {
      const body = dataset.value as Record<string, unknown>
      const cvv = body['card.cvv']
      if (brand && typeof cvv === 'string' && !failed(dataset.issues, 'card.cvv') && cvv.length !== cvvLength(brand))
        report(addIssue, body, 'card.cvv', 'length', `${cvvLength(brand)} digits for this card`)
    }),
    v.metadata({ ref: 'SavedCardPayRequest', description: 'The saved card of the session: its CVV' }),
  )

/** What the document shows for `POST /v1/checkout/{id}/pay`: either body, by the session's methods. */
export const payBody = v.union([cardPayBody, savedCardPayBody()])

/** QR step 1: the wallet id, and the name and email unless the session has them. The gateway gets the QR names. */
export const qrVerifyBody = v.pipe(
  v.strictObject({
    walletId: field('walletId'),
    'customer.givenName': field('qrGivenName'),
    'customer.surname': field('surname'),
    'customer.email': field('email'),
  }),
  v.metadata({ ref: 'QrVerifyRequest' }),
)

/** Steps that take no fields (QR completion). */
export const noFields = v.pipe(v.strictObject({}), v.metadata({ ref: 'NoFields' }))

/** The shopper's invoice: only the page that asked for it (the result page after the invoice's page links back there). */
export const invoiceRegenerateBody = v.pipe(
  v.strictObject({ returnPage }),
  v.metadata({ ref: 'SessionInvoiceRequest' }),
)

/** The wire name of each logical shopper field: what the session's pay() takes. */
export const wireOf = (name: RequestFieldName): string => REQUEST_FIELDS[name].wire

const SESSION = { id: { pattern: SESSION_ID.source } }

/** The browser routes' entries in the document (their bodies are the schemas above). */
export const CHECKOUT_DOCS = {
  view: {
    summary:
      'What the widget renders. A saved card deleted since the session was made is not offered while the shopper may pay; 409 registration_deleted when it was the only method.',
    operationId: 'getCheckout',
    security: browser,
    parameters: pathParams(SESSION),
    responses: { '200': { description: 'Checkout view' }, ...errors(403, 404, 409, 429) },
  },
  pay: {
    summary:
      'Pay by card (card fields, customer, optional shipping) or saved card (card.cvv). Amount, currency and order come from the session: naming them is 400 param_mismatch.',
    operationId: 'pay',
    security: browser,
    parameters: [...pathParams(SESSION), idempotencyKey()],
    requestBody: { required: true, content: { 'application/json': { schema: resolver(payBody) } } },
    responses: {
      '200': { description: 'Outcome', ...json(ref('PayResult')) },
      ...errors(400, 403, 404, 409, 410, 413, 422, 429, 502, 503),
    },
  },
  qrVerify: {
    summary: 'QR step 1: walletId (and name, email unless the session has them)',
    operationId: 'qrVerify',
    security: browser,
    parameters: pathParams(SESSION),
    requestBody: { required: true, content: { 'application/json': { schema: resolver(qrVerifyBody) } } },
    responses: {
      '200': { description: 'merchantWalletId and expiry' },
      ...errors(400, 403, 404, 409, 410, 413, 429, 502, 503),
    },
  },
  qrComplete: {
    summary: 'QR step 2',
    operationId: 'qrComplete',
    security: browser,
    parameters: [...pathParams(SESSION), idempotencyKey()],
    responses: {
      '200': { description: 'Outcome', ...json(ref('PayResult')) },
      ...errors(400, 403, 404, 409, 410, 413, 429, 502, 503),
    },
  },
  invoiceRegenerate: {
    summary: 'Regenerate the session invoice',
    operationId: 'regenerateSessionInvoice',
    security: browser,
    parameters: pathParams(SESSION),
    responses: { '200': { description: 'Invoice' }, ...errors(400, 403, 404, 409, 410, 413, 429, 502, 503) },
  },
} satisfies Record<string, DescribeRouteOptions>
