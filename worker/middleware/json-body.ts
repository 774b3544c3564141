/**
 * @module
 * Reads a JSON object body, or ends the request with the one error shape. Bodies are small: the
 * app-wide `limitBody` (body-limit.ts) has already refused anything over 16 KB by Content-Length or
 * while streaming, before this reads it (SECURITY.md R24); the check here is a second line.
 */
import type { MiddlewareHandler } from 'hono'
import { errorResponse } from '../errors.ts'
import { MAX_BODY_BYTES } from './body-limit.ts'

export interface JsonBodyVariables {
  body: Record<string, unknown>
}

export function jsonBody(): MiddlewareHandler<{ Variables: JsonBodyVariables }> {
  return async function jsonBody(c, next) {
    const type = c.req.header('Content-Type') ?? ''
    const text = await c.req.text()
    let body: unknown = {}
    if (new TextEncoder().encode(text).byteLength > MAX_BODY_BYTES) return errorResponse(c, 'payload_too_large', 'The request body is too large.')
    if (text.trim() !== '') {
      if (!/^application\/json\b/i.test(type)) return errorResponse(c, 'invalid_request', 'Send the body as application/json.', [{ field: 'Content-Type', code: 'invalid_value', expected: 'application/json' }])
      try {
        body = JSON.parse(text)
      } catch {
        return errorResponse(c, 'invalid_request', 'The body is not valid JSON.')
      }
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return errorResponse(c, 'invalid_request', 'The body must be a JSON object.')
    c.set('body', body as Record<string, unknown>)
    await next()
  }
}
