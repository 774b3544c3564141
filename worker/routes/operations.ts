/**
 * @module
 * What the merchant's idempotent server routes share: the operation object for a key, and the
 * registry of unique names (the key's grammar is schemas/idempotency-key.ts; sending a Durable
 * Object's reply, respond.ts).
 */
import type { Env } from '../env.ts'
import type { MerchantOperation } from '../sessions/merchant-operation.ts'
import type { OrderRegistry } from '../guards/order-registry.ts'
import { placement } from '../placement.ts'
import { scoped } from '../merchants/merchant-env.ts'

export function operationStub(env: Env, name: string): DurableObjectStub<MerchantOperation> {
  return env.OPERATIONS.get(env.OPERATIONS.idFromName(scoped(env, name)), placement(env))
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

/** The registry object holding a unique name (`order:...`, `key:...`; `scoped` per merchant by the caller). */
export function registry(env: Env, name: string): DurableObjectStub<OrderRegistry> {
  return env.ORDERS.get(env.ORDERS.idFromName(name))
}
