/**
 * @module
 * The pay-checkout Worker: a signing proxy between the `<pay-checkout>` widget, the merchant's
 * server and the gateway. It holds the secure key and AuthToken, validates every request and
 * computes the checksums; the browser never sees a secret.
 */
import { Hono } from 'hono'
import type { Env } from './env.ts'

const app = new Hono<{ Bindings: Env }>()

/** Liveness, and which gateway this deployment talks to (its origin only, never credentials). */
app.get('/healthz', (c) => {
  const gateway = new URL(c.env.GATEWAY_BASE_URL)
  return c.json({ ok: true, gateway: gateway.origin })
})

export default app
