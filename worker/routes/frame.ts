/**
 * @module
 * The card frame (`/frame/{sessionId}`): a page on the Worker's origin that runs the card form, so
 * the merchant's page never holds card data. Strict CSP: only this origin's scripts and styles, no
 * inline code, fetches to this origin only, and `frame-ancestors` = the session's allowed origins
 * (SECURITY.md R20). The session id is not secret; the client secret arrives by postMessage. The
 * page is the same for every id, known or not (R21).
 */
import { Hono } from 'hono'
import type { Env } from '../env.ts'
import { FRAME_SCRIPTS, LOCALE_CHUNKS } from '../../widget/card-frame/preload.ts'
import { effectiveOrigins, SESSION_ID, sessionStub } from '../middleware/browser-access.ts'

export const frame = new Hono<{ Bindings: Env }>()

/**
 * One page for every id: it holds nothing of the session (no origins, no amount), so its body says
 * nothing about whether the session exists (SECURITY.md R21). The frame learns its parent from the
 * browser (`location.ancestorOrigins`, else the referrer), which `frame-ancestors` has already
 * held to the allowed origins, and everything else from the API once the parent hands it the
 * client secret. Every script it needs is preloaded at once (`modulepreload`), so the form renders
 * after one parallel round of fetches; the locale's messages too when the URL names a locale.
 */
function framePage(locale: string | undefined): string {
  const lang = locale && LOCALE_CHUNKS.includes(locale) ? locale : 'en'
  const scripts = [...FRAME_SCRIPTS, ...(lang === 'en' ? [] : [`/widget/chunks/${lang}.js`])]
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Card payment</title>
${scripts.map((src) => `<link rel="modulepreload" href="${src}">`).join('\n')}
<script type="module" src="/widget/frame.js"></script></head><body></body></html>`
}

frame.get('/:id', async (c) => {
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
  return c.html(framePage(c.req.query('locale')?.toLowerCase().split('-')[0]))
})
