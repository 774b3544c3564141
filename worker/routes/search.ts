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
import { checkFormat } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { SESSION_ID } from '../middleware/browser-access.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'
import { PAYMENT_STATUSES } from '../payments/status.ts'
import type { IndexTable } from '../search/rows.ts'
import { LIST_QUERY_DOC, listPage, parseListQuery } from '../search/query.ts'
import { STATUSES } from '../sessions/types.ts'

const LISTS: Readonly<Record<IndexTable, { statuses: readonly string[]; idOk: (id: string) => boolean }>> = {
  payments: { statuses: PAYMENT_STATUSES, idOk: (id) => checkFormat('gatewayId', id) === null },
  sessions: { statuses: STATUSES, idOk: (id) => SESSION_ID.test(id) },
}

async function list(c: Context<{ Bindings: Env }>, table: IndexTable): Promise<Response> {
  const { statuses, idOk } = LISTS[table]
  const q = parseListQuery(c.req.query(), statuses, idOk)
  if (!q.ok) return errorResponse(c, 'invalid_request', 'Some query parameters are invalid.', q.error)
  const page = await listPage(c.env.DB, table, q.value)
  if (!page) return errorResponse(c, 'invalid_request', 'starting_after names nothing in this list.', [{ field: 'starting_after', code: 'invalid_value' }])
  return c.json(page)
}

export const paymentSearch = new Hono<{ Bindings: Env }>()
paymentSearch.use('*', merchantAuth())
const page = (item: object) => json({ type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: item }, has_more: { type: 'boolean' } } })

paymentSearch.get(
  '/',
  describeRoute({
    summary: 'Find payments, newest first (search index: may lag the payments by a moment)',
    operationId: 'listPayments',
    security: merchant,
    parameters: LIST_QUERY_DOC(PAYMENT_STATUSES),
    responses: { '200': { description: 'A page', ...page(ref('Payment')) }, ...errors(400, 401, 429) },
  }),
  (c) => list(c, 'payments'),
)

export const sessionSearch = new Hono<{ Bindings: Env }>()
sessionSearch.use('*', merchantAuth())
sessionSearch.get(
  '/',
  describeRoute({
    summary: 'Find sessions, newest first (search index: may lag by a moment)',
    operationId: 'listSessions',
    security: merchant,
    parameters: LIST_QUERY_DOC(STATUSES),
    responses: { '200': { description: 'A page', ...page(ref('Session')) }, ...errors(400, 401, 429) },
  }),
  (c) => list(c, 'sessions'),
)
