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
import { validate } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import { regenerateBody } from '../schemas/payments.ts'
import { idempotencyKeyOf } from '../schemas/idempotency-key.ts'
import { operationStub } from './operations.ts'
import { sendReply } from '../respond.ts'
import { callbackUrl } from '../env-vars.ts'
import { merchantIdOf } from '../merchants/merchant-env.ts'

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
    const key = idempotencyKeyOf(c.req.header('Idempotency-Key'))
    if (typeof key !== 'string') throw new ApiError('invalid_request', 'An Idempotency-Key header is required.', [key])
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
    return sendReply(c, await stub.run(params, await fingerprintOf(params), merchantIdOf(c.env)))
  },
)
