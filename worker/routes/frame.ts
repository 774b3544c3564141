/**
 * @module
 * The card frame (`/frame/{sessionId}`): a page on the Worker's origin that holds the card form
 * (rendered here: `worker/frame/page.ts`), so the merchant's page never holds card data. Strict CSP:
 * this origin's scripts and the page's stub by its hash, the page's own style sheets by hash, no
 * other inline code, fetches to this origin only, and `frame-ancestors` = the session's allowed origins
 * (SECURITY.md R20), from the frame token in the address (`t`) when it verifies, else read from the
 * session. The session id is not secret; the client secret arrives by postMessage. Without a
 * token, the page is the same for every id, known or not (R21); a token, which only this Worker
 * can sign, may also leave out the customer's inputs its session does not need.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { SESSION_ID } from '../ids.ts'
import { sessionStub } from '../middleware/browser-access.ts'
import { effectiveOrigins } from '../access.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'
import { framePage, pageHashes } from '../frame/page.ts'
import { frameTokenClaims } from '../frame/token.ts'

export const frame = new Hono<{ Bindings: Env }>()

async function lookUpOrigins(env: Env, id: string): Promise<readonly string[]> {
  const access = SESSION_ID.test(id) ? await sessionStub(env, id).access(undefined) : undefined
  return effectiveOrigins(access?.origins ?? [], access ? await merchantEnv(env, access.merchant) : env)
}

frame.get(
  '/:id',
  describeRoute({
    summary:
      'The card frame page (HTML) the element embeds in frame mode; the same page for every id, but for the inputs a frame token leaves out',
    operationId: 'getCardFrame',
    responses: { '200': { description: 'HTML' } },
  }),
  async (c) => {
    const id = c.req.param('id')
    const [signed, hashes] = await Promise.all([frameTokenClaims(c.env, id, c.req.query('t')), pageHashes()])
    // The session's origins as its creation signed them (frame/token.ts); without a token that
    // verifies, read from the session. An unknown id is answered as a session that names no origins
    // of its own: the deployment's ALLOWED_ORIGINS. Only the CSP header is per session, and only for
    // sessions with their own list (and, with a token, the inputs it leaves out of the form). A
    // session's origins fall back to its merchant's (a profile's).
    const origins = signed?.origins ?? (await lookUpOrigins(c.env, id))
    const gateway = new URL(c.env.GATEWAY_BASE_URL).origin
    c.header(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        `script-src 'self' ${hashes.stub}`,
        `style-src 'self' ${hashes.styles.join(' ')}`,
        "connect-src 'self'",
        "img-src 'self' data:",
        `form-action ${gateway}`,
        "base-uri 'none'",
        `frame-ancestors ${origins.length > 0 ? origins.join(' ') : "'none'"}`,
      ].join('; '),
    )
    c.header('Referrer-Policy', 'strict-origin')
    c.header('Cache-Control', 'no-store')
    // Locale, theme and the shipping choice as the element sent them (nothing secret), and the
    // customer's inputs the merchant gave as the token says them: the form is final. Without a
    // token it asks for all of them, whatever the session holds (R21), and the frame's script
    // takes out those the session does not need once it has read it.
    return c.html(
      framePage({
        locale: c.req.query('locale'),
        theme: c.req.query('theme'),
        shipping: c.req.query('shipping') === '1',
        prefilled: signed?.prefilled ?? [],
      }),
    )
  },
)
