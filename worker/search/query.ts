/**
 * @module
 * Listing payments and sessions from the search index (D1): filters, newest first, cursor
 * pagination (`starting_after` = the last id of the previous page). Every filter has its index
 * (migrations/0001_search_index.sql); one metadata pair filters through the metadata table.
 */
import type { FieldError } from '../../shared/errors.ts'
import { checkFormat } from '../../shared/formats.ts'
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
      if (!METADATA_KEY.test(meta[1] ?? '') || value.length > METADATA_LIMITS.valueLength) errors.push({ field: 'metadata', code: 'format' })
      else q.metadata = [meta[1] ?? '', value]
      continue
    }
    if (!PARAMS.includes(name)) errors.push({ field: name, code: 'not_allowed' })
  }
  if (pairs > 1) errors.push({ field: 'metadata', code: 'out_of_range' })
  if (params.status !== undefined) {
    if (statuses.includes(params.status)) q.status = params.status
    else errors.push({ field: 'status', code: 'invalid_value' })
  }
  for (const [name, key] of [['created_gte', 'createdGte'], ['created_lt', 'createdLt']] as const) {
    const v = params[name]
    if (v === undefined) continue
    const t = time(v)
    if (t === undefined) errors.push({ field: name, code: 'format' })
    else q[key] = t
  }
  if (params.order !== undefined) {
    if (checkFormat('merchantTransactionId', params.order) === null) q.order = params.order
    else errors.push({ field: 'order', code: 'format' })
  }
  if (params.email !== undefined) {
    if (checkFormat('email', params.email) === null) q.email = params.email.toLowerCase()
    else errors.push({ field: 'email', code: 'format' })
  }
  if (params.limit !== undefined) {
    const n = /^\d{1,3}$/.test(params.limit) ? Number(params.limit) : NaN
    if (n >= 1 && n <= MAX_LIMIT) q.limit = n
    else errors.push({ field: 'limit', code: 'out_of_range' })
  }
  if (params.starting_after !== undefined) {
    if (idOk(params.starting_after)) q.startingAfter = params.starting_after
    else errors.push({ field: 'starting_after', code: 'format' })
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
