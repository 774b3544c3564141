/**
 * @module
 * Merchant routes on one payment: read it, capture, void, refund. Each operation is parsed by its
 * handler (worker/payments/operations/) into a typed request, run by the payment's Durable Object,
 * and its typed result becomes an HTTP answer here, and only here:
 * - the operation succeeded: 200 with `{ operation, payment }`;
 * - the gateway's answer never came: 202, the operation `unknown` (settled by inquiry, told by webhook);
 * - the gateway refused it or could not be reached: its error (502/503/404), nothing moved;
 * - refused before the gateway (state, amount, idempotency): 409/422/404 with the error shape.
 */
import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import type * as v from 'valibot'
import { checkFormat } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { fingerprintOf } from '../ids.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { requiredIdempotencyKey, validate } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import type { RequestOf } from '../payments/operations/index.ts'
import type { PaymentObject } from '../payments/payment-object.ts'
import { NO_SUCH_PAYMENT } from '../payments/status.ts'
import type { OperationKind, OperationView } from '../payments/types.ts'
import type { Reply } from '../reply.ts'
import { sendReply } from '../respond.ts'
import { captureBody, refundBody, voidBody } from '../schemas/payments.ts'
import { placement } from '../placement.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'

type Ctx = Context<{ Bindings: Env; Variables: JsonBodyVariables }>

export const money = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

money.use('*', merchantAuth())

export function paymentStub(env: Env, paymentId: string): DurableObjectStub<PaymentObject> {
  return env.PAYMENTS.get(env.PAYMENTS.idFromName(scoped(env, paymentId)), placement(env))
}

/** The route path of each operation kind. */
const PATHS: Readonly<Record<OperationKind, string>> = { capture: 'capture', void: 'void', refund: 'refunds' }

async function runOperation<K extends OperationKind>(c: Ctx, kind: K, request: RequestOf[K]): Promise<Response> {
  const paymentId = c.req.param('paymentId') ?? ''
  const key = requiredIdempotencyKey(c.req.header('Idempotency-Key'))
  const fingerprint = await fingerprintOf({ kind, request })
  const reply: Reply = await paymentStub(c.env, paymentId).run(kind, key, fingerprint, request, merchantIdOf(c.env))
  // Succeeded: 200; the gateway has not answered (or a replay while it runs): 202, settled later.
  return sendReply(c, reply, (body) =>
    (body as { operation: OperationView }).operation.status === 'succeeded' ? 200 : 202,
  )
}

const operationResponses = {
  '200': { description: 'Succeeded (or replayed, with Idempotent-Replayed: true)', ...json(ref('OperationResult')) },
  '202': {
    description:
      'The gateway has not answered: the operation is unknown, settled by status inquiry (never sent twice) and told by webhook',
    ...json(ref('OperationResult')),
  },
  ...errors(400, 401, 404, 409, 413, 422, 429, 502, 503),
}

const SUMMARIES: Readonly<Record<OperationKind, string>> = {
  capture:
    'Capture an authorisation (PA), in full or in part, once. 409 payment_state: not an authorisation, captured or voided already; 409 amount_too_large: above the authorised amount.',
  void: 'Void an authorisation that is not captured. 409 payment_state after a capture (refund instead).',
  refund:
    'Refund in full or in part; several partial refunds up to what was captured (refunds in flight count). 409 amount_too_large above what remains, 409 payment_state before a capture.',
}

const PAYMENT_ID = { paymentId: 'gatewayId' } as const

/** Each operation's body: its schema's output is the request its handler takes (payments/operations/). */
const BODIES: { readonly [K in OperationKind]: v.GenericSchema<unknown, RequestOf[K]> } = {
  capture: captureBody,
  refund: refundBody,
  void: voidBody,
}

for (const kind of Object.keys(PATHS) as OperationKind[]) {
  money.post(
    `/:paymentId/${PATHS[kind]}`,
    describeRoute({
      summary: SUMMARIES[kind],
      operationId: kind === 'void' ? 'voidPayment' : `${kind}Payment`,
      security: merchant,
      parameters: [...pathParams(PAYMENT_ID), idempotencyKey()],
      responses: operationResponses,
    }),
    jsonBody(),
    validate('json', BODIES[kind] as typeof BODIES.capture, { params: PAYMENT_ID }),
    (c) => runOperation(c, kind, c.req.valid('json') as RequestOf[typeof kind]),
  )
}

money.get(
  '/:paymentId',
  describeRoute({
    summary: 'The payment: amounts captured and refunded, its captures, voids and refunds, session, order, metadata',
    operationId: 'getPayment',
    security: merchant,
    parameters: pathParams(PAYMENT_ID),
    responses: { '200': { description: 'Payment', ...json(ref('Payment')) }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    const paymentId = c.req.param('paymentId')
    const view =
      checkFormat('gatewayId', paymentId) === null
        ? await paymentStub(c.env, paymentId).view(merchantIdOf(c.env))
        : undefined
    if (!view) throw new ApiError('not_found', NO_SUCH_PAYMENT)
    return c.json(view)
  },
)
