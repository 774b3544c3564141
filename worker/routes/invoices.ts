/**
 * @module
 * Merchant server route: regenerate an invoice from an existing one. Needs an Idempotency-Key.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { fingerprintOf } from '../ids.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { requiredIdempotencyKey, validate } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import { regenerateBody } from '../schemas/payments.ts'
import { hoursMs } from '../gateway/units.ts'
import { operationStub, registry } from './operations.ts'
import { sendReply } from '../respond.ts'
import { callbackUrl } from '../env-vars.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'

export const invoices = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

invoices.use('*', merchantAuth())

const INVOICE_ID = { invoiceId: 'gatewayId' } as const

invoices.post(
  '/:invoiceId/regenerate',
  describeRoute({
    summary: 'Regenerate an invoice',
    operationId: 'regenerateInvoice',
    security: merchant,
    parameters: [...pathParams(INVOICE_ID), idempotencyKey()],
    responses: {
      '200': { description: 'Invoice details', ...json(ref('OperationOutcome')) },
      ...errors(400, 401, 404, 409, 413, 422, 429, 502, 503),
    },
  }),
  jsonBody(),
  validate('json', regenerateBody, { params: INVOICE_ID }),
  async (c) => {
    const invoiceId = c.req.param('invoiceId')
    const key = requiredIdempotencyKey(c.req.header('Idempotency-Key'))
    const body = c.req.valid('json')
    const stub = operationStub(c.env, `regenerate:${key}`)
    const params = {
      kind: 'regenerate' as const,
      invoiceId,
      merchantInvoiceId: body.merchantInvoiceId,
      invoiceExpirationPeriod: body.invoiceExpirationPeriod,
      // Without the merchant's own page, the shopper returns to this operation's status page.
      merchantRedirectUrl: body.merchantRedirectUrl ?? callbackUrl(c.env, 'return', `op_${stub.id.toString()}`),
      ...(body.metadata ? { metadata: body.metadata } : {}),
    }
    // The invoice's reference is an order reference at the gateway (its payments and notifications
    // name it as merchantTransactionId): one per deployment, as a session's, or an inquiry or a
    // notification for one could settle the other. The same key asks again under the same claim.
    const owner = `regenerate:${key}`
    const order = registry(c.env, scoped(c.env, `order:${body.merchantInvoiceId}`))
    const claim = await order.claim(owner, owner, hoursMs(body.invoiceExpirationPeriod))
    // Taken by another, unless this key already made its request (which failed for good and gave
    // the reference back): that request's answer is replayed, as for any Idempotency-Key.
    if (claim.kind === 'taken' && !(await stub.view(merchantIdOf(c.env))))
      throw new ApiError(
        'duplicate_order',
        'A checkout session or another invoice regeneration already has this merchantInvoiceId. Use a new invoice reference.',
        [{ field: 'merchantInvoiceId', code: 'invalid_value' }],
      )
    // A call that failed on its way (the operation may have sent the regeneration, and its alarm
    // would settle it) keeps the claim: the same key asks again under it.
    const reply = await stub.run(params, await fingerprintOf(params), merchantIdOf(c.env))
    // A refusal is final (the operation failed: the gateway refused it or it was never sent; or the
    // key is another request's): no invoice has this reference, which stays free for another key.
    if (claim.kind === 'claimed' && !reply.ok && reply.error.code !== 'idempotency_in_progress')
      await order.release(owner)
    return sendReply(c, reply)
  },
)
