/**
 * @module
 * Browser routes, used by `<pay-checkout>`: read the session, pay by card or saved card, the two
 * QR steps, and invoice regeneration. Amount, currency, merchantTransactionId and payment type
 * come only from the session (SECURITY.md R1).
 */
import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { CheckoutView } from '../../shared/checkout.ts'
import { checkFormat } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import {
  bearerOf,
  browserAccess,
  noSuchCheckout,
  refuseOrigin,
  sessionStub,
  type BrowserAccessVariables,
} from '../middleware/browser-access.ts'
import { SESSION_ID } from '../ids.ts'
import { jsonBody, readJsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { requiredIdempotencyKey, validate } from '../middleware/validate.ts'
import { CHECKOUT_DOCS as DOCS, invoiceRegenerateBody, noFields, RETURN_PAGE_EXPECTED } from '../schemas/checkout.ts'
import { originRefused } from '../access.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'
import type { CheckoutSession } from '../checkout/checkout-session.ts'
import { breakerState, sourceOf, sourcePausedUntil } from '../guards/decline-breaker.ts'
import {
  ADMITTED,
  BOT_CHECK_FAILED,
  paused,
  payInputOf,
  type Admission,
  type PayAnswer,
  type PayRequest,
  pageOn,
} from '../sessions/pay-request.ts'
import { parseQrVerifyBody } from '../schemas/parse.ts'
import { registrationRefusal } from '../registrations/guard.ts'
import { turnstilePasses } from '../turnstile.ts'
import { idempotencyKeyOf } from '../schemas/idempotency-key.ts'
import { sendReply } from '../respond.ts'
import { numberVar } from '../env-vars.ts'

type Ctx = Context<{ Bindings: Env; Variables: BrowserAccessVariables & JsonBodyVariables }>

export const checkout = new Hono<{ Bindings: Env; Variables: BrowserAccessVariables & JsonBodyVariables }>()

// Every browser route but the pay reads the session here first (the pay does it in its one call).
checkout.use('/:id', browserAccess())
checkout.use('/:id/qr/*', browserAccess())
checkout.use('/:id/invoice/*', browserAccess())
const preflight = browserAccess()
checkout.use('/:id/pay', async (c, next) => (c.req.method === 'OPTIONS' ? preflight(c as never, next) : next()))

/** The connecting address, as Cloudflare reports it; never a value from the body. */
function clientIp(c: Ctx): string {
  const ip = c.req.header('CF-Connecting-IP') ?? ''
  return checkFormat('ip', ip) === null ? ip : '127.0.0.1'
}

/** The sandbox gateway (on this machine, or a host named sandbox): the widget shows a "test mode" badge. */
function testMode(env: Env): boolean {
  try {
    const host = new URL(env.GATEWAY_BASE_URL).hostname
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || /(^|[.-])sandbox([.-]|$)/i.test(host)
  } catch {
    return false
  }
}

checkout.get('/:id', describeRoute(DOCS.view), async (c) => {
  const view = await withoutDeletedCard(c.env, c.get('view'), c.get('savedCardRegistration'))
  return c.json({ ...view, testMode: testMode(c.env) })
})

/**
 * A saved card deleted since the session was made is not offered while the shopper may still pay:
 * its pay would be refused (`worker/registrations/guard.ts`). The session's other ways to pay are;
 * without any, the read is refused as that pay would be, and the page says to contact the shop.
 * Once a payment is under way or the session is over, the view is as it was.
 */
async function withoutDeletedCard(
  env: Env,
  view: CheckoutView,
  registrationId: string | undefined,
): Promise<CheckoutView> {
  const payable = view.status === 'open' || (view.status === 'declined' && view.attemptsRemaining > 0)
  if (!registrationId || !payable || view.method) return view
  const refusal = await registrationRefusal(env, registrationId)
  if (!refusal) return view
  const [flow, ...rest] = view.methods.filter((m) => m !== 'saved-card')
  if (!flow) throw new ApiError(refusal.code, refusal.message)
  return { ...view, flow, methods: [flow, ...rest], savedCard: null }
}

/**
 * The pay is one call into the session object: it makes the access check itself (origin, then
 * secret, before anything else: R21), the request's checks and the payment, so this route has no
 * middleware that reads the session first (its preflight still does: see above).
 */
checkout.post('/:id/pay', describeRoute(DOCS.pay), async (c) => {
  const id = c.req.param('id')
  const origin = c.req.header('Origin')
  const secFetchSite = c.req.header('Sec-Fetch-Site')
  c.header('Vary', 'Origin')
  const req: PayRequest = {
    origin,
    secFetchSite,
    secret: bearerOf(c),
    idempotencyKey: idempotencyKeyOf(c.req.header('Idempotency-Key')),
    body: await readJsonBody(c),
    ip: clientIp(c),
    velocityLimit: numberVar(c.env.CARD_VELOCITY_LIMIT, 5) || 5,
  }
  const answer: PayAnswer | Response = SESSION_ID.test(id)
    ? await payOnce(c, sessionStub(c.env, id), req)
    : // An unknown id: a session that names no origins of its own (R21).
      { access: originRefused(origin, secFetchSite, [], c.env) ? 'origin_refused' : 'not_found' }
  if (answer instanceof Response) return answer
  if (answer.access === 'origin_refused') throw refuseOrigin()
  if (origin !== undefined) c.header('Access-Control-Allow-Origin', origin)
  if (answer.access === 'not_found') throw noSuchCheckout()
  if (answer.retryAfter) c.header('Retry-After', answer.retryAfter)
  return sendReply(c, answer.reply)
})

/** The session's answer to the pay, after the deployment's admission (or the route's refusal). */
async function payOnce(
  c: Ctx,
  stub: DurableObjectStub<CheckoutSession>,
  req: PayRequest,
): Promise<PayAnswer | Response> {
  const admission = await admit(c, stub, req)
  if (admission instanceof Response) return admission
  // As declared: the RPC stub's mapped type of the union narrows badly.
  return stub.pay({ ...req, admission }) as Promise<PayAnswer>
}

/**
 * The deployment's admission of a new attempt (R10, R12), decided here and applied by the session
 * after its access check and a replay of the key (R16). The breaker's state is cached per isolate.
 * Where Turnstile must be asked, the request is checked against the session first (one more call,
 * on that path only): a single-use token is never spent on a refused origin, a wrong secret or
 * invalid input.
 */
async function admit(c: Ctx, stub: DurableObjectStub<CheckoutSession>, req: PayRequest): Promise<Admission | Response> {
  const breaker = await breakerState(c.env)
  // Paused: the whole deployment (declines from many sources), or this client's network alone.
  const until = breaker.tripped ? breaker.until : sourcePausedUntil(breaker, await sourceOf(req.ip))
  if (until !== undefined && !c.env.TURNSTILE_SECRET) return paused(until)
  if (!c.env.TURNSTILE_SECRET || (c.env.TURNSTILE_REQUIRED === 'on_declines' && until === undefined)) return ADMITTED
  const access = await stub.access(req.secret)
  const env = access ? await merchantEnv(c.env, access.merchant) : c.env
  if (originRefused(req.origin, req.secFetchSite, access?.origins ?? [], env)) throw refuseOrigin()
  if (req.origin !== undefined) c.header('Access-Control-Allow-Origin', req.origin)
  if (!access?.view) throw noSuchCheckout()
  const input = await payInputOf(access.view, access.customer, access.origins, req, env)
  if (!input.ok) return sendReply(c, input.error)
  return (await turnstilePasses(c.env, req.body.ok ? req.body.value.turnstileToken : undefined, req.ip))
    ? ADMITTED
    : BOT_CHECK_FAILED
}

checkout.post('/:id/qr/verify', describeRoute(DOCS.qrVerify), jsonBody(), async (c) => {
  const parsed = parseQrVerifyBody(c.get('body'), c.get('view').customer ?? {})
  if (!parsed.ok) throw new ApiError(parsed.error.code, 'Some fields are missing or invalid.', parsed.error.fields)
  return sendReply(c, await c.get('session').qrVerify(parsed.value))
})

checkout.post('/:id/qr/complete', describeRoute(DOCS.qrComplete), jsonBody(), validate('json', noFields), async (c) => {
  const key = requiredIdempotencyKey(c.req.header('Idempotency-Key'))
  return sendReply(c, await c.get('session').qrComplete(key))
})

checkout.post(
  '/:id/invoice/regenerate',
  describeRoute(DOCS.invoiceRegenerate),
  jsonBody(),
  validate('json', invoiceRegenerateBody),
  async (c) => {
    const { returnPage } = c.req.valid('json')
    // Only a page on an origin this checkout allows: the result page links there (no open redirect).
    const page = returnPage === undefined ? undefined : pageOn(returnPage, c.get('origins'), c.env)
    if (page === null)
      throw new ApiError('invalid_request', 'Some fields are missing or invalid.', [
        { field: 'returnPage', code: 'invalid_value', expected: RETURN_PAGE_EXPECTED },
      ])
    return sendReply(c, await c.get('session').regenerateInvoice(page))
  },
)
