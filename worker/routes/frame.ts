/**
 * @module
 * The card frame (`/frame/{sessionId}`): a page on the Worker's origin that runs the card form, so
 * the merchant's page never holds card data. Strict CSP: only this origin's scripts and styles, no
 * inline code, fetches to this origin only, and `frame-ancestors` = the session's allowed origins
 * (SECURITY.md R20). The session id is not secret; the client secret arrives by postMessage.
 */
import { Hono } from 'hono'
import type { Env } from '../env.ts'
import { effectiveOrigins, SESSION_ID, sessionStub } from '../middleware/browser-access.ts'

export const frame = new Hono<{ Bindings: Env }>()

frame.get('/:id', async (c) => {
  const id = c.req.param('id')
  const sessionOrigins = SESSION_ID.test(id) ? (await sessionStub(c.env, id).access(undefined))?.origins : undefined
  if (!sessionOrigins) return c.html('<!doctype html><title>Not found</title><p>No such checkout.</p>', 404)
  const origins = effectiveOrigins(sessionOrigins, c.env)
  const gateway = new URL(c.env.GATEWAY_BASE_URL).origin
  c.header(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      `form-action ${gateway}`,
      "base-uri 'none'",
      `frame-ancestors ${origins.length > 0 ? origins.join(' ') : "'none'"}`,
    ].join('; '),
  )
  c.header('Referrer-Policy', 'strict-origin')
  c.header('Cache-Control', 'no-store')
  // Origins are exact origins (validated at session creation): safe in an attribute.
  return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="pay-allowed-origins" content="${origins.join(' ')}">
<title>Card payment</title>
<script type="module" src="/widget/frame.js"></script></head><body></body></html>`)
})
