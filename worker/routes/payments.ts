/**
 * @module
 * Merchant server routes on payments: a REPEATED payment by payment id (customer absent), and a
 * status inquiry. Repeats need an Idempotency-Key: the same key never charges twice.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { checkFormat, FORMAT_EXPECTED, ID_RE } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { amountBounds, gatewayClient } from '../config.ts'
import { ApiError } from '../errors.ts'
import { fingerprintOf, sha256Hex } from '../ids.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { requiredIdempotencyKey, validate } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import { inquiryBody, repeatBody } from '../schemas/payments.ts'
import { operationStub, registry } from './operations.ts'
import { sendReply } from '../respond.ts'
import { paymentStub } from './money.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'
import { DEFAULT_MERCHANT } from '../merchants/profiles.ts'

export const payments = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

payments.use('*', merchantAuth())

const PAYMENT_ID = { paymentId: 'gatewayId' } as const

payments.post(
  '/:paymentId/repeat',
  describeRoute({
    summary: 'A REPEATED payment by payment id (customer absent)',
    operationId: 'repeatPayment',
    security: merchant,
    parameters: [...pathParams(PAYMENT_ID), idempotencyKey()],
    responses: {
      '200': {
        description: 'Outcome (status succeeded | declined | pending | unknown)',
        ...json(ref('OperationOutcome')),
      },
      ...errors(400, 401, 404, 409, 413, 422, 429, 502, 503),
    },
  }),
  jsonBody(),
  validate('json', repeatBody(), { params: PAYMENT_ID, forRequest: (env) => repeatBody(amountBounds(env)) }),
  async (c) => {
    const paymentId = c.req.param('paymentId')
    const key = requiredIdempotencyKey(c.req.header('Idempotency-Key'))
    const v = c.req.valid('json')
    const params = {
      kind: 'repeat' as const,
      paymentId,
      amount: v.amount,
      currency: v.currency,
      paymentType: v.paymentType === 'PA' ? ('PA' as const) : ('DB' as const),
      // Derived from the key: the same repeat always carries the same reference.
      // Per merchant: two merchants' keys never make one reference at the gateway.
      merchantTransactionId: `rp-${(await sha256Hex(scoped(c.env, `repeat:${key}`))).slice(0, 24)}`,
    }
    const fingerprint = await fingerprintOf(params)
    // The repeated payment's record: its saved card (guarded before each send) and what the new
    // payment inherits. Read after the fingerprint: the same request is the same whatever it says.
    const parent = await paymentStub(c.env, paymentId).repeatSource(merchantIdOf(c.env))
    // A profile's repeat names one of its own payments (the default merchant may still repeat a
    // payment made before payment records existed: the gateway knows it by its member).
    if (!parent && merchantIdOf(c.env) !== DEFAULT_MERCHANT) throw new ApiError('not_found', 'No such payment.')
    // Refused as the payment stands now, unless this key already made its repeat (replayed).
    // A setup session's authorisation saved a card without paying and is voided: the card is
    // charged in a saved-card session (README, "Saving a card without paying"), never by
    // repeating that authorisation, which no deletion of the card could be checked against. A
    // payment whose saved card is still asked of the gateway: a repeat now would copy no card,
    // and a later deletion of it would not stop the repeat's own repeats. Nothing is kept of a
    // refused request, so the same key works once the card is known (`registration.created`).
    // A payment that began no recurring series: the gateway refuses its repeats (an initial
    // payment comes first), so it is never asked.
    const refusal = parent?.setupOf
      ? {
          code: 'payment_state' as const,
          message: 'This authorisation only saved a card, and is voided: charge the card in a saved-card session.',
        }
      : parent?.registrationPending
        ? {
            code: 'payment_state' as const,
            message:
              'The card this payment saved is not known yet: repeat the payment once registration.created names it.',
          }
        : parent?.recurring === null
          ? {
              code: 'payment_state' as const,
              message:
                'This payment began no recurring series: repeat a payment whose session had recurring: "INITIAL" (or a saved card\'s, or a repeat).',
            }
          : undefined
    const withParent = parent
      ? {
          ...params,
          parent: {
            registrationId: parent.registrationId,
            card: parent.card,
            email: parent.email,
            metadata: parent.metadata,
          },
        }
      : params
    // Its reference is an order reference at the gateway, as a session's or an invoice's: claimed
    // for the deployment, so that none given the same one (read from this answer) could settle it
    // or be settled by it. As for an invoice's regeneration, the same key asks again under the
    // same claim, and a refusal, which sent nothing, gives it back. One refused before it is run
    // (above) claims nothing: giving it back could take it from a retry that runs meanwhile.
    const owner = `repeat:${key}`
    const stub = operationStub(c.env, owner)
    const order = registry(c.env, scoped(c.env, `order:${params.merchantTransactionId}`))
    const claim = refusal ? undefined : await order.claim(owner, owner)
    if (claim?.kind === 'taken' && !(await stub.view(merchantIdOf(c.env))))
      throw new ApiError(
        'duplicate_order',
        'A checkout session or invoice already has the order reference this key makes. Use another Idempotency-Key.',
      )
    const reply = await stub.run(withParent, fingerprint, merchantIdOf(c.env), refusal)
    if (claim?.kind === 'claimed' && !reply.ok && reply.error.code !== 'idempotency_in_progress')
      await order.release(owner)
    return sendReply(c, reply)
  },
)

payments.post(
  '/:paymentId/inquiry',
  describeRoute({
    summary: 'Gateway status inquiry (idType PID default, or MID)',
    operationId: 'inquirePayment',
    security: merchant,
    parameters: pathParams({
      paymentId: { pattern: ID_RE.source, description: 'A paymentId (PID) or a merchantTransactionId (MID)' },
    }),
    responses: {
      '200': { description: "The gateway's answer", ...json(ref('InquiryResult')) },
      ...errors(400, 401, 404, 413, 429, 502, 503),
    },
  }),
  jsonBody(),
  validate('json', inquiryBody),
  async (c) => {
    const id = c.req.param('paymentId')
    const idType = c.req.valid('json').idType ?? 'PID'
    const format = idType === 'PID' ? 'gatewayId' : 'merchantTransactionId'
    if (checkFormat(format, id) !== null)
      throw new ApiError('invalid_request', 'Not a payment id.', [
        { field: 'paymentId', code: 'format', expected: FORMAT_EXPECTED[format] },
      ])
    const outcome = await gatewayClient(c.env).inquiry(id, idType)
    switch (outcome.kind) {
      case 'not_found':
        throw new ApiError('not_found', 'The gateway has no such payment.')
      case 'unknown':
        throw new ApiError('gateway_unavailable', 'The gateway did not answer. Try again.')
      case 'unsent':
        throw outcome.reason === 'token_refused'
          ? new ApiError('gateway_auth_failed', 'The gateway refused our credentials (AuthToken).')
          : new ApiError('gateway_unavailable', 'The gateway cannot be reached.')
      case 'invalid':
        throw new ApiError('gateway_error', 'The inquiry could not be built.')
      case 'rejected':
        // Our credentials refused even with a fresh token is the operator's AuthToken problem, named as such.
        throw outcome.reason === 'auth'
          ? new ApiError('gateway_auth_failed', `The gateway refused our credentials (AuthToken, ${outcome.code}).`)
          : new ApiError(
              'gateway_rejected',
              `The gateway refused the inquiry (${outcome.code}: ${outcome.description}).`,
            )
      default: {
        const r = outcome.response
        return c.json({
          status: outcome.kind,
          paymentId: r.paymentId ?? null,
          merchantTransactionId: r.merchantTransactionId ?? null,
          amount: r.amount ?? null,
          currency: r.currency ?? null,
          transactionStatus: r.transactionStatus ?? null,
          resultCode: outcome.code,
          resultDescription: outcome.description,
        })
      }
    }
  },
)
