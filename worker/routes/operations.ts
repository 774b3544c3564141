/**
 * @module
 * What the merchant's idempotent server routes share: the key's grammar, the operation object
 * for a key, and sending its reply on.
 */
import type { Context } from 'hono'
import type { FieldError } from '../../shared/errors.ts'
import type { Env } from '../env.ts'
import { statusOf } from '../errors.ts'
import type { MerchantOperation } from '../sessions/merchant-operation.ts'
import type { OrderRegistry } from '../guards/order-registry.ts'
import type { Reply } from '../sessions/reply.ts'

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/

/** At most 64 characters of `[A-Za-z0-9_-]` (SECURITY.md R13); UUIDs fit. */
export function idempotencyKeyOf(header: string | undefined): string | FieldError {
  if (header === undefined) return { field: 'Idempotency-Key', code: 'required', expected: IDEMPOTENCY_KEY.source }
  return IDEMPOTENCY_KEY.test(header) ? header : { field: 'Idempotency-Key', code: 'format', expected: IDEMPOTENCY_KEY.source }
}

export function operationStub(env: Env, name: string): DurableObjectStub<MerchantOperation> {
  return env.OPERATIONS.get(env.OPERATIONS.idFromName(name))
}

/** An operation's public id: `op_` and its Durable Object id (64 hex). */
export const OPERATION_ID = /^op_([0-9a-f]{64})$/

/**
 * The operation an `op_...` id names, or undefined when it names none of this namespace: a
 * malformed id, or 64 hex digits that are not an id of this namespace (idFromString throws on
 * those), is "no such operation" before any Durable Object is called.
 */
export function operationStubById(env: Env, id: string): DurableObjectStub<MerchantOperation> | undefined {
  const hex = OPERATION_ID.exec(id)?.[1]
  if (!hex) return undefined
  try {
    return env.OPERATIONS.get(env.OPERATIONS.idFromString(hex))
  } catch {
    return undefined
  }
}

/** The registry object holding a unique name (`order:...`, `key:...`). */
export function registry(env: Env, name: string): DurableObjectStub<OrderRegistry> {
  return env.ORDERS.get(env.ORDERS.idFromName(name))
}

/** A Durable Object's typed result as the HTTP answer: the route owns the status. */
export function sendReply(c: Context, reply: Reply, successStatus: 200 | 201 = 200): Response {
  if (reply.replayed) c.header('Idempotent-Replayed', 'true')
  return reply.ok ? c.json(reply.body as object, successStatus) : c.json({ error: reply.error }, statusOf(reply.error.code))
}
