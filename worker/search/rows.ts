/**
 * @module
 * The search index in D1: one row per payment and per session, written from the objects' outbox
 * after each of their changes (an `index` job, retried until it lands; a payment's first row by
 * whatever opened it, once its record is open: payments/opening.ts), so a crash between the
 * change and the write never leaves the index behind for good. Each row carries the change number
 * (`seq`): an older write arriving late never overwrites a newer one, and a repeated write changes
 * nothing. The row holds the object's view as it was at that change (`data`), so a listing answers
 * from D1 alone; the Durable Object stays the source of truth (GET of one id reads the object).
 */
import type { Metadata } from '../sessions/metadata.ts'
import type { Job } from '../outbox/jobs.ts'
import type { PaymentRecord } from '../payments/types.ts'
import { paymentView } from '../payments/status.ts'
import { merchantView } from '../checkout/merchant-view.ts'
import type { SessionRecord } from '../sessions/types.ts'

export const INDEX_TABLES = ['payments', 'sessions', 'operations'] as const
export type IndexTable = (typeof INDEX_TABLES)[number]

/** Each table and its metadata table (fixed names: never built from input). */
export const INDEX_SQL_TABLES: Readonly<Record<IndexTable, { readonly rows: string; readonly metadata: string }>> = {
  payments: { rows: 'payments', metadata: 'payment_metadata' },
  sessions: { rows: 'sessions', metadata: 'session_metadata' },
  operations: { rows: 'operations', metadata: 'operation_metadata' },
}

export interface IndexRow {
  readonly table: IndexTable
  readonly id: string
  readonly status: string
  readonly merchantTransactionId: string
  readonly sessionId: string | null
  readonly email: string | null
  readonly amount: string
  readonly currency: string
  readonly createdAt: number
  readonly updatedAt: number
  readonly seq: number
  readonly metadata: Metadata
  readonly data: unknown
}

export function paymentIndexJob(p: PaymentRecord): Job {
  const view = paymentView(p)
  return {
    kind: 'index',
    row: {
      table: 'payments',
      id: p.paymentId,
      status: view.status,
      merchantTransactionId: p.merchantTransactionId,
      sessionId: p.sessionId,
      email: p.email?.toLowerCase() ?? null,
      amount: p.amount,
      currency: p.currency,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
      seq: p.seq,
      metadata: p.metadata,
      data: view,
    },
  }
}

export function sessionIndexJob(s: SessionRecord): Job {
  return {
    kind: 'index',
    row: {
      table: 'sessions',
      id: s.id,
      status: s.status,
      merchantTransactionId: s.merchantTransactionId,
      sessionId: s.id,
      email: s.customer?.email?.toLowerCase() ?? null,
      amount: s.amount,
      currency: s.currency,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      seq: s.seq,
      metadata: s.metadata ?? {},
      data: merchantView(s),
    },
  }
}

/**
 * A merchant operation's row: its view as `GET /v1/operations/{id}` shows it, listed by status
 * and by `needs_attention`. What it moves: the repeat's sum, or the invoice's once known.
 */
export function operationIndexJob(
  view: Record<string, unknown> & { readonly id: string; readonly status: string },
  op: {
    readonly createdAt: number
    readonly seq: number
    readonly params: {
      readonly kind: string
      readonly amount?: string
      readonly currency?: string
      readonly merchantTransactionId?: string
      readonly merchantInvoiceId?: string
      readonly metadata?: Metadata
    }
    readonly invoice?: { readonly amount: string; readonly currency: string }
  },
): Job {
  const p = op.params
  return {
    kind: 'index',
    row: {
      table: 'operations',
      id: view.id,
      status: view.status,
      merchantTransactionId: p.merchantTransactionId ?? p.merchantInvoiceId ?? '',
      sessionId: null,
      email: null,
      amount: p.amount ?? op.invoice?.amount ?? '',
      currency: p.currency ?? op.invoice?.currency ?? '',
      createdAt: op.createdAt,
      updatedAt: Date.now(),
      seq: op.seq,
      metadata: p.metadata ?? {},
      data: view,
    },
  }
}

/**
 * Writes a row of `merchant`'s unless the index holds a newer change of it already; metadata
 * pairs with it. Rows and pairs are keyed by merchant and id: another merchant's object with the
 * same id (a payment id another gateway member was given) is a row of its own, never this one.
 */
export async function upsertIndexRow(db: D1Database, row: IndexRow, merchant: string): Promise<void> {
  const { rows: table, metadata: meta } = INDEX_SQL_TABLES[row.table]
  const upsert = db
    .prepare(
      `INSERT INTO ${table} (id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
       ON CONFLICT (merchant_id, id) DO UPDATE SET status = excluded.status, session_id = excluded.session_id, email = excluded.email,
         updated_at = excluded.updated_at, seq = excluded.seq, data = excluded.data
       WHERE excluded.seq > ${table}.seq`,
    )
    .bind(
      row.id,
      row.status,
      row.merchantTransactionId,
      row.sessionId,
      row.email,
      row.amount,
      row.currency,
      row.createdAt,
      row.updatedAt,
      row.seq,
      JSON.stringify(row.data),
      merchant,
    )
  // Metadata is fixed when the session is created: its pairs are written once.
  const pairs = Object.entries(row.metadata).map(([k, v]) =>
    db
      .prepare(`INSERT OR IGNORE INTO ${meta} (merchant_id, object_id, key, value) VALUES (?1, ?2, ?3, ?4)`)
      .bind(merchant, row.id, k, v),
  )
  await db.batch([upsert, ...pairs])
}
