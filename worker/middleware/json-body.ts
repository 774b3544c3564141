/**
 * @module
 * Reads a JSON object body, or ends the request with the one error shape. Bodies are small: the
 * app-wide `limitBody` (body-limit.ts) has already refused anything over 16 KB by Content-Length or
 * while streaming, before this reads it (SECURITY.md R24); the check here is a second line.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { err, ok, type Result } from '../../shared/result.ts'
import { sendReply } from '../respond.ts'
import { fail, type Reply } from '../reply.ts'
import { MAX_BODY_BYTES } from './body-limit.ts'

export interface JsonBodyVariables {
  body: Record<string, unknown>
}

/** The request's JSON object body, or the refusal to send for it. */
export async function readJsonBody(c: Context): Promise<Result<Record<string, unknown>, Reply>> {
  const type = c.req.header('Content-Type') ?? ''
  const text = await c.req.text()
  let body: unknown = {}
  if (new TextEncoder().encode(text).byteLength > MAX_BODY_BYTES)
    return err(fail('payload_too_large', 'The request body is too large.'))
  if (text.trim() !== '') {
    if (!/^application\/json\b/i.test(type))
      return err(
        fail('invalid_request', 'Send the body as application/json.', [
          { field: 'Content-Type', code: 'invalid_value', expected: 'application/json' },
        ]),
      )
    try {
      body = JSON.parse(text)
    } catch {
      return err(fail('invalid_request', 'The body is not valid JSON.'))
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return err(fail('invalid_request', 'The body must be a JSON object.'))
  return ok(body as Record<string, unknown>)
}

export function jsonBody(): MiddlewareHandler<{ Variables: JsonBodyVariables }> {
  return async function jsonBody(c, next) {
    const body = await readJsonBody(c)
    if (!body.ok) return sendReply(c, body.error)
    c.set('body', body.value)
    await next()
  }
}
