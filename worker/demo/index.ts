/**
 * @module
 * The demo shop Worker (`pay-checkout-demo`, development only, never deployed): its own Worker so
 * the product Worker's bundle holds no demo code.
 *
 * It owns the public development port (127.0.0.1:8787): /demo/* is the shop, and every other path
 * is forwarded unchanged to the product Worker (PRODUCT_URL, 127.0.0.1:8790 under `npm start`).
 * So the shop, the widget, the card frame and the product's routes share one origin, which is the
 * product's PUBLIC_BASE_URL: notification and 3-D Secure return URLs come back through here, the
 * frame's origin is the one the shop's sessions allow, and the README's URLs work as written.
 * Plain HTTP rather than a service binding: bindings between separate `wrangler dev` processes
 * go through a dev registry shared by every wrangler on the machine, where parallel test stacks
 * with the same Worker names would reach each other's Workers.
 */
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { DemoEnv } from './env.ts'
import { demoApp } from './routes.ts'

export { DemoShop } from './shop.ts'

const app = new Hono<{ Bindings: DemoEnv }>()

/**
 * The shop's own routes read whole bodies (JSON, the webhook's raw text): they are capped before
 * anything reads them, with Hono's `bodyLimit` and the product's 413 answer (SECURITY.md R24). The
 * cap is above the product's 16 KB because a webhook carries a whole session, which that much
 * input can make. Forwarded paths stream through unread; the product Worker caps them itself.
 */
const DEMO_MAX_BODY_BYTES = 64 * 1024

app.use(
  '/demo/*',
  bodyLimit({
    maxSize: DEMO_MAX_BODY_BYTES,
    onError: (c) =>
      c.json(
        {
          error: {
            code: 'payload_too_large',
            message: `The request body is larger than ${DEMO_MAX_BODY_BYTES} bytes.`,
          },
        },
        413,
      ),
  }),
)
app.get('/demo', (c) => c.redirect('/demo/'))
app.route('/', demoApp)

// Everything outside /demo/ is the product Worker's: method, headers (Origin, Authorization,
// CF-Connecting-IP), body and redirects pass through as they are.
app.all('*', async (c) => {
  const url = new URL(c.req.url)
  // The path and query are set on the product's address, never resolved against it: a path that
  // begins with `//` would name another host, which would get the visitor's cookies.
  const target = new URL(c.env.PRODUCT_URL)
  target.pathname = url.pathname
  target.search = url.search
  const req = c.req.raw
  const res = await fetch(target, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' })
  // The runtime's fetch asks the product for br or gzip whatever the client accepts, and would
  // pass the encoded bytes on as they are, to clients (curl) that asked for none: read the body
  // decoded and answer it without the encoding.
  if (!res.headers.has('Content-Encoding')) return res
  const headers = new Headers(res.headers)
  headers.delete('Content-Encoding')
  headers.delete('Content-Length')
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
})

export default app
