/**
 * @module
 * The card frame (`/frame/{sessionId}`): a page on the Worker's origin that runs the card form, so
 * the merchant's page never holds card data. Strict CSP: only this origin's scripts and styles, no
 * inline code, fetches to this origin only, and `frame-ancestors` = the session's allowed origins
 * (SECURITY.md R20). The session id is not secret; the client secret arrives by postMessage. The
 * page is the same for every id, known or not (R21).
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { SESSION_ID } from '../ids.ts'
import { sessionStub } from '../middleware/browser-access.ts'
import { effectiveOrigins } from '../access.ts'
import { framePage } from './frame-page.ts'

export const frame = new Hono<{ Bindings: Env }>()

frame.get(
  '/:id',
  describeRoute({
    summary: 'The card frame page (HTML) the element embeds in frame mode; the same page for every id',
    operationId: 'getCardFrame',
    responses: { '200': { description: 'HTML' } },
  }),
  async (c) => {
    const id = c.req.param('id')
    // An unknown id is answered as a session that names no origins of its own: the deployment's
    // ALLOWED_ORIGINS. Only the CSP header is per session, and only for sessions with their own list.
    const sessionOrigins = SESSION_ID.test(id) ? ((await sessionStub(c.env, id).access(undefined))?.origins ?? []) : []
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
    // The locale as the element sent it (`pt-BR`, `de-AT`): the page resolves it as the element does.
    return c.html(framePage(c.req.query('locale')))
  },
)
