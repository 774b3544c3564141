/**
 * @module
 * THE field table: every gateway field we send or read, once. The fields a shopper types are
 * `shared/shopper-fields.ts` (all a browser bundle needs), spread in here.
 *
 * Types (`shared/types.ts`), validation (`shared/validate.ts`), the upstream form body
 * (`worker/gateway/`), the sandbox's own checks and the widget's inputs are all derived from
 * these entries, so a field's name, format and per-operation rule is never written twice.
 *
 * Sources: the gateway's API description as given to us, and the platform's public documentation
 * (real field names, AuthToken, 3-D Secure, inquiry, notification). Where the spec says
 * "not shown", the rule picked is the one a careful integrator would pick; the comment says why.
 */
import type { Format } from './formats.ts'
import { SHOPPER_FIELDS } from './shopper-fields.ts'

/**
 * The gateway operations. Paths are relative to the configured base URL.
 * - `payment`: initial card payment, customer present (`payments`).
 * - `tokenInitial` / `tokenRepeat`: pay with a registration (`paywithtoken/{registrationId}`),
 *   `recurringType` INITIAL or REPEATED.
 * - `repeat`: repeat by an earlier payment's id (`payments/{paymentId}`), customer absent.
 * - `qrVerify` / `qrComplete`: the two QR wallet steps (`QRPayments`).
 * - `invoiceRegenerate`: copy an invoice (`invoiceServices/.../regenerate`).
 * - `invoiceGenerate`: create an invoice. Not in the spec: the sandbox offers it so tests and the
 *   demo have invoices to regenerate (the real gateway creates them in its dashboard).
 * - `authToken`: generate the AuthToken (facts sheet).
 * - `inquiry`: status inquiry, `payments/{id}` with `paymentType=IN` (facts sheet).
 * - `capture` / `refund`: capture an authorisation (`paymentType=CP`) or refund a captured
 *   payment (`RF`), in full or in part, on `payments/{paymentId}` (facts sheet).
 * - `reversal`: void an authorisation not captured (`RV`) on `payments/{paymentId}`.
 * - `deleteRegistration`: delete a stored card (`DL`) on `paywithtoken/{registrationId}`.
 */
export const OPERATIONS = [
  'payment',
  'tokenInitial',
  'tokenRepeat',
  'repeat',
  'qrVerify',
  'qrComplete',
  'invoiceRegenerate',
  'invoiceGenerate',
  'authToken',
  'inquiry',
  'capture',
  'refund',
  'reversal',
  'deleteRegistration',
] as const
export type Operation = (typeof OPERATIONS)[number]

/** Upstream path of each operation; `{id}` is the registration, payment or lookup id. */
export const OPERATION_PATHS = {
  payment: '/transactionServices/REST/v1/payments',
  tokenInitial: '/transactionServices/REST/v1/paywithtoken/{id}',
  tokenRepeat: '/transactionServices/REST/v1/paywithtoken/{id}',
  repeat: '/transactionServices/REST/v1/payments/{id}',
  qrVerify: '/transactionServices/REST/v1/QRPayments',
  qrComplete: '/transactionServices/REST/v1/QRPayments',
  invoiceRegenerate: '/invoiceServices/REST/v1/regenerate',
  invoiceGenerate: '/invoiceServices/REST/v1/generate',
  authToken: '/transactionServices/REST/v1/authToken',
  inquiry: '/transactionServices/REST/v1/payments/{id}',
  capture: '/transactionServices/REST/v1/payments/{id}',
  refund: '/transactionServices/REST/v1/payments/{id}',
  reversal: '/transactionServices/REST/v1/payments/{id}',
  deleteRegistration: '/transactionServices/REST/v1/paywithtoken/{id}',
} as const satisfies Record<Operation, string>

/** Invoice calls get their token from the invoice service's own authToken endpoint (facts sheet). */
export const INVOICE_AUTH_TOKEN_PATH = '/invoiceServices/REST/v1/authToken'

/** R = required, O = optional. An operation not listed does not send the field. */
export type Use = 'R' | 'O'

/**
 * Who supplies a value. The Worker takes only `shopper` fields from a browser body; everything
 * else comes from configuration, the merchant-created session, or the Worker itself. This is what
 * keeps the browser from choosing what gets signed.
 */
export type Source = 'config' | 'session' | 'shopper' | 'worker'

/** How a field must be treated in logs and storage. */
export type Sensitivity = 'pan' | 'cvv' | 'secret'

export interface RequestField {
  /** The name on the wire, exactly as the gateway spells it (dotted names are literal). */
  readonly wire: string
  readonly format: Format
  /** Allowed values for `enum` fields. */
  readonly values?: readonly string[]
  /** Per operation: required or optional; absent means "not sent". */
  readonly use: Partial<Record<Operation, Use>>
  /** The value an operation always sends (the client fills it; the sandbox insists on it). */
  readonly fixed?: Partial<Record<Operation, string>>
  readonly source: Source
  /** Part of a checksum input: must never contain `|` (which would shift checksum boundaries). */
  readonly checksum?: true
  readonly sensitive?: Sensitivity
  /** For shopper fields the widget renders: the autofill token and the virtual keyboard. */
  readonly input?: { readonly autocomplete: string; readonly inputmode?: 'numeric' | 'email' | 'tel' | 'text' }
}

const PAYMENT_OPS = {
  payment: 'R',
  tokenInitial: 'R',
  tokenRepeat: 'R',
  repeat: 'R',
  inquiry: 'R',
  capture: 'R',
  refund: 'R',
  reversal: 'R',
  deleteRegistration: 'R',
} as const

/** Request fields, keyed by a logical name. Two keys may share a wire name in different operations. */
export const REQUEST_FIELDS = {
  memberId: {
    wire: 'authentication.memberId',
    format: 'gatewayId',
    // The spec shows memberId only in the QR verify sample; we send it on completion too, since it
    // names the merchant and costs nothing (the sandbox accepts it there as optional).
    use: { ...PAYMENT_OPS, qrVerify: 'R', qrComplete: 'O', invoiceRegenerate: 'R', invoiceGenerate: 'R' },
    source: 'config',
    checksum: true,
  },
  terminalId: {
    wire: 'authentication.terminalId',
    format: 'gatewayId',
    use: PAYMENT_OPS,
    source: 'config',
  },
  checksum: {
    wire: 'authentication.checksum',
    format: 'checksum',
    // The QR samples carry no checksum (spec: "not shown"), so QR requests send none.
    use: { ...PAYMENT_OPS, invoiceRegenerate: 'R', invoiceGenerate: 'R' },
    source: 'worker',
  },
  partnerId: {
    wire: 'authentication.partnerId',
    format: 'gatewayId',
    use: { authToken: 'R' },
    source: 'config',
  },
  merchantUsername: {
    wire: 'merchant.username',
    format: 'text',
    use: { authToken: 'R' },
    source: 'config',
  },
  secureKey: {
    wire: 'authentication.sKey',
    format: 'secret',
    use: { authToken: 'R' },
    source: 'config',
    sensitive: 'secret',
  },
  merchantTransactionId: {
    wire: 'merchantTransactionId',
    format: 'merchantTransactionId',
    // Required where it is a checksum input (initial payment) and for QR. Optional on token and
    // repeat payments, where the samples omit it; we send it anyway so that a charge whose answer
    // never came can be found by an inquiry by merchantTransactionId (idType=MID). Captures,
    // refunds and reversals carry one derived from the merchant's operation for the same reason.
    use: {
      payment: 'R',
      tokenInitial: 'O',
      tokenRepeat: 'O',
      repeat: 'O',
      qrVerify: 'R',
      qrComplete: 'O',
      capture: 'O',
      refund: 'O',
      reversal: 'O',
    },
    source: 'session',
    checksum: true,
  },
  amount: {
    wire: 'amount',
    format: 'amount',
    // QR verify carries the order in wallet currency (walletAmount) instead. Capture and refund
    // name the part of the payment they move (a checksum input); a reversal releases all of it.
    use: {
      payment: 'R',
      tokenInitial: 'R',
      tokenRepeat: 'R',
      repeat: 'R',
      qrComplete: 'R',
      invoiceGenerate: 'R',
      capture: 'R',
      refund: 'R',
    },
    source: 'session',
    checksum: true,
  },
  currency: {
    wire: 'currency',
    format: 'currency',
    // On capture and refund it must be the payment's own (the checksum does not cover it, so the
    // sandbox compares it); sent so a currency mix-up is refused rather than converted.
    use: {
      payment: 'R',
      tokenInitial: 'R',
      tokenRepeat: 'R',
      repeat: 'R',
      qrComplete: 'R',
      invoiceGenerate: 'R',
      capture: 'R',
      refund: 'R',
    },
    source: 'session',
  },
  paymentBrand: {
    wire: 'paymentBrand',
    format: 'enum',
    values: ['VISA', 'MC', 'AMEX', 'DISC', 'JCB', 'DINER', 'UNIONPAY', 'MAESTRO', 'QR'],
    // Token and repeat payments omit it in the samples: the registration or payment knows its brand.
    use: { payment: 'R', qrVerify: 'R', qrComplete: 'R' },
    fixed: { qrVerify: 'QR', qrComplete: 'QR' },
    source: 'worker',
  },
  paymentMode: {
    wire: 'paymentMode',
    format: 'enum',
    values: ['CC', 'EW'],
    use: { payment: 'R', qrVerify: 'R', qrComplete: 'R' },
    fixed: { payment: 'CC', qrVerify: 'EW', qrComplete: 'EW' },
    source: 'worker',
  },
  paymentType: {
    wire: 'paymentType',
    format: 'enum',
    values: ['DB', 'PA'],
    use: { payment: 'R', tokenInitial: 'R', tokenRepeat: 'R', repeat: 'R', qrVerify: 'R', qrComplete: 'R' },
    source: 'session',
  },
  inquiryType: {
    wire: 'paymentType',
    format: 'enum',
    values: ['IN'],
    use: { inquiry: 'R' },
    fixed: { inquiry: 'IN' },
    source: 'worker',
  },
  /** The back-office operations share `paymentType` with payments and inquiries, each its own value. */
  operationType: {
    wire: 'paymentType',
    format: 'enum',
    values: ['CP', 'RF', 'RV', 'DL'],
    use: { capture: 'R', refund: 'R', reversal: 'R', deleteRegistration: 'R' },
    fixed: { capture: 'CP', refund: 'RF', reversal: 'RV', deleteRegistration: 'DL' },
    source: 'worker',
  },
  idType: {
    wire: 'idType',
    format: 'enum',
    values: ['PID', 'MID'],
    use: { inquiry: 'R' },
    source: 'worker',
  },
  recurringType: {
    wire: 'recurringType',
    format: 'enum',
    values: ['INITIAL', 'REPEATED'],
    // Optional on a one-off card payment (only INITIAL makes sense there); the token and repeat
    // endpoints need it (recurring rule 1).
    use: { payment: 'O', tokenInitial: 'R', tokenRepeat: 'R', repeat: 'R' },
    fixed: { payment: 'INITIAL', tokenInitial: 'INITIAL', tokenRepeat: 'REPEATED', repeat: 'REPEATED' },
    source: 'session',
  },
  createRegistration: {
    wire: 'createRegistration',
    format: 'enum',
    values: ['true'],
    use: { payment: 'O' },
    source: 'session',
  },
  cardNumber: { ...SHOPPER_FIELDS.cardNumber, source: 'shopper', sensitive: 'pan' },
  expiryMonth: { ...SHOPPER_FIELDS.expiryMonth, source: 'shopper' },
  expiryYear: { ...SHOPPER_FIELDS.expiryYear, source: 'shopper' },
  cvv: { ...SHOPPER_FIELDS.cvv, source: 'shopper', sensitive: 'cvv' },
  givenName: { ...SHOPPER_FIELDS.givenName, source: 'shopper' },
  // The QR completion sends the verify step's name and email again (spec, DYNAMIC request: "and the
  // other fields"): a use of the Worker's only, so it is added here, not in the browser's table.
  surname: { ...SHOPPER_FIELDS.surname, use: { ...SHOPPER_FIELDS.surname.use, qrComplete: 'O' }, source: 'shopper' },
  email: { ...SHOPPER_FIELDS.email, use: { ...SHOPPER_FIELDS.email.use, qrComplete: 'O' }, source: 'shopper' },
  phone: { ...SHOPPER_FIELDS.phone, source: 'shopper' },
  telnocc: { ...SHOPPER_FIELDS.telnocc, source: 'shopper' },
  ip: {
    wire: 'customer.ip',
    format: 'ip',
    // Taken from the connecting address by the Worker, never from a body. Required for a card
    // payment (fraud screening); the paywithtoken INITIAL sample carries it too.
    use: { payment: 'R', tokenInitial: 'O', tokenRepeat: 'O' },
    source: 'worker',
  },
  shippingCountry: { ...SHOPPER_FIELDS.shippingCountry, source: 'shopper' },
  shippingCity: { ...SHOPPER_FIELDS.shippingCity, source: 'shopper' },
  shippingState: { ...SHOPPER_FIELDS.shippingState, source: 'shopper' },
  shippingPostcode: { ...SHOPPER_FIELDS.shippingPostcode, source: 'shopper' },
  shippingStreet1: { ...SHOPPER_FIELDS.shippingStreet1, source: 'shopper' },
  notificationUrl: {
    wire: 'notificationUrl',
    format: 'url',
    // The spec's "the service" URL, first half: always the Worker's own notification route.
    use: {
      payment: 'O',
      tokenInitial: 'O',
      tokenRepeat: 'O',
      repeat: 'O',
      qrVerify: 'O',
      qrComplete: 'O',
      invoiceRegenerate: 'O',
      invoiceGenerate: 'O',
    },
    source: 'worker',
  },
  merchantRedirectUrl: {
    wire: 'merchantRedirectUrl',
    format: 'url',
    // The spec's "the service" URL, second half. Required for regeneration, where it is a checksum
    // input; optional elsewhere, but the Worker always sends it so 3-D Secure can return.
    use: { payment: 'O', tokenInitial: 'O', tokenRepeat: 'O', invoiceRegenerate: 'R', invoiceGenerate: 'O' },
    source: 'worker',
    checksum: true,
  },
  redirectMethod: {
    wire: 'redirectMethod',
    format: 'enum',
    values: ['GET', 'POST'],
    use: { payment: 'O', tokenInitial: 'O', tokenRepeat: 'O', invoiceRegenerate: 'O' },
    source: 'worker',
  },
  qrPaymentId: {
    wire: 'paymentId',
    format: 'gatewayId',
    use: { qrComplete: 'R' },
    source: 'session',
  },
  qrGivenName: {
    // Lower-case n in the QR request only (spec, QR payment request).
    wire: 'customer.givenname',
    format: 'name',
    // The completion carries "the other fields" too (spec, DYNAMIC request): the verify step's.
    use: { qrVerify: 'R', qrComplete: 'O' },
    source: 'shopper',
    input: { autocomplete: 'given-name', inputmode: 'text' },
  },
  walletId: { ...SHOPPER_FIELDS.walletId, source: 'shopper' },
  walletAmount: {
    wire: 'customer.walletAmount',
    format: 'amount',
    // The verify step carries the order only as wallet amount and currency, so both are required.
    use: { qrVerify: 'R' },
    source: 'session',
  },
  walletCurrency: {
    wire: 'customer.walletCurrency',
    format: 'currency',
    use: { qrVerify: 'R' },
    source: 'session',
  },
  invoiceId: {
    wire: 'invoiceId',
    format: 'gatewayId',
    use: { invoiceRegenerate: 'R' },
    source: 'session',
    checksum: true,
  },
  merchantInvoiceId: {
    wire: 'merchantInvoiceId',
    format: 'merchantTransactionId',
    use: { invoiceRegenerate: 'R', invoiceGenerate: 'R' },
    source: 'session',
    checksum: true,
  },
  invoiceExpirationPeriod: {
    wire: 'invoiceExpirationPeriod',
    format: 'expirationPeriod',
    // "Unit: not shown". We treat it as hours (the sandbox does too) and pass the number through;
    // 0 makes an invoice that is already expired, which the sandbox uses for the regenerate demo.
    use: { invoiceRegenerate: 'R', invoiceGenerate: 'R' },
    source: 'session',
  },
  customerEmail: {
    wire: 'customerEmail',
    format: 'email',
    use: { invoiceGenerate: 'O' },
    source: 'session',
  },
  merchantOrderDescription: {
    wire: 'merchantOrderDescription',
    format: 'text',
    use: { invoiceGenerate: 'O' },
    source: 'session',
  },
} as const satisfies Record<string, RequestField>

export type RequestFieldName = keyof typeof REQUEST_FIELDS

/** A field of a gateway response. `path` is the dotted path into the JSON body. */
export interface ResponseField {
  readonly path: string
  readonly required?: true
}

/**
 * Payment response (`payments`, `paywithtoken/{id}`, `payments/{id}`, and the inquiry, which
 * answers in the same shape). Only `result` is always present: the token and repeat responses
 * carry paymentId, paymentType, result and timestamp, and a refused request may carry only result.
 */
export const PAYMENT_RESPONSE = {
  paymentId: { path: 'paymentId' },
  registrationId: { path: 'registrationId' },
  paymentType: { path: 'paymentType' },
  paymentBrand: { path: 'paymentBrand' },
  paymentMode: { path: 'paymentMode' },
  amount: { path: 'amount' },
  currency: { path: 'currency' },
  descriptor: { path: 'descriptor' },
  resultCode: { path: 'result.code', required: true },
  resultDescription: { path: 'result.description' },
  cardBin: { path: 'card.bin' },
  cardLast4: { path: 'card.last4Digits' },
  cardHolder: { path: 'card.holder' },
  cardExpiryMonth: { path: 'card.expiryMonth' },
  cardExpiryYear: { path: 'card.expiryYear' },
  timestamp: { path: 'timestamp' },
  merchantTransactionId: { path: 'merchantTransactionId' },
  remark: { path: 'remark' },
  transactionStatus: { path: 'transactionStatus' },
  tmplAmount: { path: 'tmpl_amount' },
  tmplCurrency: { path: 'tmpl_currency' },
} as const satisfies Record<string, ResponseField>

/** The 3-D Secure step of a payment response (facts sheet): `redirect: { url, method?, target?, parameters }`. */
export const REDIRECT_FIELDS = {
  url: { path: 'redirect.url', required: true },
  method: { path: 'redirect.method' },
  target: { path: 'redirect.target' },
} as const satisfies Record<string, ResponseField>

/** QR payment response, both steps. */
export const QR_RESPONSE = {
  resultCode: { path: 'result.code', required: true },
  resultDescription: { path: 'result.description' },
  paymentId: { path: 'paymentId' },
  merchantWalletId: { path: 'merchantWalletId' },
  transactionStatus: { path: 'transactionStatus' },
} as const satisfies Record<string, ResponseField>

/** Invoice regeneration (and sandbox generation) response. */
export const INVOICE_RESPONSE = {
  memberId: { path: 'memberId' },
  resultCode: { path: 'statusInvoiceResult.code', required: true },
  resultDescription: { path: 'statusInvoiceResult.description' },
  amount: { path: 'invoiceDetails.amount' },
  currency: { path: 'invoiceDetails.currency' },
  invoiceExpirationPeriod: { path: 'invoiceDetails.invoiceExpirationPeriod' },
  createdDate: { path: 'invoiceDetails.createdDate' },
  // The sample has a leading space and a trailing dot (" 10:11:12."): read it with that in mind.
  createdTime: { path: 'invoiceDetails.createdTime' },
  merchantInvoiceId: { path: 'invoiceDetails.merchantInvoiceId' },
  customerEmail: { path: 'invoiceDetails.customerEmail' },
  merchantOrderDescription: { path: 'invoiceDetails.merchantOrderDescription' },
  systemInvoiceId: { path: 'invoiceDetails.systemInvoiceId' },
  transactionUrl: { path: 'invoiceDetails.transactionUrl' },
} as const satisfies Record<string, ResponseField>

/** AuthToken response (facts sheet). The token itself is never logged or sent to a browser. */
export const AUTH_TOKEN_RESPONSE = {
  partnerId: { path: 'partnerId' },
  memberId: { path: 'memberId' },
  resultCode: { path: 'result.code', required: true },
  resultDescription: { path: 'result.description' },
  timestamp: { path: 'timestamp' },
  loginName: { path: 'LoginName' },
  authToken: { path: 'AuthToken' },
} as const satisfies Record<string, ResponseField>

/**
 * The asynchronous notification POSTed (JSON) to `notificationUrl` (facts sheet). Fields the
 * checksum covers are required; the rest may be missing and are read only when present.
 */
export const NOTIFICATION_FIELDS = {
  paymentId: { path: 'paymentId', required: true },
  status: { path: 'status' },
  transactionStatus: { path: 'transactionStatus', required: true },
  paymentBrand: { path: 'paymentBrand' },
  paymentMode: { path: 'paymentMode' },
  firstName: { path: 'firstName' },
  lastName: { path: 'lastName' },
  amount: { path: 'amount', required: true },
  currency: { path: 'currency' },
  descriptor: { path: 'descriptor' },
  merchantTransactionId: { path: 'merchantTransactionId', required: true },
  remark: { path: 'remark' },
  tmplAmount: { path: 'tmpl_amount' },
  tmplCurrency: { path: 'tmpl_currency' },
  eci: { path: 'eci' },
  checksum: { path: 'checksum', required: true },
  resultCode: { path: 'result.code' },
  resultDescription: { path: 'result.description' },
  customerEmail: { path: 'customer.email' },
  customerId: { path: 'customer.id' },
  cardBin: { path: 'card.bin' },
  cardLastFourDigits: { path: 'card.lastFourDigits' },
  cardLast4: { path: 'card.last4Digits' },
  cardExpiryMonth: { path: 'card.expiryMonth' },
  cardExpiryYear: { path: 'card.expiryYear' },
  timestamp: { path: 'timestamp' },
  bankReferenceId: { path: 'bankReferenceId' },
  terminalId: { path: 'terminalId' },
} as const satisfies Record<string, ResponseField>

/** The browser return to `merchantRedirectUrl` (facts sheet). Never proof of payment on its own. */
export const RETURN_FIELDS = {
  paymentId: { path: 'paymentId' },
  merchantTransactionId: { path: 'merchantTransactionId' },
  status: { path: 'status' },
  amount: { path: 'amount' },
  currency: { path: 'currency' },
  resultCode: { path: 'resultCode' },
  resultDescription: { path: 'resultDescription' },
  checksum: { path: 'checksum' },
} as const satisfies Record<string, ResponseField>

/** transactionStatus values (facts sheet). */
export const TRANSACTION_STATUSES = ['Y', 'P', 'N', 'C', 'E', '3D'] as const
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]
