/**
 * @module
 * `GET /v1/payments` and `GET /v1/sessions`: find payments and sessions through the search index
 * (D1), newest first, `limit` per page (default 10, at most 100), `starting_after` for the next
 * page, `has_more` when there is one. The index follows the Durable Objects through their outbox
 * and may lag by a moment (README); `GET /v1/payments/{id}` and `GET /v1/sessions/{id}` read the
 * objects themselves.
 */
import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { checkFormat, FORMAT_EXPECTED } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { SESSION_ID } from '../ids.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { validate } from '../middleware/validate.ts'
import { listQuery } from '../schemas/search.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'
import { PAYMENT_STATUSES } from '../payments/status.ts'
import type { IndexTable } from '../search/rows.ts'
import { listPage, listQueryOf, type ListQuery } from '../search/query.ts'
import { METADATA_KEY, METADATA_LIMITS } from '../sessions/metadata.ts'
import { STATUSES } from '../sessions/types.ts'
import { merchantIdOf } from '../merchants/merchant-env.ts'

const PAYMENT_QUERY = listQuery(PAYMENT_STATUSES as unknown as [string, ...string[]], {
  test: (id) => checkFormat('gatewayId', id) === null,
  expected: FORMAT_EXPECTED.gatewayId,
})
const SESSION_QUERY = listQuery(STATUSES, { test: (id) => SESSION_ID.test(id), expected: SESSION_ID.source })

export async function list(c: Context, table: IndexTable, q: ListQuery): Promise<Response> {
  const env = c.env as Env
  const page = await listPage(env.DB, table, merchantIdOf(env), q)
  if (!page)
    throw new ApiError('invalid_request', 'starting_after names nothing in this list.', [
      { field: 'starting_after', code: 'invalid_value', expected: 'the id of an item of this list' },
    ])
  return c.json(page)
}

/** `metadata[key]=value`: the query's deepObject style (the generated parameter gets its style here). */
export const METADATA_PARAM = describeRoute({
  parameters: [
    {
      name: 'metadata',
      in: 'query',
      style: 'deepObject',
      explode: true,
      schema: {
        type: 'object',
        maxProperties: 1,
        additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
      },
      description: `One metadata pair: metadata[orderId]=A-1001 (keys ${METADATA_KEY.source})`,
    },
  ],
})

export const page = (item: object) =>
  json({
    type: 'object',
    required: ['object', 'data', 'has_more'],
    properties: { object: { const: 'list' }, data: { type: 'array', items: item }, has_more: { type: 'boolean' } },
  })

export const paymentSearch = new Hono<{ Bindings: Env }>()
paymentSearch.use('*', merchantAuth())
paymentSearch.get(
  '/',
  describeRoute({
    summary: 'Find payments, newest first (search index: may lag the payments by a moment)',
    operationId: 'listPayments',
    security: merchant,
    responses: { '200': { description: 'A page', ...page(ref('Payment')) }, ...errors(400, 401, 429) },
  }),
  validate('query', PAYMENT_QUERY),
  METADATA_PARAM,
  (c) => list(c, 'payments', listQueryOf(c.req.valid('query'))),
)

export const sessionSearch = new Hono<{ Bindings: Env }>()
sessionSearch.use('*', merchantAuth())
sessionSearch.get(
  '/',
  describeRoute({
    summary: 'Find sessions, newest first (search index: may lag by a moment)',
    operationId: 'listSessions',
    security: merchant,
    responses: { '200': { description: 'A page', ...page(ref('Session')) }, ...errors(400, 401, 429) },
  }),
  validate('query', SESSION_QUERY),
  METADATA_PARAM,
  (c) => list(c, 'sessions', listQueryOf(c.req.valid('query'))),
)
