/**
 * @module
 * Routes the gateway calls: the asynchronous notification (server to server) and the shopper's
 * return after 3-D Secure. Neither is believed on its word: a notification must carry a valid
 * checksum (compared in constant time), and a return only triggers a status inquiry (R27, R28).
 */
import { Hono } from 'hono'
import { NOTIFICATION_FIELDS } from '../../shared/fields.ts'
import { readFields } from '../../shared/read.ts'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { checksum, timingSafeEqualText } from '../gateway/checksum.ts'
import { log } from '../log.ts'
import { SESSION_ID, sessionStub } from '../middleware/browser-access.ts'

export const gateway = new Hono<{ Bindings: Env }>()

gateway.post('/notifications/:id', async (c) => {
  const id = c.req.param('id')
  const operation = /^op_([0-9a-f]{64})$/.exec(id)
  if (!SESSION_ID.test(id) && !operation) return errorResponse(c, 'not_found', 'No such checkout.')
  let json: unknown
  try {
    json = JSON.parse(await c.req.text())
  } catch {
    return errorResponse(c, 'invalid_request', 'The notification is not JSON.')
  }
  const read = readFields(NOTIFICATION_FIELDS, json)
  if (!read.ok) return errorResponse(c, 'invalid_request', 'The notification lacks required fields.', read.error.map((field) => ({ field, code: 'required' as const })))
  const n = read.value
  const expected = await checksum('notification', {
    paymentId: n.paymentId,
    merchantTransactionId: n.merchantTransactionId,
    amount: n.amount,
    transactionStatus: n.transactionStatus,
    secureKey: c.env.SECURE_KEY,
  })
  if (!expected.ok || !(await timingSafeEqualText(n.checksum, expected.value))) {
    log.warn('notification_forged', { id, paymentId: n.paymentId })
    return errorResponse(c, 'unauthorized', 'The notification checksum does not match.')
  }
  // A verified notification still settles only what it belongs to (R27): the session or operation
  // checks it names one of its own payments. Others are recorded there and refused here.
  const result = operation?.[1] ? await c.env.OPERATIONS.get(c.env.OPERATIONS.idFromString(operation[1])).settleFromNotification(n) : await sessionStub(c.env, id).settleFromNotification(n)
  log.info('notification', { id, paymentId: n.paymentId, transactionStatus: n.transactionStatus, result: result.kind })
  if (result.kind === 'refused') return errorResponse(c, 'notification_mismatch', 'This notification is not about a payment of this checkout.')
  return c.json({ received: true, applied: result.kind === 'applied', status: result.status })
})

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

gateway.on(['GET', 'POST'], '/return/:id', async (c) => {
  const id = c.req.param('id')
  const operation = /^op_([0-9a-f]{64})$/.exec(id)?.[1]
  // An invoice regenerated through the merchant route returns here too: its status, no inquiry.
  const opStatus = operation ? await c.env.OPERATIONS.get(c.env.OPERATIONS.idFromString(operation)).status() : undefined
  const confirmed = SESSION_ID.test(id) ? await sessionStub(c.env, id).confirmReturn() : opStatus ? { status: opStatus } : undefined
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
  return c.html(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Payment</title><p>Payment status: <strong>${escape(confirmed.status)}</strong>.</p></html>`)
})
