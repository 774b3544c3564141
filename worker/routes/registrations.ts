/**
 * @module
 * `DELETE /v1/registrations/{registrationId}`: delete a saved card at the gateway. From the moment
 * it is asked, new saved-card sessions with it are refused (`registration_deleted`). 200 when the
 * gateway confirmed, 202 while it is being sent again (no answer yet), 502 when it refused, 404
 * when the gateway has no such card for this merchant.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { paramErrors, requiredIdempotencyKey } from '../middleware/validate.ts'
import { errors, idempotencyKey, json, merchant, pathParams, ref } from '../schemas/doc.ts'
import type { RegistrationObject, RegistrationView } from '../registrations/registration-object.ts'
import { sendReply } from '../respond.ts'
import { placement } from '../placement.ts'
import { merchantIdOf, scoped } from '../merchants/merchant-env.ts'

export const registrations = new Hono<{ Bindings: Env }>()

registrations.use('*', merchantAuth())

export function registrationStub(env: Env, registrationId: string): DurableObjectStub<RegistrationObject> {
  return env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(scoped(env, registrationId)), placement(env))
}

const REGISTRATION_ID = { registrationId: 'gatewayId' } as const

registrations.delete(
  '/:registrationId',
  describeRoute({
    summary:
      'Delete a saved card at the gateway; from the request on, new saved-card sessions with it are 409 registration_deleted',
    operationId: 'deleteRegistration',
    security: merchant,
    parameters: [...pathParams(REGISTRATION_ID), idempotencyKey()],
    responses: {
      '200': { description: 'Deleted', ...json(ref('Registration')) },
      '202': { description: 'No answer yet: sent again until the gateway answers', ...json(ref('Registration')) },
      ...errors(400, 401, 404, 429, 502),
    },
  }),
  async (c) => {
    const id = c.req.param('registrationId')
    const key = requiredIdempotencyKey(c.req.header('Idempotency-Key'))
    const bad = paramErrors('registrationId', 'gatewayId', id)
    if (bad.length > 0) throw new ApiError('invalid_request', 'Not a registration id.', bad)
    const reply = await registrationStub(c.env, id).delete(id, key, merchantIdOf(c.env))
    // Deleted at the gateway: 200; asked and not yet answered: 202, settled later.
    return sendReply(c, reply, (body) => ((body as RegistrationView).status === 'deleted' ? 200 : 202))
  },
)
