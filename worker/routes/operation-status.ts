/**
 * @module
 * `GET /v1/operations/{operationId}`: a repeat or an invoice regeneration as it is now, by the id its answer
 * and its events carry (`op_...`). A merchant whose answer was lost (or said `unknown`) reads the
 * outcome here, or replays the same request with the same Idempotency-Key. `GET /v1/operations`
 * lists them from the search index (`needs_attention=true`: those still open after two hours of tries).
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { validate } from '../middleware/validate.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'
import { listQuery } from '../schemas/search.ts'
import { listQueryOf } from '../search/query.ts'
import { OP_STATUSES } from '../sessions/merchant-operations/flow.ts'
import { OPERATION_ID, operationStubById } from './operations.ts'
import { list, METADATA_PARAM, page } from './search.ts'
import { merchantIdOf } from '../merchants/merchant-env.ts'

export const operations = new Hono<{ Bindings: Env }>()

operations.use('*', merchantAuth())

operations.get(
  '/',
  describeRoute({
    summary: 'Find repeats and invoice regenerations, newest first (search index: may lag by a moment)',
    operationId: 'listOperations',
    security: merchant,
    responses: { '200': { description: 'A page', ...page(ref('OperationOutcome')) }, ...errors(400, 401, 429) },
  }),
  validate('query', listQuery(OP_STATUSES, { test: (id) => OPERATION_ID.test(id), expected: OPERATION_ID.source })),
  METADATA_PARAM,
  (c) => list(c, 'operations', listQueryOf(c.req.valid('query'))),
)

operations.get(
  '/:operationId',
  describeRoute({
    summary: 'A repeat or an invoice regeneration as it is now',
    operationId: 'getOperation',
    security: merchant,
    parameters: [
      { name: 'operationId', in: 'path', required: true, schema: { type: 'string', pattern: '^op_[0-9a-f]{64}$' } },
    ],
    responses: { '200': { description: 'The operation', ...json(ref('OperationOutcome')) }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    const stub = operationStubById(c.env, c.req.param('operationId'))
    const view = stub ? await stub.view(merchantIdOf(c.env)) : undefined
    if (!view) throw new ApiError('not_found', 'No such operation.')
    return c.json(view)
  },
)
