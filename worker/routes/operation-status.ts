/**
 * @module
 * `GET /v1/operations/{id}`: a repeat or an invoice regeneration as it is now, by the id its answer
 * and its events carry (`op_...`). A merchant whose answer was lost (or said `unknown`) reads the
 * outcome here, or replays the same request with the same Idempotency-Key.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'
import { operationStubById } from './operations.ts'

export const operations = new Hono<{ Bindings: Env }>()

operations.use('*', merchantAuth())

operations.get(
  '/:operationId',
  describeRoute({
    summary: 'A repeat or an invoice regeneration as it is now',
    operationId: 'getOperation',
    security: merchant,
    parameters: [{ name: 'operationId', in: 'path', required: true, schema: { type: 'string', pattern: '^op_[0-9a-f]{64}$' } }],
    responses: { '200': { description: 'The operation', ...json(ref('OperationOutcome')) }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    const stub = operationStubById(c.env, c.req.param('operationId'))
    const view = stub ? await stub.view() : undefined
    if (!view) return errorResponse(c, 'not_found', 'No such operation.')
    return c.json(view)
  },
)
