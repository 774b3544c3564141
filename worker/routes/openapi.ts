/**
 * @module
 * The OpenAPI document of the Worker's HTTP API, served at `GET /openapi.json`.
 */
import { ERROR_CODES, FIELD_ERROR_CODES } from '../../shared/errors.ts'
import { CARD_BRANDS } from '../../shared/card.ts'
import { FLOWS, STATUSES } from '../sessions/types.ts'
import { EVENT_TYPES } from '../webhooks/events.ts'
import { PAYMENT_STATUSES } from '../payments/status.ts'
import { METADATA_LIMITS } from '../sessions/metadata.ts'

const json = (schema: object) => ({ content: { 'application/json': { schema } } })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), { description: 'Error', ...json(ref('Error')) }]))
const amount = { type: 'string', pattern: '^(0|[1-9][0-9]{0,11})\\.[0-9]{2}$', description: 'Decimal text with exactly two decimals, every currency (JPY too).' }
const idemKey = { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }
const optionalIdemKey = { ...idemKey, required: false, description: 'Makes creation safe to retry: the same request with the same key answers the same session.' }
const merchant = [{ merchantKey: [] }]
const browser = [{ clientSecret: [] }]

/** What `data` holds, by what the event is about. */
const EVENT_DATA: Readonly<Record<(typeof EVENT_TYPES)[keyof typeof EVENT_TYPES]['about'], string>> = {
  session: 'The session as GET /v1/sessions/{id} shows it (metadata included), with previousStatus and sequence.',
  operation: 'The operation: status, result, previousStatus, sequence.',
  deployment: 'The deployment-wide state that changed.',
  payment: 'The payment as GET /v1/payments/{id} shows it (metadata included), with operation (the capture, void or refund that changed), previousStatus (of the operation) and sequence.',
  registration: 'The registration: id, status, resultCode, deletedAt, sequence.',
}

const listParams = (statuses: readonly string[]) => [
  { name: 'status', in: 'query', required: false, schema: { enum: [...statuses] } },
  { name: 'created_gte', in: 'query', required: false, schema: { type: 'string' }, description: 'Unix seconds or ISO 8601' },
  { name: 'created_lt', in: 'query', required: false, schema: { type: 'string' }, description: 'Unix seconds or ISO 8601' },
  { name: 'order', in: 'query', required: false, schema: { type: 'string' }, description: 'The merchantTransactionId' },
  { name: 'email', in: 'query', required: false, schema: { type: 'string' }, description: "The session's customer.email" },
  { name: 'metadata[key]', in: 'query', required: false, schema: { type: 'string' }, description: 'One metadata pair: metadata[orderId]=A-1001' },
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
  { name: 'starting_after', in: 'query', required: false, schema: { type: 'string' }, description: 'The last id of the previous page' },
]
const list = (item: object) => json({ type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: item }, has_more: { type: 'boolean' } } })
const operationResponses = {
  '200': { description: 'Succeeded (or replayed, with Idempotent-Replayed: true)', ...json(ref('OperationResult')) },
  '202': { description: 'The gateway has not answered: the operation is unknown, settled by status inquiry (never sent twice) and told by webhook', ...json(ref('OperationResult')) },
  ...errors(400, 401, 404, 409, 413, 422, 429, 502, 503),
}

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'pay-checkout Worker API',
    version: '1.0.0',
    description: 'Merchant server routes (Bearer MERCHANT_API_KEY, no CORS), browser routes (Bearer client secret, CORS for the session origins) and gateway routes.',
  },
  components: {
    securitySchemes: {
      merchantKey: { type: 'http', scheme: 'bearer', description: 'MERCHANT_API_KEY; server to server only.' },
      clientSecret: { type: 'http', scheme: 'bearer', description: 'The clientSecret returned when the session was created.' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: {
              code: { enum: [...ERROR_CODES] },
              message: { type: 'string' },
              fields: { type: 'array', items: { type: 'object', required: ['field', 'code'], properties: { field: { type: 'string' }, code: { enum: [...FIELD_ERROR_CODES] } } } },
            },
          },
        },
      },
      SessionCreate: {
        type: 'object',
        required: ['flow', 'amount', 'currency', 'merchantTransactionId'],
        additionalProperties: false,
        properties: {
          flow: { enum: [...FLOWS] },
          amount: { ...amount, description: 'Decimal text with two decimals, not finer than the currency minor unit (JPY: "1000.00"; "1000.50" is refused as minor_units).' },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          merchantTransactionId: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Unique per deployment: a second session with it is 409 duplicate_order.' },
          paymentType: { enum: ['DB', 'PA'], default: 'DB' },
          recurring: { const: 'INITIAL', description: 'card: first payment of a series' },
          createRegistration: { type: 'boolean', description: 'card: store the card; the registrationId comes back on the session' },
          registrationId: { type: 'string', description: 'saved-card: pays with paywithtoken/{registrationId}' },
          recurringType: { enum: ['INITIAL', 'REPEATED'], default: 'REPEATED', description: 'saved-card' },
          savedCard: { type: 'object', properties: { brand: { enum: [...CARD_BRANDS] }, last4: { type: 'string', pattern: '^[0-9]{4}$' } } },
          invoiceId: { type: 'string', description: 'invoice: the system id of the invoice to regenerate' },
          merchantInvoiceId: { type: 'string', description: 'invoice: the reference of the regenerated invoice' },
          invoiceExpirationPeriod: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'invoice: hours' },
          customer: { type: 'object', properties: { givenName: { type: 'string' }, surname: { type: 'string' }, email: { type: 'string' }, phone: { type: 'string' }, telnocc: { type: 'string' } } },
          returnUrl: { type: 'string', format: 'uri' },
          allowedOrigins: { type: 'array', items: { type: 'string' }, maxItems: 10 },
          expiresIn: { type: 'integer', minimum: 60, maximum: 86400, default: 1800 },
          metadata: ref('Metadata'),
          maxAttempts: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
        },
      },
      Metadata: {
        type: 'object',
        maxProperties: METADATA_LIMITS.keys,
        propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,40}$' },
        additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
        description: 'Your own pairs (no card data: a value that holds a card number is refused). Returned on the session, its payment, every event and the listings; one pair filters a listing (metadata[key]=value).',
      },
      Operation: {
        type: 'object',
        description: 'A capture, void or refund of a payment.',
        properties: {
          id: { type: 'string', description: 'cp_..., vd_..., re_...' },
          object: { enum: ['capture', 'void', 'refund'] },
          status: { enum: ['processing', 'unknown', 'succeeded', 'failed'], description: 'unknown: the answer never came; settled by status inquiry, never sent twice. failed: nothing moved.' },
          amount,
          reason: { type: ['string', 'null'] },
          gatewayId: { type: ['string', 'null'] },
          resultCode: { type: ['string', 'null'] },
          failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
      Payment: {
        type: 'object',
        description: 'A payment the gateway took (from a paid session or a repeat). It appears shortly after the session succeeds (it follows through the outbox).',
        properties: {
          id: { type: 'string', description: 'The gateway paymentId' },
          object: { const: 'payment' },
          status: { enum: [...PAYMENT_STATUSES], description: 'authorized (PA, not captured), captured (DB paid, or PA captured), partially_refunded, refunded, voided' },
          amount,
          currency: { type: 'string' },
          paymentType: { enum: ['DB', 'PA'] },
          amountCaptured: amount,
          amountRefunded: amount,
          amountRefundable: { ...amount, description: 'Captured less refunded less refunds in flight.' },
          sessionId: { type: ['string', 'null'] },
          merchantTransactionId: { type: 'string' },
          source: { type: 'string', description: 'The session flow, or repeat' },
          registrationId: { type: ['string', 'null'] },
          card: { type: ['object', 'null'], properties: { brand: { enum: [...CARD_BRANDS] }, last4: { type: 'string' } } },
          email: { type: ['string', 'null'] },
          metadata: ref('Metadata'),
          captures: { type: 'array', items: ref('Operation') },
          voids: { type: 'array', items: ref('Operation') },
          refunds: { type: 'array', items: ref('Operation') },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
      OperationResult: { type: 'object', properties: { operation: ref('Operation'), payment: ref('Payment') } },
      Registration: { type: 'object', properties: { id: { type: 'string' }, object: { const: 'registration' }, status: { enum: ['deleting', 'deleted'] }, resultCode: { type: ['string', 'null'] }, deletedAt: { type: ['string', 'null'] } } },
      SessionCreated: { type: 'object', properties: { id: { type: 'string' }, clientSecret: { type: 'string' }, status: { enum: [...STATUSES] }, expiresAt: { type: 'string', format: 'date-time' } } },
      PayResult: {
        type: 'object',
        properties: {
          status: { enum: ['succeeded', 'declined', 'pending', 'action_required', 'unknown'], description: 'The attempt; with attemptsRemaining 0 a decline has ended the session (failed).' },
          paymentId: { type: 'string' },
          card: { type: 'object', properties: { brand: { enum: [...CARD_BRANDS] }, last4: { type: 'string' } } },
          redirect: { type: 'object', properties: { url: { type: 'string' }, method: { type: 'string' }, parameters: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } } } } },
          attemptsRemaining: { type: 'integer' },
          message: { type: 'string' },
        },
      },
    },
  },
  /** Merchant events, POSTed to MERCHANT_WEBHOOK_URL and signed (Pay-Signature). */
  webhooks: Object.fromEntries(
    Object.entries(EVENT_TYPES).map(([type, e]) => [
      type,
      {
        post: {
          summary: `${e.when}${e.final ? ' Final.' : ''}`,
          'x-final': e.final,
          requestBody: json({
            type: 'object',
            required: ['id', 'type', 'created', 'data'],
            properties: {
              id: { type: 'string', description: 'Derives from the change: the same change always has the same id.' },
              type: { const: type },
              created: { type: 'integer' },
              data: { type: 'object', description: EVENT_DATA[e.about] },
            },
          }),
          responses: { '200': { description: 'Received; anything else is retried with backoff' } },
        },
      },
    ]),
  ),
  paths: {
    '/v1/sessions': {
      get: { summary: 'Find sessions, newest first (search index: may lag by a moment)', security: merchant, parameters: listParams(STATUSES), responses: { '200': { description: 'A page', ...list({ type: 'object' }) }, ...errors(400, 401, 429) } },
      post: { summary: 'Create a checkout session', security: merchant, parameters: [optionalIdemKey], requestBody: json(ref('SessionCreate')), responses: { '201': { description: 'Created (or replayed, with Idempotent-Replayed: true)', ...json(ref('SessionCreated')) }, ...errors(400, 401, 403, 409, 413, 422, 429) } },
    },
    '/v1/sessions/{id}': { get: { summary: 'The whole state of a session (never card data)', security: merchant, responses: { '200': { description: 'Session' }, ...errors(401, 404, 429) } } },
    '/v1/payments/{paymentId}/repeat': {
      post: {
        summary: 'A REPEATED payment by payment id (customer absent)',
        security: merchant,
        parameters: [idemKey],
        requestBody: json({ type: 'object', required: ['amount', 'currency'], properties: { amount, currency: { type: 'string' }, paymentType: { enum: ['DB', 'PA'] } } }),
        responses: { '200': { description: 'Outcome (status succeeded | declined | pending | unknown)' }, ...errors(400, 401, 404, 409, 413, 422, 429, 502) },
      },
    },
    '/v1/payments/{paymentId}/inquiry': { post: { summary: 'Gateway status inquiry (idType PID default, or MID)', security: merchant, responses: { '200': { description: 'Status' }, ...errors(400, 401, 404, 413, 429, 503) } } },
    '/v1/payments': {
      get: { summary: 'Find payments, newest first (search index: may lag the payments by a moment)', security: merchant, parameters: listParams(PAYMENT_STATUSES), responses: { '200': { description: 'A page', ...list(ref('Payment')) }, ...errors(400, 401, 429) } },
    },
    '/v1/payments/{paymentId}': { get: { summary: 'The payment: amounts captured and refunded, its captures, voids and refunds, session, order, metadata', security: merchant, responses: { '200': { description: 'Payment', ...json(ref('Payment')) }, ...errors(401, 404, 429) } } },
    '/v1/payments/{paymentId}/capture': {
      post: {
        summary: 'Capture an authorisation (PA), in full or in part, once. 409 payment_state: not an authorisation, captured or voided already; 409 amount_too_large: above the authorised amount.',
        security: merchant,
        parameters: [idemKey],
        requestBody: json({ type: 'object', additionalProperties: false, properties: { amount: { ...amount, description: 'Default: the whole authorisation' } } }),
        responses: operationResponses,
      },
    },
    '/v1/payments/{paymentId}/void': {
      post: { summary: 'Void an authorisation that is not captured. 409 payment_state after a capture (refund instead).', security: merchant, parameters: [idemKey], responses: operationResponses },
    },
    '/v1/payments/{paymentId}/refunds': {
      post: {
        summary: 'Refund in full or in part; several partial refunds up to what was captured (refunds in flight count). 409 amount_too_large above what remains, 409 payment_state before a capture.',
        security: merchant,
        parameters: [idemKey],
        requestBody: json({ type: 'object', additionalProperties: false, properties: { amount: { ...amount, description: 'Default: what remains refundable' }, reason: { type: 'string', maxLength: 200 } } }),
        responses: operationResponses,
      },
    },
    '/v1/registrations/{registrationId}': {
      delete: {
        summary: 'Delete a saved card at the gateway; from the request on, new saved-card sessions with it are 409 registration_deleted',
        security: merchant,
        parameters: [idemKey],
        responses: { '200': { description: 'Deleted', ...json(ref('Registration')) }, '202': { description: 'No answer yet: sent again until the gateway answers', ...json(ref('Registration')) }, ...errors(400, 401, 429, 502) },
      },
    },
    '/v1/invoices/{invoiceId}/regenerate': {
      post: {
        summary: 'Regenerate an invoice',
        security: merchant,
        parameters: [idemKey],
        requestBody: json({ type: 'object', required: ['merchantInvoiceId', 'invoiceExpirationPeriod'], properties: { merchantInvoiceId: { type: 'string' }, invoiceExpirationPeriod: { type: 'string' }, merchantRedirectUrl: { type: 'string' } } }),
        responses: { '200': { description: 'Invoice details' }, ...errors(400, 401, 404, 409, 413, 422, 429, 502) },
      },
    },
    '/v1/checkout/{id}': { get: { summary: 'What the widget renders', security: browser, responses: { '200': { description: 'Checkout view' }, ...errors(403, 404, 429) } } },
    '/v1/checkout/{id}/pay': {
      post: {
        summary: 'Pay by card (card fields, customer, optional shipping) or saved card (card.cvv). Amount, currency and order come from the session.',
        security: browser,
        parameters: [idemKey],
        responses: { '200': { description: 'Outcome', ...json(ref('PayResult')) }, ...errors(400, 403, 404, 409, 410, 413, 422, 429, 502) },
      },
    },
    '/v1/checkout/{id}/qr/verify': { post: { summary: 'QR step 1: walletId (and name, email unless prefilled)', security: browser, responses: { '200': { description: 'merchantWalletId and expiry' }, ...errors(400, 403, 404, 410, 413, 429) } } },
    '/v1/checkout/{id}/qr/complete': { post: { summary: 'QR step 2', security: browser, parameters: [idemKey], responses: { '200': { description: 'Outcome', ...json(ref('PayResult')) }, ...errors(400, 403, 404, 409, 410, 413, 429) } } },
    '/v1/checkout/{id}/invoice/regenerate': { post: { summary: 'Regenerate the session invoice', security: browser, responses: { '200': { description: 'Invoice' }, ...errors(403, 404, 409, 410, 413, 429) } } },
    '/v1/notifications/{id}': {
      post: { summary: 'Gateway notification: checksum verified, then applied only to a payment this session or operation received', responses: { '200': { description: 'Received (applied, or already known)' }, ...errors(400, 401, 404, 409, 413) } },
    },
    '/v1/return/{id}': { get: { summary: 'Shopper return after 3-D Secure: confirms by inquiry, redirects to returnUrl', responses: { '303': { description: 'To the returnUrl' }, '200': { description: 'The result page' } } } },
    '/healthz': {
      get: {
        summary: 'Liveness; with deep=1 (merchant key) a harmless gateway inquiry proves token, checksum and reachability',
        parameters: [{ name: 'deep', in: 'query', required: false, schema: { const: '1' } }],
        responses: { '200': { description: 'ok' }, '503': { description: 'The gateway check failed: error is gateway_unavailable, gateway_auth_failed or gateway_rejected' }, ...errors(401) },
      },
    },
  },
} as const
