/**
 * @module
 * Routes the gateway calls: the asynchronous notification (server to server) and the shopper's
 * return after 3-D Secure. Neither is believed on its word: a notification must carry a valid
 * checksum (compared in constant time), and a return only triggers a status inquiry (R27, R28).
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { errors } from '../schemas/doc.ts'
import { NOTIFICATION_FIELDS } from '../../shared/fields.ts'
import { readFields } from '../../shared/read.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { timingSafeEqual } from 'hono/utils/buffer'
import { checksum } from '../../shared/gateway/checksum.ts'
import { log } from '../log.ts'
import { SESSION_ID } from '../ids.ts'
import { notificationKeys } from '../secrets.ts'
import { sessionStub } from '../middleware/browser-access.ts'
import { effectiveOrigins } from '../access.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'
import { pageOn } from '../sessions/pay-request.ts'
import { operationStubById } from './operations.ts'
import type { OpStatus } from '../sessions/merchant-operation.ts'
import type { Status } from '../sessions/types.ts'

export const gateway = new Hono<{ Bindings: Env }>()

gateway.post(
  '/notifications/:id',
  describeRoute({
    summary:
      'Gateway notification: checksum verified, then applied only to a payment this session or operation received',
    operationId: 'receiveNotification',
    responses: { '200': { description: 'Received (applied, or already known)' }, ...errors(400, 401, 404, 409, 413) },
  }),
  async (c) => {
    const id = c.req.param('id')
    // An `op_` id that names no operation of this namespace is "no such thing" here, before any
    // Durable Object is called (idFromString would throw on it).
    const operation = operationStubById(c.env, id)
    if (!SESSION_ID.test(id) && !operation) throw new ApiError('not_found', 'No such checkout.')
    let json: unknown
    try {
      json = JSON.parse(await c.req.text())
    } catch {
      throw new ApiError('invalid_request', 'The notification is not JSON.')
    }
    const read = readFields(NOTIFICATION_FIELDS, json)
    if (!read.ok)
      throw new ApiError(
        'invalid_request',
        'The notification lacks required fields.',
        read.error.map((field) => ({ field, code: 'required' as const })),
      )
    const n = read.value
    // Signed with its merchant's secure key, or during a rotation's overlap with the one before the switch.
    const target = operation ?? sessionStub(c.env, id)
    const env = await merchantEnv(c.env, await target.merchant())
    let signed = false
    for (const secureKey of notificationKeys(env)) {
      const expected = await checksum('notification', {
        paymentId: n.paymentId,
        merchantTransactionId: n.merchantTransactionId,
        amount: n.amount,
        transactionStatus: n.transactionStatus,
        secureKey,
      })
      if (expected.ok && (await timingSafeEqual(n.checksum, expected.value))) signed = true
    }
    if (!signed) {
      log.warn('notification_forged', { id, paymentId: n.paymentId })
      throw new ApiError('unauthorized', 'The notification checksum does not match.')
    }
    // A verified notification still settles only what it belongs to (R27): the session or operation
    // checks it names one of its own payments. Others are recorded there and refused here.
    const result = operation
      ? await operation.settleFromNotification(n)
      : await sessionStub(c.env, id).settleFromNotification(n)
    log.info('notification', {
      id,
      paymentId: n.paymentId,
      transactionStatus: n.transactionStatus,
      result: result.kind,
    })
    if (result.kind === 'refused')
      throw new ApiError('notification_mismatch', 'This notification is not about a payment of this checkout.')
    return c.json({ received: true, applied: result.kind === 'applied', status: result.status })
  },
)

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

gateway.on(
  ['GET', 'POST'],
  '/return/:id',
  describeRoute({
    summary: 'Shopper return after 3-D Secure: confirms by inquiry, redirects to returnUrl',
    responses: {
      '303': { description: 'To the returnUrl' },
      '200': { description: 'The result page' },
      '404': { description: 'No such checkout' },
    },
  }),
  async (c) => {
    const id = c.req.param('id')
    // An invoice regenerated through the merchant route returns here too: its status, no inquiry.
    const operation = operationStubById(c.env, id)
    const opStatus = operation ? await operation.status() : undefined
    const confirmed = SESSION_ID.test(id)
      ? await sessionStub(c.env, id).confirmReturn()
      : opStatus
        ? { status: opStatus }
        : undefined
    // The URL is logged by the one logger, which drops its query string: a GET return carries the
    // gateway's signed checksum there (SECURITY.md R25).
    log.info('shopper_return', { id, method: c.req.method, url: c.req.url, status: confirmed?.status ?? 'not_found' })
    if (!confirmed) return c.html('<!doctype html><title>Not found</title><p>No such checkout.</p>', 404)
    if ('returnUrl' in confirmed && confirmed.returnUrl) {
      const url = new URL(confirmed.returnUrl)
      url.searchParams.set('session', id)
      url.searchParams.set('status', confirmed.status)
      return c.redirect(url.toString(), 303)
    }
    // No returnUrl: a page of our own with the result and a way back: the page that started the
    // payment (the widget sent it; on an allowed origin), else the root of the session's origin.
    const sessionOrigins = 'allowedOrigins' in confirmed ? confirmed.allowedOrigins : []
    const env = 'merchant' in confirmed ? await merchantEnv(c.env, confirmed.merchant) : c.env
    const page =
      'returnPage' in confirmed && confirmed.returnPage ? pageOn(confirmed.returnPage, sessionOrigins, env) : null
    const root = effectiveOrigins(sessionOrigins, env).find((o) =>
      /^https:\/\/|^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(o),
    )
    const back = page ?? (root ? `${root}/` : undefined)
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
    c.header('Cache-Control', 'no-store')
    const money = SESSION_ID.test(id)
      ? SESSION_MONEY[confirmed.status as Status]
      : INVOICE_MONEY[confirmed.status as OpStatus]
    return c.html(returnPage(money ?? 'confirming', back))
  },
)

/**
 * What the return page tells the shopper: what happened to the money, whatever came back (a
 * session after 3-D Secure or a hosted page, an invoice regenerated through the merchant route).
 * A state of the thing that returned is read as what it means for the money: a regenerated
 * invoice (`succeeded` of the operation) is not a payment, a paid one is.
 */
type MoneyState = 'paid' | 'declined' | 'failed' | 'expired' | 'not_paid' | 'confirming'

const SESSION_MONEY: Readonly<Record<Status, MoneyState>> = {
  succeeded: 'paid',
  declined: 'declined',
  failed: 'failed',
  expired: 'expired',
  open: 'not_paid',
  processing: 'confirming',
  action_required: 'confirming',
  pending: 'confirming',
  unknown: 'confirming',
}

const INVOICE_MONEY: Readonly<Record<OpStatus, MoneyState>> = {
  paid: 'paid',
  declined: 'declined',
  // Regenerated, and no payment of it heard of yet.
  succeeded: 'not_paid',
  failed: 'failed',
  expired: 'expired',
  processing: 'confirming',
  pending: 'confirming',
  unknown: 'confirming',
}

const RESULT: Readonly<Record<MoneyState, [title: string, text: string, tone: 'ok' | 'bad' | 'wait']>> = {
  paid: ['Payment successful', 'Thank you: your payment went through. You can go back to the shop now.', 'ok'],
  declined: [
    'Payment declined',
    'Your bank declined this payment. Go back to the shop to try again or to use another card.',
    'bad',
  ],
  failed: ['Payment not completed', 'No money was taken. Go back to the shop to start again or to contact it.', 'bad'],
  expired: [
    'Checkout expired',
    'This checkout ran out of time and no money was taken. Go back to the shop to start again.',
    'bad',
  ],
  not_paid: [
    'Not paid yet',
    'No payment has reached us yet. If you have just paid, the shop will be told as soon as the payment service confirms it.',
    'wait',
  ],
  confirming: [
    'We are confirming your payment',
    'Your bank has not told us the result yet. Go back to the shop: it will show the result as soon as it is known.',
    'wait',
  ],
}

/** The shopper's page after 3-D Secure when the merchant named no `returnUrl`: the result, styled, and a link back. */
function returnPage(status: MoneyState, back: string | undefined): string {
  const [title, text, tone] = RESULT[status]
  const link = back
    ? `<a class="back" href="${escape(back)}">Back to the shop</a>`
    : '<p class="hint">You can close this window and return to the shop.</p>'
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f4f4f6;color:#1b1b1f}
main{max-width:28rem;margin:1rem;padding:2rem;border-radius:12px;background:#fff;box-shadow:0 1px 3px rgb(0 0 0/.15);display:grid;gap:1rem}
h1{margin:0;font-size:1.375rem}.ok h1{color:#146c2e}.bad h1{color:#b3261e}.wait h1{color:#0b57d0}
p{margin:0;line-height:1.5}.hint{color:#4a4a52}
.back{justify-self:start;padding:.7rem 1.1rem;border-radius:8px;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none}
.back:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
@media (prefers-color-scheme:dark){body{background:#121214;color:#e4e2e6}main{background:#1b1b1f}.ok h1{color:#6dd58c}.bad h1{color:#ffb4ab}.wait h1,.hint{color:#a8c7fa}.back{background:#a8c7fa;color:#062e6f}}
</style></head>
<body><main class="${tone}" data-status="${escape(status)}"><h1>${escape(title)}</h1><p>${escape(text)}</p>${link}</main></body></html>`
}
