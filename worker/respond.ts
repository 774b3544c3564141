/**
 * @module
 * How the HTTP edge answers a Durable Object: its typed result (`Reply`) as a response, with the
 * status its error code has (errors.ts) or the route's own for a success. Refusals the edge makes
 * itself are thrown (`ApiError`) and answered by `onError`.
 */
import type { Context } from 'hono'
import { statusOf } from './errors.ts'
import type { Reply } from './reply.ts'

type SuccessStatus = 200 | 201 | 202

/**
 * A Durable Object's typed result as the HTTP answer: the route owns the status of a success (a
 * number, or one read from the body: 202 for what the gateway has not settled yet); an error has
 * the status of its code.
 */
export function sendReply(
  c: Context,
  reply: Reply,
  success: SuccessStatus | ((body: unknown) => SuccessStatus) = 200,
): Response {
  if (reply.replayed) c.header('Idempotent-Replayed', 'true')
  if (!reply.ok) return c.json({ error: reply.error }, statusOf(reply.error.code))
  return c.json(reply.body as object, typeof success === 'function' ? success(reply.body) : success)
}
