/**
 * @module
 * Merchant server route: regenerate an invoice from an existing one. Needs an Idempotency-Key.
 */
import { Hono } from 'hono'
import { checkFormat } from '../../shared/formats.ts'
import { validateFields } from '../../shared/validate.ts'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { sha256Hex } from '../ids.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { idempotencyKeyOf, operationStub, sendReply } from './operations.ts'

export const invoices = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

invoices.use('*', merchantAuth())

invoices.post('/:invoiceId/regenerate', jsonBody(), async (c) => {
  const invoiceId = c.req.param('invoiceId')
  const key = idempotencyKeyOf(c.req.header('Idempotency-Key'))
  if (typeof key !== 'string') return errorResponse(c, 'invalid_request', 'An Idempotency-Key header is required.', [key])
  const body = c.get('body')
  const extra = Object.keys(body).filter((k) => !['merchantInvoiceId', 'invoiceExpirationPeriod', 'merchantRedirectUrl'].includes(k))
  const valid = validateFields(['merchantInvoiceId', 'invoiceExpirationPeriod', 'merchantRedirectUrl'], body)
  const errors = [...extra.map((field) => ({ field, code: 'not_allowed' as const })), ...(valid.ok ? [] : valid.error)]
  for (const required of ['merchantInvoiceId', 'invoiceExpirationPeriod']) if (body[required] === undefined) errors.push({ field: required, code: 'required' })
  if (checkFormat('gatewayId', invoiceId) !== null) errors.push({ field: 'invoiceId', code: 'format' })
  if (errors.length > 0 || !valid.ok) return errorResponse(c, 'invalid_request', 'Some fields are missing or invalid.', errors)
  const stub = operationStub(c.env, `regenerate:${key}`)
  const params = {
    kind: 'regenerate' as const,
    invoiceId,
    merchantInvoiceId: valid.value.merchantInvoiceId ?? '',
    invoiceExpirationPeriod: valid.value.invoiceExpirationPeriod ?? '',
    // Without the merchant's own page, the shopper returns to this operation's status page.
    merchantRedirectUrl: valid.value.merchantRedirectUrl ?? `${c.env.PUBLIC_BASE_URL.replace(/\/$/, '')}/v1/return/op_${stub.id.toString()}`,
  }
  return sendReply(c, await stub.run(params, await sha256Hex(JSON.stringify(params))))
})
