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
import { checkFormat } from '../../shared/formats.ts'
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
import { acceptedLanguages, INVOICE_MONEY, resultPage, SESSION_MONEY } from '../result-page/page.ts'

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
    // Its ids are ones the gateway gives and its paths carry: never a `/`, with which a merchant
    // signing its own notification could name another merchant's payment object (`merchant/id`).
    const badIds = (['paymentId', 'merchantTransactionId'] as const).filter(
      (field) => checkFormat(field === 'paymentId' ? 'gatewayId' : field, n[field]) !== null,
    )
    if (badIds.length > 0)
      throw new ApiError(
        'invalid_request',
        'The notification names an id the gateway never gives.',
        badIds.map((field) => ({ field, code: 'format' as const })),
      )
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
      // An empty icon of its own (data:), so the browser asks the Worker for no /favicon.ico.
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
    c.header('Cache-Control', 'no-store')
    const money = SESSION_ID.test(id)
      ? SESSION_MONEY[confirmed.status as Status]
      : INVOICE_MONEY[confirmed.status as OpStatus]
    c.header('Vary', 'Accept-Language')
    return c.html(resultPage(money ?? 'confirming', back, acceptedLanguages(c.req.header('Accept-Language'))))
  },
)
