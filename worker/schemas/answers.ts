/**
 * @module
 * The API document's shapes of answers and events: the fields every view always holds (checked
 * against the code's types by `every`), and what each webhook event's `data` is. The document
 * itself is assembled in routes/openapi.ts.
 */
import { CARD_BRANDS } from '../../shared/card.ts'
import { STATUSES } from '../sessions/types.ts'
import { EVENT_TYPES } from '../../shared/webhooks/events.ts'
import { OPERATION_TRANSITIONS, type OperationStatus, type OperationView, type PaymentView } from '../payments/types.ts'
import type { OpStatus } from '../sessions/merchant-operation.ts'
import type { MerchantView } from '../sessions/types.ts'
import type { RegistrationView } from '../registrations/registration-object.ts'
import { AMOUNT_RE } from '../../shared/money.ts'
import { ref } from './doc.ts'

export const amount = {
  type: 'string',
  pattern: AMOUNT_RE.source,
  description: 'Decimal text with exactly two decimals, every currency (JPY too).',
}

export type EventType = keyof typeof EVENT_TYPES

/**
 * `list` names every member of the union `U` (and nothing else): a status or field added to the
 * code and not to the document does not compile.
 */
function every<U extends string>() {
  return <const L extends readonly U[]>(
    list: L & ([U] extends [L[number]] ? unknown : { missing: Exclude<U, L[number]> }),
  ): L => list
}

/** A repeat's or a regeneration's status (merchant-operation.ts). */
const OP_STATUSES = every<OpStatus>()([
  'processing',
  'pending',
  'unknown',
  'succeeded',
  'declined',
  'failed',
  'paid',
  'expired',
])
const OPERATION_STATUSES = Object.keys(OPERATION_TRANSITIONS) as OperationStatus[]
/** What merchantView, paymentView and the registration's view always hold (the event schemas require them). */
export const SESSION_FIELDS = every<keyof MerchantView>()([
  'id',
  'flow',
  'methods',
  'method',
  'status',
  'amount',
  'currency',
  'merchantTransactionId',
  'paymentType',
  'recurring',
  'attempts',
  'maxAttempts',
  'paymentId',
  'registrationId',
  'resultCode',
  'resultDescription',
  'transactionStatus',
  'card',
  'invoice',
  'lastError',
  'refusedNotifications',
  'setup',
  'createdAt',
  'updatedAt',
  'expiresAt',
  'metadata',
])
export const PAYMENT_FIELDS = every<keyof PaymentView>()([
  'id',
  'object',
  'status',
  'amount',
  'currency',
  'paymentType',
  'amountCaptured',
  'amountRefunded',
  'amountRefundable',
  'sessionId',
  'merchantTransactionId',
  'source',
  'registrationId',
  'card',
  'email',
  'metadata',
  'captures',
  'voids',
  'refunds',
  'needsAttention',
  'createdAt',
  'updatedAt',
])
export const OPERATION_FIELDS = every<keyof OperationView>()([
  'id',
  'object',
  'status',
  'amount',
  'reason',
  'gatewayId',
  'resultCode',
  'failure',
  'needsAttention',
  'createdAt',
  'updatedAt',
])
export const REGISTRATION_FIELDS = every<keyof RegistrationView>()([
  'id',
  'object',
  'status',
  'resultCode',
  'deletedAt',
])
const sequence = {
  type: 'integer',
  description: 'Counts the changes of what the event is about; events of one thing arrive in its order.',
}

/**
 * What `data` holds, by event type: the schema (in `components.schemas`) of what each event is
 * about, as the code commits it (checkout-session.ts, payment-object.ts, merchant-operation.ts,
 * decline-breaker.ts, registration-object.ts). Known fields are listed; where the gateway's answer
 * varies, more may come (additionalProperties).
 */
const EVENT_DATA_BY_ABOUT = {
  session: 'SessionEventData',
  operation: 'OperationEventData',
  payment: 'PaymentEventData',
  registration: 'RegistrationEventData',
} as const
const EVENT_DATA_OF_TYPE: Partial<Record<EventType, string>> = {
  'invoice.regenerated': 'InvoiceRegeneratedEventData',
  'checkout.session.charged_again': 'SessionChargedAgainEventData',
  'checkout.breaker.tripped': 'BreakerTrippedEventData',
  'checkout.breaker.reset': 'BreakerResetEventData',
  'registration.created': 'RegistrationCreatedEventData',
}
export function eventDataSchema(type: EventType): string {
  const about = EVENT_TYPES[type].about
  const name = EVENT_DATA_OF_TYPE[type] ?? (about === 'deployment' ? undefined : EVENT_DATA_BY_ABOUT[about])
  if (!name) throw new Error(`answers.ts: no data schema for the event ${type}`)
  return name
}

export const eventDataSchemas = {
  SessionEventData: {
    description: 'The session as GET /v1/sessions/{id} shows it (metadata included), with previousStatus and sequence.',
    required: [...SESSION_FIELDS],
    allOf: [
      ref('Session'),
      {
        type: 'object',
        required: ['previousStatus', 'sequence'],
        properties: {
          previousStatus: { enum: [...STATUSES], description: 'The status the change started from' },
          sequence,
        },
      },
    ],
  },
  PaymentEventData: {
    description:
      'The payment as GET /v1/payments/{id} shows it (metadata included), with operation (the capture, void or refund that changed), previousStatus (of the operation) and sequence.',
    required: [...PAYMENT_FIELDS],
    allOf: [
      ref('Payment'),
      {
        type: 'object',
        required: ['operation', 'previousStatus', 'sequence'],
        properties: {
          operation: { required: [...OPERATION_FIELDS], allOf: [ref('Operation')] },
          previousStatus: {
            enum: [...OPERATION_STATUSES],
            description: "The operation's status the change started from",
          },
          sequence,
        },
      },
    ],
  },
  OperationEventData: {
    type: 'object',
    description:
      "A repeat (payment.repeat.*) or an invoice regeneration (invoice.regenerate.*, invoice.paid, invoice.declined): its status and what the gateway answered. Which answer fields come depends on the gateway's answer.",
    required: ['idempotencyKeyHash', 'status', 'previousStatus', 'sequence'],
    properties: {
      idempotencyKeyHash: {
        type: 'string',
        description: 'Names the operation (derived from its Idempotency-Key), the same in each of its events',
      },
      id: {
        type: 'string',
        description: 'op_ and idempotencyKeyHash: GET /v1/operations/{operationId} reads the operation as it is now',
      },
      object: { const: 'operation' },
      kind: { enum: ['repeat', 'regenerate'] },
      error: {
        type: 'string',
        description: 'Why the operation failed without the gateway deciding (registration_deleted)',
      },
      status: { enum: [...OP_STATUSES] },
      previousStatus: { enum: [...OP_STATUSES] },
      sequence,
      merchantTransactionId: {
        type: 'string',
        description: 'A repeat: its own order reference (derived from the Idempotency-Key)',
      },
      repeatOf: { type: 'string', description: 'A repeat: the id of the payment it repeats' },
      amount: { type: 'string', description: 'A repeat: the amount asked for' },
      currency: { type: 'string', description: 'A repeat: its currency' },
      needsAttention: {
        type: 'boolean',
        description: 'Still open after two hours of inquiries (asked about hourly until it settles)',
      },
      paymentId: {
        type: ['string', 'null'],
        description: "A repeat: the new payment's id; a paid invoice: the paying payment's id",
      },
      resultCode: { type: 'string' },
      resultDescription: { type: 'string' },
      invoice: {
        type: 'object',
        description:
          "A regeneration: the gateway's answer (systemInvoiceId, merchantInvoiceId, amount, currency, transactionUrl, ...)",
        additionalProperties: true,
      },
      unsent: { type: 'string', description: 'Why nothing reached the gateway (unreachable, token_refused)' },
      fields: {
        type: 'array',
        items: { type: 'object', additionalProperties: true },
        description: 'The request fields the gateway refused',
      },
    },
    additionalProperties: true,
  },
  Invoice: {
    type: 'object',
    description: 'An invoice as the gateway issued it; transactionUrl is its pay link',
    required: ['systemInvoiceId', 'merchantInvoiceId', 'amount', 'currency'],
    properties: {
      systemInvoiceId: { type: 'string' },
      merchantInvoiceId: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      createdDate: { type: 'string' },
      createdTime: { type: 'string' },
      invoiceExpirationPeriod: { type: 'string' },
      transactionUrl: { type: 'string' },
    },
  },
  InvoiceRegeneratedEventData: {
    type: 'object',
    description: "The session's regenerated invoice.",
    required: ['sessionId', 'merchantTransactionId', 'invoice', 'metadata', 'sequence'],
    properties: {
      sessionId: { type: 'string' },
      merchantTransactionId: { type: 'string' },
      metadata: ref('Metadata'),
      invoice: { anyOf: [ref('Invoice'), { type: 'null' }] },
      sequence,
    },
  },
  SessionChargedAgainEventData: {
    type: 'object',
    description:
      "A payment of the session that took money after the session was paid by another (paymentId), and the session's own (sessionPaymentId).",
    required: [
      'sessionId',
      'merchantTransactionId',
      'paymentId',
      'method',
      'amount',
      'currency',
      'sessionPaymentId',
      'metadata',
      'sequence',
    ],
    properties: {
      sessionId: { type: 'string' },
      merchantTransactionId: { type: 'string' },
      paymentId: { type: 'string', description: 'The second payment: its record is open, to refund or void' },
      method: { type: 'string', description: 'The way it was paid (qr, card, ...)' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      sessionPaymentId: { type: ['string', 'null'], description: 'The payment that paid the session' },
      metadata: ref('Metadata'),
      sequence,
    },
    additionalProperties: false,
  },
  BreakerTrippedEventData: {
    type: 'object',
    description:
      'The decline breaker across the deployment: what tripped it and until when card attempts need Turnstile.',
    required: ['attempts', 'declines', 'windowMinutes', 'until', 'sequence'],
    properties: {
      attempts: { type: 'integer' },
      declines: { type: 'integer' },
      windowMinutes: { type: 'integer' },
      until: { type: 'string', format: 'date-time' },
      sequence,
    },
  },
  BreakerResetEventData: { type: 'object', required: ['sequence'], properties: { sequence } },
  RegistrationCreatedEventData: {
    type: 'object',
    description: "The card a setup session registered; sequence counts the session's changes.",
    required: ['registrationId', 'sessionId', 'merchantTransactionId', 'card', 'paymentId', 'metadata', 'sequence'],
    properties: {
      registrationId: {
        type: 'string',
        description: 'Pay with it in a saved-card session (its first payment with recurringType INITIAL)',
      },
      sessionId: { type: 'string' },
      merchantTransactionId: { type: 'string' },
      card: {
        anyOf: [
          { type: 'object', properties: { brand: { enum: [...CARD_BRANDS] }, last4: { type: 'string' } } },
          { type: 'null' },
        ],
      },
      paymentId: {
        type: ['string', 'null'],
        description: 'The authorisation that registered the card; the Worker voids it (no payment record)',
      },
      metadata: ref('Metadata'),
      sequence,
    },
  },
  RegistrationEventData: {
    description: 'The registration (saved card) deleted at the gateway.',
    required: [...REGISTRATION_FIELDS],
    allOf: [
      ref('Registration'),
      {
        type: 'object',
        required: ['registrationId', 'sequence'],
        properties: { registrationId: { type: 'string' }, sequence },
      },
    ],
  },
} as const
