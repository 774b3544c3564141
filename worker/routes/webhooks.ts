/**
 * @module
 * `GET /v1/webhooks/deliveries`: where each event's delivery to the merchant's webhook URL stands
 * (delivered, failing and when it is tried next, or pending), newest first, by status, payment or
 * session. `POST /v1/webhooks/deliveries/{eventId}/send-again`: an event that waits for its next
 * try is tried now (202); a delivered one is not sent again (409: receivers keep the ids they have
 * seen only so long). What the console's webhook view and a payment's timeline show.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import * as v from 'valibot'
import { checkFormat, FORMAT_EXPECTED } from '../../shared/formats.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { SESSION_ID } from '../ids.ts'
import { merchantIdOf } from '../merchants/merchant-env.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { validate } from '../middleware/validate.ts'
import { described, oneOf } from '../schemas/build.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'
import { cursorParam, DEFAULT_LIMIT, limitParam } from '../schemas/search.ts'
import { DELIVERY_STATUSES, listDeliveries, sendAgain } from '../webhooks/deliveries.ts'
import { page } from './search.ts'

const EVENT_ID = /^evt_[0-9a-f]{24}$/

const deliveryQuery = v.strictObject({
  status: v.optional(oneOf(DELIVERY_STATUSES)),
  payment: v.optional(
    described(
      v.pipe(
        v.string('format'),
        v.check((id) => checkFormat('gatewayId', id) === null, 'format'),
      ),
      FORMAT_EXPECTED.gatewayId,
      { description: 'Only the events of this payment (with `session`: of either)' },
    ),
  ),
  session: v.optional(
    described(v.pipe(v.string('format'), v.regex(SESSION_ID, 'format')), SESSION_ID.source, {
      description: 'Only the events of this session',
    }),
  ),
  limit: limitParam(),
  starting_after: cursorParam({ test: (id) => EVENT_ID.test(id), expected: EVENT_ID.source }),
})

export const webhooks = new Hono<{ Bindings: Env }>()
webhooks.use('*', merchantAuth())

webhooks.get(
  '/deliveries',
  describeRoute({
    summary: 'Webhook deliveries, newest first: delivered, failing (with the next try) or pending',
    operationId: 'listWebhookDeliveries',
    security: merchant,
    responses: { '200': { description: 'A page', ...page(ref('WebhookDelivery')) }, ...errors(400, 401, 429) },
  }),
  validate('query', deliveryQuery),
  async (c) => {
    const q = c.req.valid('query')
    const found = await listDeliveries(c.env.DB, merchantIdOf(c.env), {
      limit: q.limit ?? DEFAULT_LIMIT,
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.payment !== undefined ? { paymentId: q.payment } : {}),
      ...(q.session !== undefined ? { sessionId: q.session } : {}),
      ...(q.starting_after !== undefined ? { startingAfter: q.starting_after } : {}),
    })
    if (!found)
      throw new ApiError('invalid_request', 'starting_after names nothing in this list.', [
        { field: 'starting_after', code: 'invalid_value', expected: 'the id of an item of this list' },
      ])
    return c.json(found)
  },
)

webhooks.post(
  '/deliveries/:eventId/send-again',
  describeRoute({
    summary: 'Try an event that waits for its next try now (a delivered one is not sent again)',
    operationId: 'sendWebhookAgain',
    security: merchant,
    parameters: [{ name: 'eventId', in: 'path', required: true, schema: { type: 'string', pattern: EVENT_ID.source } }],
    responses: {
      '202': { description: 'Queued: the delivery is pending', ...json(ref('WebhookDelivery')) },
      ...errors(401, 404, 409, 429),
    },
  }),
  async (c) => {
    const eventId = c.req.param('eventId')
    const tried = EVENT_ID.test(eventId) ? await sendAgain(c.env, merchantIdOf(c.env), eventId) : undefined
    if (tried?.kind === 'queued') return c.json(tried.view, 202)
    if (tried?.kind === 'delivered')
      throw new ApiError('already_delivered', 'The event was delivered: it is not sent again.')
    throw new ApiError('not_found', 'No such event.')
  },
)
