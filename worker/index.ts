/**
 * @module
 * The pay-checkout Worker: a signing proxy between the `<pay-checkout>` widget, the merchant's
 * server and the gateway. It holds the secure key and AuthToken, validates every request and
 * computes the checksums; the browser never sees a secret.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from './env.ts'
import { errorResponse, onError } from './errors.ts'
import { limitBody } from './middleware/body-limit.ts'
import { rateLimit } from './middleware/rate-limit.ts'
import { checkout } from './routes/checkout.ts'
import { consolePageRoute, consoleRoutes } from './routes/console.ts'
import { frame } from './routes/frame.ts'
import { gateway } from './routes/gateway.ts'
import { health } from './routes/health.ts'
import { invoices } from './routes/invoices.ts'
import { openApiDocument } from './routes/openapi.ts'
import { operations } from './routes/operation-status.ts'
import { payments } from './routes/payments.ts'
import { platform } from './routes/platform.ts'
import { registrations } from './routes/registrations.ts'
import { reports } from './routes/reports.ts'
import { money } from './routes/money.ts'
import { paymentSearch, sessionSearch } from './routes/search.ts'
import { sessions } from './routes/sessions.ts'
import { webhooks } from './routes/webhooks.ts'
import { sweep } from './retention/sweep.ts'

export { CardVelocity } from './guards/card-velocity.ts'
export { CheckoutSession } from './checkout/checkout-session.ts'
export { MerchantOperation } from './sessions/merchant-operation.ts'
export { OrderRegistry } from './guards/order-registry.ts'
export { PaymentObject } from './payments/payment-object.ts'
export { RegistrationObject } from './registrations/registration-object.ts'
export { DeclineBreaker } from './guards/decline-breaker.ts'
export { TokenKeeper } from './gateway/token-keeper.ts'

const app = new Hono<{ Bindings: Env }>()

// Every body is capped before a route reads it: 413 by Content-Length or while streaming (R24).
app.use('*', limitBody())
// Request rates across isolates (Rate Limiting bindings): per client address, per merchant key (R23).
// The shopper's return and the card frame read the session too (a return can start a gateway inquiry).
for (const path of ['/v1/checkout/*', '/v1/return/*', '/frame/*']) app.use(path, rateLimit('browser'))
for (const path of [
  '/v1/sessions/*',
  '/v1/payments/*',
  '/v1/invoices/*',
  '/v1/registrations/*',
  '/v1/operations/*',
  '/v1/webhooks/*',
  '/v1/reports/*',
  '/v1/platform/*',
  // A console sign-in with a key is counted like a merchant call: a guesser runs into the limit.
  '/console/*',
])
  app.use(path, rateLimit('merchant'))
// /healthz checks a key when one is sent or the deep check is asked: counted like /v1/* (a guesser
// runs into the limit); the plain liveness answer of a monitor is not.
app.use('/healthz', (c, next) =>
  c.req.query('deep') !== undefined || c.req.header('Authorization') !== undefined
    ? rateLimit('merchant')(c, next)
    : next(),
)

app.route('/healthz', health)
app.get(
  '/openapi.json',
  describeRoute({
    summary: 'This document, generated from the routes and their request schemas',
    operationId: 'getOpenApiDocument',
    responses: { '200': { description: 'OpenAPI 3.1' } },
  }),
  async (c) => c.json(await openApiDocument(app)),
)

app.route('/v1/sessions', sessionSearch)
app.route('/v1/sessions', sessions)
app.route('/v1/payments', paymentSearch)
app.route('/v1/payments', money)
app.route('/v1/payments', payments)
app.route('/v1/invoices', invoices)
app.route('/v1/registrations', registrations)
app.route('/v1/operations', operations)
app.route('/v1/webhooks', webhooks)
app.route('/v1/reports', reports)
app.route('/v1/platform', platform)
app.route('/v1/checkout', checkout)
app.route('/v1', gateway)
app.route('/frame', frame)
app.route('/', consolePageRoute)
app.route('/console', consoleRoutes)

app.notFound((c) => errorResponse(c, 'not_found', 'No such route.'))
app.onError(onError)

/**
 * The daily Cron Trigger (wrangler.toml `[triggers]`): the retention policy's sweep
 * (worker/retention/sweep.ts). `waitUntil` keeps the invocation alive for it.
 */
async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(sweep(env, controller.scheduledTime))
}

export default Object.assign(app, { scheduled })
