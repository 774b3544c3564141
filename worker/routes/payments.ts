/**
 * @module
 * Merchant server routes on payments: a REPEATED payment by payment id (customer absent), and a
 * status inquiry. Repeats need an Idempotency-Key: the same key never charges twice.
 */
import { Hono } from 'hono'
import { DEFAULT_AMOUNT_BOUNDS, fitsMinorUnits } from '../../shared/money.ts'
import { validateFields } from '../../shared/validate.ts'
import type { Env } from '../env.ts'
import { gatewayClient } from '../config.ts'
import { errorResponse } from '../errors.ts'
import { checkFormat } from '../../shared/formats.ts'
import { sha256Hex } from '../ids.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { idempotencyKeyOf, operationStub, sendReply } from './operations.ts'

export const payments = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

payments.use('*', merchantAuth())

payments.post('/:paymentId/repeat', jsonBody(), async (c) => {
  const paymentId = c.req.param('paymentId')
  const key = idempotencyKeyOf(c.req.header('Idempotency-Key'))
  if (typeof key !== 'string') return errorResponse(c, 'invalid_request', 'An Idempotency-Key header is required.', [key])
  const body = c.get('body')
  const extra = Object.keys(body).filter((k) => !['amount', 'currency', 'paymentType'].includes(k))
  const bounds = { min: c.env.AMOUNT_MIN ?? DEFAULT_AMOUNT_BOUNDS.min, max: c.env.AMOUNT_MAX ?? DEFAULT_AMOUNT_BOUNDS.max }
  // paymentType may be left out (DB); amount and currency may not.
  const valid = validateFields(['amount', 'currency', 'paymentType'], body, { amountBounds: bounds })
  const errors = [...extra.map((field) => ({ field, code: 'not_allowed' as const })), ...(valid.ok ? [] : valid.error)]
  for (const required of ['amount', 'currency']) if (body[required] === undefined) errors.push({ field: required, code: 'required' })
  if (checkFormat('gatewayId', paymentId) !== null) errors.push({ field: 'paymentId', code: 'format' })
  if (valid.ok && valid.value.amount && valid.value.currency && !fitsMinorUnits(valid.value.amount, valid.value.currency)) errors.push({ field: 'amount', code: 'minor_units' })
  if (errors.length > 0 || !valid.ok) return errorResponse(c, 'invalid_request', 'Some fields are missing or invalid.', errors)
  const v = valid.value
  const params = {
    kind: 'repeat' as const,
    paymentId,
    amount: v.amount ?? '',
    currency: v.currency ?? '',
    paymentType: (v.paymentType ?? 'DB') as 'DB' | 'PA',
    // Derived from the key: the same repeat always carries the same reference.
    merchantTransactionId: `rp-${(await sha256Hex(`repeat:${key}`)).slice(0, 24)}`,
  }
  const fingerprint = await sha256Hex(JSON.stringify(params))
  return sendReply(c, await operationStub(c.env, `repeat:${key}`).run(params, fingerprint))
})

payments.post('/:paymentId/inquiry', jsonBody(), async (c) => {
  const id = c.req.param('paymentId')
  const extra = Object.keys(c.get('body')).filter((k) => k !== 'idType')
  if (extra.length > 0) return errorResponse(c, 'invalid_request', 'Only idType may be given.', extra.map((field) => ({ field, code: 'not_allowed' as const })))
  const idType = c.get('body').idType ?? 'PID'
  if (idType !== 'PID' && idType !== 'MID') return errorResponse(c, 'invalid_request', 'idType is PID or MID.', [{ field: 'idType', code: 'invalid_value' }])
  if (checkFormat(idType === 'PID' ? 'gatewayId' : 'merchantTransactionId', id) !== null) return errorResponse(c, 'invalid_request', 'Not a payment id.', [{ field: 'paymentId', code: 'format' }])
  const outcome = await gatewayClient(c.env).inquiry(id, idType)
  switch (outcome.kind) {
    case 'not_found':
      return errorResponse(c, 'not_found', 'The gateway has no such payment.')
    case 'unknown':
      return errorResponse(c, 'gateway_unavailable', 'The gateway did not answer. Try again.')
    case 'unsent':
      return outcome.reason === 'token_refused'
        ? errorResponse(c, 'gateway_auth_failed', 'The gateway refused our credentials (AuthToken).')
        : errorResponse(c, 'gateway_unavailable', 'The gateway cannot be reached.')
    case 'invalid':
      return errorResponse(c, 'gateway_error', 'The inquiry could not be built.')
    case 'rejected':
      return errorResponse(c, 'gateway_rejected', `The gateway refused the inquiry (${outcome.code}: ${outcome.description}).`)
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
})
