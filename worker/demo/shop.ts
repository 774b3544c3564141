/**
 * @module
 * The demo shop's memory, as a merchant's backend would keep it: the sessions it created, the
 * references it owns, and the webhooks it received. Everything is read per visitor (the cookie id
 * from visitor.ts); a webhook is shown to the visitor who owns its session or repeat.
 */
import { DurableObject } from 'cloudflare:workers'
import type { DemoEnv } from './env.ts'

export interface DemoOrder {
  readonly sessionId: string
  readonly kind: string
  readonly createdAt: string
}

export interface ReceivedWebhook {
  readonly id: string
  readonly type: string
  readonly receivedAt: string
  readonly verified: boolean
  readonly data: Record<string, unknown>
}

/** Rows shown per visitor; the demo is for trying flows, not for keeping history. */
const SHOWN = 100

export class DemoShop extends DurableObject<DemoEnv> {
  constructor(ctx: DurableObjectState, env: DemoEnv) {
    super(ctx, env)
    const sql = ctx.storage.sql
    // refs: what a visitor owns (session ids, repeat references); webhooks join on them, so one
    // that arrives before its reference is recorded is still shown once it is.
    sql.exec(
      `CREATE TABLE IF NOT EXISTS orders (session_id TEXT PRIMARY KEY, visitor TEXT NOT NULL, kind TEXT NOT NULL, created_at TEXT NOT NULL)`,
    )
    sql.exec(`CREATE INDEX IF NOT EXISTS orders_by_visitor ON orders (visitor, created_at)`)
    sql.exec(`CREATE TABLE IF NOT EXISTS refs (ref TEXT PRIMARY KEY, visitor TEXT NOT NULL)`)
    sql.exec(
      `CREATE TABLE IF NOT EXISTS webhooks (id TEXT PRIMARY KEY, ref TEXT, type TEXT NOT NULL, received_at TEXT NOT NULL, data TEXT NOT NULL)`,
    )
  }

  addOrder(visitor: string, order: DemoOrder): void {
    this.ctx.storage.sql.exec(
      'INSERT OR IGNORE INTO orders (session_id, visitor, kind, created_at) VALUES (?, ?, ?, ?)',
      order.sessionId,
      visitor,
      order.kind,
      order.createdAt,
    )
    this.addRef(visitor, order.sessionId)
  }

  /** Records that `ref` (a session id, a repeat's merchantTransactionId) belongs to `visitor`; first owner wins. */
  addRef(visitor: string, ref: string): void {
    this.ctx.storage.sql.exec('INSERT OR IGNORE INTO refs (ref, visitor) VALUES (?, ?)', ref, visitor)
  }

  /** The visitor's order for `sessionId`, if it is theirs. */
  order(visitor: string, sessionId: string): DemoOrder | undefined {
    const row = this.ctx.storage.sql
      .exec<{ session_id: string; kind: string; created_at: string }>(
        'SELECT session_id, kind, created_at FROM orders WHERE visitor = ? AND session_id = ?',
        visitor,
        sessionId,
      )
      .toArray()[0]
    return row && { sessionId: row.session_id, kind: row.kind, createdAt: row.created_at }
  }

  orders(visitor: string): DemoOrder[] {
    return this.ctx.storage.sql
      .exec<{ session_id: string; kind: string; created_at: string }>(
        'SELECT session_id, kind, created_at FROM orders WHERE visitor = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
        visitor,
        SHOWN,
      )
      .toArray()
      .map((r) => ({ sessionId: r.session_id, kind: r.kind, createdAt: r.created_at }))
  }

  /** Stores a verified webhook once per event id (at-least-once delivery, processed once). */
  addWebhook(ref: string | undefined, hook: ReceivedWebhook): boolean {
    const cursor = this.ctx.storage.sql.exec(
      'INSERT OR IGNORE INTO webhooks (id, ref, type, received_at, data) VALUES (?, ?, ?, ?, ?)',
      hook.id,
      ref ?? null,
      hook.type,
      hook.receivedAt,
      JSON.stringify(hook.data),
    )
    return cursor.rowsWritten > 0
  }

  webhooks(visitor: string): ReceivedWebhook[] {
    return this.ctx.storage.sql
      .exec<{ id: string; type: string; received_at: string; data: string }>(
        'SELECT w.id, w.type, w.received_at, w.data FROM webhooks w JOIN refs r ON r.ref = w.ref WHERE r.visitor = ? ORDER BY w.received_at DESC, w.rowid DESC LIMIT ?',
        visitor,
        SHOWN,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        type: r.type,
        receivedAt: r.received_at,
        verified: true,
        data: JSON.parse(r.data) as Record<string, unknown>,
      }))
  }
}
