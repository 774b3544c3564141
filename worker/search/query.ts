/**
 * @module
 * Listing payments and sessions from the search index (D1): filters, newest first, cursor
 * pagination (`starting_after` = the last id of the previous page). Every filter has its index
 * (migrations/0001_search_index.sql); one metadata pair filters through the metadata table.
 */
import type { FieldError } from '../../shared/errors.ts'
import { checkFormat, expectedOf, FORMAT_EXPECTED } from '../../shared/formats.ts'
import { err, ok, type Result } from '../../shared/result.ts'
import { METADATA_KEY, METADATA_LIMITS } from '../sessions/metadata.ts'
import type { IndexTable } from './rows.ts'

export interface ListQuery {
  readonly status?: string
  readonly createdGte?: number
  readonly createdLt?: number
  readonly order?: string
  readonly email?: string
  readonly metadata?: readonly [string, string]
  readonly limit: number
  readonly startingAfter?: string
}

export interface ListPage {
  readonly object: 'list'
  readonly data: unknown[]
  readonly has_more: boolean
}

const PARAMS = ['status', 'created_gte', 'created_lt', 'order', 'email', 'limit', 'starting_after']
const DEFAULT_LIMIT = 10
const MAX_LIMIT = 100
const TIME = 'Unix seconds or ISO 8601'

/** The query parameters as the API document shows them, from the grammars below. */
export const LIST_QUERY_DOC = (statuses: readonly string[]) => [
  { name: 'status', in: 'query' as const, required: false, schema: { type: 'string' as const, enum: [...statuses] } },
  { name: 'created_gte', in: 'query' as const, required: false, schema: { type: 'string' as const }, description: TIME },
  { name: 'created_lt', in: 'query' as const, required: false, schema: { type: 'string' as const }, description: TIME },
  { name: 'order', in: 'query' as const, required: false, schema: { type: 'string' as const, pattern: FORMAT_EXPECTED.merchantTransactionId }, description: 'The merchantTransactionId' },
  { name: 'email', in: 'query' as const, required: false, schema: { type: 'string' as const }, description: "The session's customer.email" },
  { name: 'metadata[key]', in: 'query' as const, required: false, schema: { type: 'string' as const, maxLength: METADATA_LIMITS.valueLength }, description: `One metadata pair: metadata[orderId]=A-1001 (key ${METADATA_KEY.source})` },
  { name: 'limit', in: 'query' as const, required: false, schema: { type: 'integer' as const, minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
  { name: 'starting_after', in: 'query' as const, required: false, schema: { type: 'string' as const }, description: 'The last id of the previous page' },
]

/** A time as unix seconds or an ISO 8601 date(-time), in ms; undefined when it is neither. */
function time(v: string): number | undefined {
  if (/^\d{1,12}$/.test(v)) return Number(v) * 1000
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return undefined
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : undefined
}

/** Parses the query string of a listing; `statuses` are the table's, `idOk` its id grammar. */
export function parseListQuery(params: Record<string, string>, statuses: readonly string[], idOk: (id: string) => boolean): Result<ListQuery, FieldError[]> {
  const errors: FieldError[] = []
  const q: { -readonly [K in keyof ListQuery]: ListQuery[K] } = { limit: DEFAULT_LIMIT }
  let pairs = 0
  for (const [name, value] of Object.entries(params)) {
    const meta = /^metadata\[(.*)\]$/.exec(name)
    if (meta) {
      pairs += 1
      if (!METADATA_KEY.test(meta[1] ?? '') || value.length > METADATA_LIMITS.valueLength) errors.push({ field: 'metadata', code: 'format', expected: `metadata[key]=value, key ${METADATA_KEY.source}, value at most ${METADATA_LIMITS.valueLength} characters` })
      else q.metadata = [meta[1] ?? '', value]
      continue
    }
    if (!PARAMS.includes(name)) errors.push({ field: name, code: 'not_allowed', expected: `one of: ${PARAMS.join(', ')}, metadata[key]` })
  }
  if (pairs > 1) errors.push({ field: 'metadata', code: 'out_of_range', expected: 'one metadata pair' })
  if (params.status !== undefined) {
    if (statuses.includes(params.status)) q.status = params.status
    else errors.push({ field: 'status', code: 'invalid_value', expected: `one of: ${statuses.join(', ')}` })
  }
  for (const [name, key] of [['created_gte', 'createdGte'], ['created_lt', 'createdLt']] as const) {
    const v = params[name]
    if (v === undefined) continue
    const t = time(v)
    if (t === undefined) errors.push({ field: name, code: 'format', expected: TIME })
    else q[key] = t
  }
  if (params.order !== undefined) {
    if (checkFormat('merchantTransactionId', params.order) === null) q.order = params.order
    else errors.push({ field: 'order', code: 'format', expected: expectedOf('merchantTransactionId', 'format') })
  }
  if (params.email !== undefined) {
    if (checkFormat('email', params.email) === null) q.email = params.email.toLowerCase()
    else errors.push({ field: 'email', code: 'format', expected: expectedOf('email', 'format') })
  }
  if (params.limit !== undefined) {
    const n = /^\d{1,3}$/.test(params.limit) ? Number(params.limit) : NaN
    if (n >= 1 && n <= MAX_LIMIT) q.limit = n
    else errors.push({ field: 'limit', code: 'out_of_range', expected: `an integer from 1 to ${MAX_LIMIT}` })
  }
  if (params.starting_after !== undefined) {
    if (idOk(params.starting_after)) q.startingAfter = params.starting_after
    else errors.push({ field: 'starting_after', code: 'format', expected: 'an id from this list' })
  }
  return errors.length > 0 ? err(errors) : ok(q)
}

/**
 * One page, newest first (`created_at DESC, id DESC`). The cursor row's position is looked up in
 * the same statement; an unknown cursor answers `undefined` (the route's 400).
 */
export async function listPage(db: D1Database, table: IndexTable, q: ListQuery): Promise<ListPage | undefined> {
  const t = table === 'payments' ? 'payments' : 'sessions'
  const meta = table === 'payments' ? 'payment_metadata' : 'session_metadata'
  const where: string[] = []
  const binds: unknown[] = []
  let join = ''
  if (q.metadata) {
    join = ` JOIN ${meta} m ON m.object_id = r.id AND m.key = ? AND m.value = ?`
    binds.push(q.metadata[0], q.metadata[1])
  }
  if (q.status !== undefined) where.push('r.status = ?') && binds.push(q.status)
  if (q.createdGte !== undefined) where.push('r.created_at >= ?') && binds.push(q.createdGte)
  if (q.createdLt !== undefined) where.push('r.created_at < ?') && binds.push(q.createdLt)
  if (q.order !== undefined) where.push('r.merchant_transaction_id = ?') && binds.push(q.order)
  if (q.email !== undefined) where.push('r.email = ?') && binds.push(q.email)
  if (q.startingAfter !== undefined) {
    const cursor = await db.prepare(`SELECT created_at FROM ${t} WHERE id = ?`).bind(q.startingAfter).first<{ created_at: number }>()
    if (!cursor) return undefined
    where.push('(r.created_at < ? OR (r.created_at = ? AND r.id < ?))')
    binds.push(cursor.created_at, cursor.created_at, q.startingAfter)
  }
  const sql = `SELECT r.data FROM ${t} r${join}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r.created_at DESC, r.id DESC LIMIT ?`
  const rows = await db
    .prepare(sql)
    .bind(...binds, q.limit + 1)
    .all<{ data: string }>()
  const data = rows.results.slice(0, q.limit).map((r) => JSON.parse(r.data) as unknown)
  return { object: 'list', data, has_more: rows.results.length > q.limit }
}
