/**
 * @module
 * Listing payments and sessions from the search index (D1): filters (the query checked by
 * worker/schemas/search.ts), newest first, cursor
 * pagination (`starting_after` = the last id of the previous page). Every filter has its index
 * (migrations/0001_search_index.sql); one metadata pair filters through the metadata table.
 */
import type { ListQueryInput } from '../schemas/search.ts'
import { INDEX_SQL_TABLES, type IndexTable } from './rows.ts'

/** A listing's page size when the query names none. */
export const DEFAULT_LIMIT = 10

export interface ListQuery {
  readonly status?: string
  readonly createdGte?: number
  readonly createdLt?: number
  readonly order?: string
  readonly email?: string
  readonly amount?: string
  readonly last4?: string
  readonly metadata?: readonly [string, string]
  readonly needsAttention?: boolean
  readonly limit: number
  readonly startingAfter?: string
}

export interface ListPage {
  readonly object: 'list'
  readonly data: unknown[]
  readonly has_more: boolean
}

/** A checked query as the listing's filters. */
export function listQueryOf(q: ListQueryInput): ListQuery {
  const pair = q.metadata ? Object.entries(q.metadata)[0] : undefined
  return {
    limit: q.limit ?? DEFAULT_LIMIT,
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.created_gte !== undefined ? { createdGte: q.created_gte } : {}),
    ...(q.created_lt !== undefined ? { createdLt: q.created_lt } : {}),
    ...(q.order !== undefined ? { order: q.order } : {}),
    ...(q.email !== undefined ? { email: q.email } : {}),
    ...(q.amount !== undefined ? { amount: q.amount } : {}),
    ...(q.last4 !== undefined ? { last4: q.last4 } : {}),
    ...(pair ? { metadata: pair } : {}),
    ...(q.needs_attention === 'true' ? { needsAttention: true } : {}),
    ...(q.starting_after !== undefined ? { startingAfter: q.starting_after } : {}),
  }
}

/**
 * One page, newest first (`created_at DESC, id DESC`). The cursor row's position is looked up in
 * the same statement; an unknown cursor answers `undefined` (the route's 400).
 */
/** A page of `merchant`'s rows: no filter and no cursor reaches another merchant's. */
export async function listPage(
  db: D1Database,
  table: IndexTable,
  merchant: string,
  q: ListQuery,
): Promise<ListPage | undefined> {
  const { rows: t, metadata: meta } = INDEX_SQL_TABLES[table]
  const where: string[] = ['r.merchant_id = ?']
  const binds: unknown[] = []
  let join = ''
  if (q.metadata) {
    join = ` JOIN ${meta} m ON m.merchant_id = r.merchant_id AND m.object_id = r.id AND m.key = ? AND m.value = ?`
    binds.push(q.metadata[0], q.metadata[1])
  }
  binds.push(merchant)
  if (q.status !== undefined) {
    where.push('r.status = ?')
    binds.push(q.status)
  }
  if (q.createdGte !== undefined) {
    where.push('r.created_at >= ?')
    binds.push(q.createdGte)
  }
  if (q.createdLt !== undefined) {
    where.push('r.created_at < ?')
    binds.push(q.createdLt)
  }
  if (q.order !== undefined) {
    where.push('r.merchant_transaction_id = ?')
    binds.push(q.order)
  }
  if (q.email !== undefined) {
    where.push('r.email = ?')
    binds.push(q.email)
  }
  if (q.amount !== undefined) {
    // A payment captured in part is found by the amount taken too, which is what the console shows
    // (a generated column with its own index: migrations/0005).
    if (table === 'payments') {
      where.push('(r.amount = ? OR r.amount_captured = ?)')
      binds.push(q.amount, q.amount)
    } else {
      where.push('r.amount = ?')
      binds.push(q.amount)
    }
  }
  // A support agent's search: a column generated from the row's view, with its index.
  if (q.last4 !== undefined) {
    where.push('r.card_last4 = ?')
    binds.push(q.last4)
  }
  // Rare, so read from the row's view rather than given a column and an index of its own.
  if (q.needsAttention) where.push("json_extract(r.data, '$.needsAttention') = 1")
  if (q.startingAfter !== undefined) {
    const cursor = await db
      .prepare(`SELECT created_at FROM ${t} WHERE id = ? AND merchant_id = ?`)
      .bind(q.startingAfter, merchant)
      .first<{ created_at: number }>()
    if (!cursor) return undefined
    where.push('(r.created_at < ? OR (r.created_at = ? AND r.id < ?))')
    binds.push(cursor.created_at, cursor.created_at, q.startingAfter)
  }
  const sql = `SELECT r.data FROM ${t} r${join} WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.id DESC LIMIT ?`
  const rows = await db
    .prepare(sql)
    .bind(...binds, q.limit + 1)
    .all<{ data: string }>()
  const data = rows.results.slice(0, q.limit).map((r) => JSON.parse(r.data) as unknown)
  return { object: 'list', data, has_more: rows.results.length > q.limit }
}
