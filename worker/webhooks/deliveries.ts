/**
 * @module
 * The record of webhook deliveries (D1 `webhook_deliveries`): what the console shows as "pending",
 * "delivered", "failing, next try at…", and where "send again" goes. The object whose outbox holds
 * an event (worker/sessions/tasked-object.ts) writes its row when the event is queued and after
 * each try, through outbox jobs: the record follows the delivery even if the object is evicted
 * right after, and the delivery never waits on D1. A row names its object (`owner`), holds ids and
 * the delivery's state, never the event's body: the outbox has it while the event waits.
 *
 * Sending again is for an event that waits (pending or failing): it is tried at once, in its place.
 * A delivered event is not sent again: receivers keep the ids they have seen only so long
 * (README, "Webhooks to the merchant"), and a second delivery days later would be processed again.
 */
import { EVENT_TYPES, type EventType } from '../../shared/webhooks/events.ts'
import type { WebhookEvent } from '../../shared/webhooks/sign.ts'
import type { Env } from '../env.ts'
import type { TaskedObject } from '../sessions/tasked-object.ts'

/** The objects with an outbox, by their binding: where a send-again finds an event's owner. */
export const OWNER_BINDINGS = ['SESSIONS', 'OPERATIONS', 'PAYMENTS', 'REGISTRATIONS', 'BREAKER'] as const
export type OwnerBinding = (typeof OWNER_BINDINGS)[number]

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failing'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export interface DeliveryRow {
  readonly eventId: string
  readonly type: string
  readonly sessionId: string | null
  readonly paymentId: string | null
  readonly status: DeliveryStatus
  readonly tries: number
  /** The HTTP status of the last try (null: no answer, or not tried yet). */
  readonly lastStatus: number | null
  /** When the next try is due (ms), while it is not delivered. */
  readonly nextAt: number | null
  /** When the event was queued (ms). */
  readonly createdAt: number
  /** When this state was reached (ms): a late write of an older state changes nothing. */
  readonly version: number
  /** `BINDING:hex id` of the object whose outbox holds the event. */
  readonly owner: string
}

/** What the event is about, as the console links it: its session and its payment. */
export function deliveryLinks(event: WebhookEvent): { sessionId: string | null; paymentId: string | null } {
  const about = EVENT_TYPES[event.type as EventType]?.about
  const data = event.data
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
  // An event about a session or a payment names it by `id`, else (an invoice regenerated, about
  // its session) by `sessionId` or `paymentId`.
  return {
    sessionId: (about === 'session' ? text(data.id) : null) ?? text(data.sessionId),
    paymentId: (about === 'payment' ? text(data.id) : null) ?? text(data.paymentId),
  }
}

/** Writes a delivery's row of `merchant`'s unless a newer state of it is there already. */
export async function upsertDelivery(db: D1Database, row: DeliveryRow, merchant: string): Promise<void> {
  await db
    .prepare(
      `INSERT INTO webhook_deliveries (merchant_id, event_id, type, session_id, payment_id, status, tries, last_status, next_at, created_at, version, owner)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
       ON CONFLICT (merchant_id, event_id) DO UPDATE SET status = excluded.status, tries = excluded.tries,
         last_status = excluded.last_status, next_at = excluded.next_at, version = excluded.version
       WHERE excluded.version > webhook_deliveries.version`,
    )
    .bind(
      merchant,
      row.eventId,
      row.type,
      row.sessionId,
      row.paymentId,
      row.status,
      row.tries,
      row.lastStatus,
      row.nextAt,
      row.createdAt,
      row.version,
      row.owner,
    )
    .run()
}

/** A delivery as the API shows it. */
export interface DeliveryView {
  readonly object: 'webhook_delivery'
  readonly id: string
  readonly type: string
  readonly sessionId: string | null
  readonly paymentId: string | null
  readonly status: DeliveryStatus
  readonly tries: number
  readonly lastStatus: number | null
  readonly nextRetryAt: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

interface Stored {
  event_id: string
  type: string
  session_id: string | null
  payment_id: string | null
  status: DeliveryStatus
  tries: number
  last_status: number | null
  next_at: number | null
  created_at: number
  version: number
}

const COLUMNS = 'event_id, type, session_id, payment_id, status, tries, last_status, next_at, created_at, version'

const viewOf = (r: Stored): DeliveryView => ({
  object: 'webhook_delivery',
  id: r.event_id,
  type: r.type,
  sessionId: r.session_id,
  paymentId: r.payment_id,
  status: r.status,
  tries: r.tries,
  lastStatus: r.last_status,
  nextRetryAt: r.status === 'delivered' || r.next_at === null ? null : new Date(r.next_at).toISOString(),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.version).toISOString(),
})

export interface DeliveryQuery {
  readonly status?: DeliveryStatus
  readonly paymentId?: string
  readonly sessionId?: string
  readonly limit: number
  readonly startingAfter?: string
}

/** A page of `merchant`'s deliveries, newest first; undefined for a cursor that names none of them. */
export async function listDeliveries(
  db: D1Database,
  merchant: string,
  q: DeliveryQuery,
): Promise<{ object: 'list'; data: DeliveryView[]; has_more: boolean } | undefined> {
  const where = ['merchant_id = ?']
  const binds: unknown[] = [merchant]
  if (q.status !== undefined) {
    where.push('status = ?')
    binds.push(q.status)
  }
  // A payment's events and its session's, as one story: the console's payment page asks for both.
  if (q.paymentId !== undefined && q.sessionId !== undefined) {
    where.push('(payment_id = ? OR session_id = ?)')
    binds.push(q.paymentId, q.sessionId)
  } else if (q.paymentId !== undefined) {
    where.push('payment_id = ?')
    binds.push(q.paymentId)
  } else if (q.sessionId !== undefined) {
    where.push('session_id = ?')
    binds.push(q.sessionId)
  }
  if (q.startingAfter !== undefined) {
    const cursor = await db
      .prepare('SELECT created_at FROM webhook_deliveries WHERE merchant_id = ? AND event_id = ?')
      .bind(merchant, q.startingAfter)
      .first<{ created_at: number }>()
    if (!cursor) return undefined
    where.push('(created_at < ? OR (created_at = ? AND event_id < ?))')
    binds.push(cursor.created_at, cursor.created_at, q.startingAfter)
  }
  const rows = await db
    .prepare(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, event_id DESC LIMIT ?`,
    )
    .bind(...binds, q.limit + 1)
    .all<Stored>()
  return {
    object: 'list',
    data: rows.results.slice(0, q.limit).map(viewOf),
    has_more: rows.results.length > q.limit,
  }
}

/** What a send-again did: queued to be tried now, the event was delivered already, or no such event of the merchant's. */
export type SendAgain =
  { readonly kind: 'queued'; readonly view: DeliveryView } | { readonly kind: 'delivered' | 'not_found' }

/**
 * Asks the object holding `merchant`'s event `eventId` to try it now, if it still waits. The
 * object answers for itself: it checks that it is the merchant's and that the event is in its
 * outbox (a row may outlive its object, or say "failing" a moment after the event went through).
 */
export async function sendAgain(env: Env, merchant: string, eventId: string): Promise<SendAgain> {
  const row = await env.DB.prepare(
    `SELECT ${COLUMNS}, owner FROM webhook_deliveries WHERE merchant_id = ? AND event_id = ?`,
  )
    .bind(merchant, eventId)
    .first<Stored & { owner: string }>()
  if (!row) return { kind: 'not_found' }
  const [binding, hex] = row.owner.split(':') as [OwnerBinding, string | undefined]
  if (!OWNER_BINDINGS.includes(binding) || !hex) return { kind: 'not_found' }
  const namespace = env[binding] as unknown as DurableObjectNamespace<TaskedObject>
  const tried = await namespace.get(namespace.idFromString(hex)).sendAgain(merchant, eventId)
  // An object gone after its retention knows nothing; its row still says whether the event went.
  if (tried !== 'queued')
    return { kind: tried === 'not_waiting' || row.status === 'delivered' ? 'delivered' : 'not_found' }
  return { kind: 'queued', view: viewOf({ ...row, status: 'pending', next_at: Date.now(), version: Date.now() }) }
}
