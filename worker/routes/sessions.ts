/**
 * @module
 * Merchant server routes for checkout sessions: create one, read its whole state.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { amountBounds } from '../config.ts'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { fingerprintOf, newClientSecret, newSessionId, sha256Hex } from '../ids.ts'
import { SESSION_ID } from '../ids.ts'
import { bearerOf, sessionStub } from '../middleware/browser-access.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { seal, unsealWithAny } from '../guards/order-registry.ts'
import { requiredIdempotencyKey, validate } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import { sessionBody } from '../schemas/sessions.ts'
import { KEY_IN_PROGRESS, KEY_REUSED } from '../idempotency.ts'
import { sessionInputOf } from '../schemas/parse.ts'
import { done, fail, type Reply } from '../reply.ts'
import { hoursMs } from '../gateway/units.ts'
import { registry } from './operations.ts'
import { sendReply } from '../respond.ts'
import { registrationRefusal } from '../registrations/guard.ts'
import { sealingKeyOf, sealingKeys } from '../secrets.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'
import { effectiveOrigins } from '../access.ts'
import { frameToken } from '../frame/token.ts'

export const sessions = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

sessions.use('*', merchantAuth())

/**
 * Creates a session. Its order reference must be new to the deployment (`duplicate_order`), and an
 * optional Idempotency-Key makes the request safe to repeat: the same request gets the same
 * session back (with its client secret), the same key with another body is refused.
 */
sessions.post(
  '/',
  describeRoute({
    summary: 'Create a checkout session',
    operationId: 'createSession',
    security: merchant,
    parameters: [idempotencyKey(false)],
    responses: {
      '201': { description: 'Created (or replayed, with Idempotent-Replayed: true)', ...json(ref('SessionCreated')) },
      ...errors(400, 401, 403, 409, 413, 422, 429),
    },
  }),
  jsonBody(),
  validate('json', sessionBody(), { forRequest: (env) => sessionBody(amountBounds(env)) }),
  async (c) => {
    const header = c.req.header('Idempotency-Key')
    const key = header === undefined ? undefined : requiredIdempotencyKey(header)
    const input = { ok: true as const, value: sessionInputOf(c.req.valid('json')) }
    // A saved card the merchant deleted (or is deleting) pays no more (registrations.ts).
    const registrationId = input.value.methods?.includes('saved-card') ? input.value.registrationId : undefined
    if (await registrationRefusal(c.env, registrationId)) {
      throw new ApiError('registration_deleted', 'This saved card was deleted. Ask the shopper for a card.', [
        { field: 'registrationId', code: 'invalid_value' },
      ])
    }
    const mtid = input.value.merchantTransactionId
    // The key that made this call seals its answer; a retry may come with the other key of a
    // rotation under way, so an earlier answer opens with any key the Worker accepts now.
    const apiKey = await sealingKeyOf(bearerOf(c), c.env)

    const keyClaim = key ? registry(c.env, scoped(c.env, `key:${await sha256Hex(key)}`)) : undefined
    if (keyClaim) {
      const claim = await keyClaim.claim(mtid, await fingerprintOf(c.get('body')))
      if (claim.kind === 'taken') throw new ApiError(KEY_REUSED.code, KEY_REUSED.message)
      if (claim.kind === 'same') {
        if (!claim.sealed) throw new ApiError(KEY_IN_PROGRESS.code, KEY_IN_PROGRESS.message)
        const earlier = await unsealWithAny<Reply>(sealingKeys(c.env), claim.sealed)
        if (!earlier) throw new ApiError('idempotency_mismatch', 'This Idempotency-Key was used under another API key.')
        return sendReply(c, { ...earlier, replayed: true }, 201)
      }
    }

    const id = newSessionId()
    const order = registry(c.env, scoped(c.env, `order:${mtid}`))
    // The invoice's reference is an order reference at the gateway too (its notifications name it as
    // merchantTransactionId): unique per deployment, so one paid invoice settles one session.
    const invoiceRef = input.value.methods?.includes('invoice') ? input.value.merchantInvoiceId : undefined
    const invoiceOrder =
      invoiceRef !== undefined && invoiceRef !== mtid
        ? registry(c.env, scoped(c.env, `order:${invoiceRef}`))
        : undefined
    let reply: Reply
    try {
      // The claim's fingerprint is the new id itself: a second session never matches it.
      // An invoice session lives as long as its invoice, so its references are kept that long too.
      const payable = invoiceRef !== undefined ? hoursMs(input.value.invoiceExpirationPeriod) : 0
      if ((await order.claim(id, id, payable)).kind !== 'claimed') {
        reply = fail(
          'duplicate_order',
          'Another checkout session or invoice regeneration already has this merchantTransactionId. Use a new order reference.',
          [{ field: 'merchantTransactionId', code: 'invalid_value' }],
        )
      } else if (invoiceOrder && (await invoiceOrder.claim(id, id, payable)).kind !== 'claimed') {
        await order.release(id)
        reply = fail(
          'duplicate_order',
          'Another checkout session or invoice regeneration already has this merchantInvoiceId. Use a new invoice reference.',
          [{ field: 'merchantInvoiceId', code: 'invalid_value' }],
        )
      } else {
        const clientSecret = newClientSecret(id)
        const view = await sessionStub(c.env, id).create({
          ...input.value,
          id,
          clientSecretHash: await sha256Hex(clientSecret),
          merchant: merchantIdOf(c.env),
        })
        // The client secret goes to the merchant's server, which hands it to its page; the frame
        // token too, so the card frame's route need not read the session (frame/token.ts), and
        // writes the form without the customer's inputs the merchant gave.
        const origins = effectiveOrigins(input.value.allowedOrigins, c.env)
        const given = Object.entries(input.value.customer ?? {}).flatMap(([name, value]) => (value ? [name] : []))
        const frame = await frameToken(c.env, id, origins, Date.parse(view.expiresAt), given)
        reply = done({ id, clientSecret, status: view.status, expiresAt: view.expiresAt, frameToken: frame })
      }
    } catch (e) {
      // Nothing was created: give the claims back so a retry can succeed.
      await order.release(id)
      await invoiceOrder?.release(id)
      if (keyClaim) await keyClaim.release(mtid)
      throw e
    }
    if (keyClaim) await keyClaim.complete(await seal(apiKey, reply))
    return sendReply(c, reply, 201)
  },
)

sessions.get(
  '/:id',
  describeRoute({
    summary: 'The whole state of a session (never card data)',
    operationId: 'getSession',
    security: merchant,
    parameters: pathParams({ id: { pattern: SESSION_ID.source } }),
    responses: { '200': { description: 'Session', ...json(ref('Session')) }, ...errors(401, 404, 429) },
  }),
  async (c) => {
    const id = c.req.param('id')
    const view = SESSION_ID.test(id) ? await sessionStub(c.env, id).merchantView(merchantIdOf(c.env)) : undefined
    if (!view) throw new ApiError('not_found', 'No such checkout session.')
    return c.json(view)
  },
)
