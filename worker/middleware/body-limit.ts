/**
 * @module
 * Caps every request body before anything reads it (SECURITY.md R24): a `Content-Length` over the
 * limit is refused without reading a byte, and a body without one (chunked, streamed) is counted
 * as it arrives and refused as soon as it passes the limit, so no route ever buffers more than
 * `maxBytes`. The answer is 413 in the one error shape (`payload_too_large`). Hono's `bodyLimit`
 * does the counting; this file only gives it the project's answer and the default limit.
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ApiError } from '../errors.ts'

/** The largest body any route takes: pay bodies, session creation and gateway notifications are a few KB. */
export const MAX_BODY_BYTES = 16 * 1024

export function limitBody(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`)
    },
  })
}
