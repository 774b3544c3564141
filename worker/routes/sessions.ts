/**
 * @module
 * Merchant server routes for checkout sessions: create one, read its whole state.
 */
import { Hono } from 'hono'
import { DEFAULT_AMOUNT_BOUNDS } from '../../shared/money.ts'
import type { Env } from '../env.ts'
import { errorResponse } from '../errors.ts'
import { newClientSecret, newSessionId, sha256Hex } from '../ids.ts'
import { SESSION_ID, sessionStub } from '../middleware/browser-access.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { parseSessionInput } from '../sessions/parse-input.ts'

export const sessions = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

sessions.use('*', merchantAuth())

sessions.post('/', jsonBody(), async (c) => {
  const bounds = { min: c.env.AMOUNT_MIN ?? DEFAULT_AMOUNT_BOUNDS.min, max: c.env.AMOUNT_MAX ?? DEFAULT_AMOUNT_BOUNDS.max }
  const input = parseSessionInput(c.get('body'), bounds)
  if (!input.ok) return errorResponse(c, 'invalid_request', 'Some fields are missing or invalid.', input.error)
  const id = newSessionId()
  const clientSecret = newClientSecret(id)
  const view = await sessionStub(c.env, id).create({ ...input.value, id, clientSecretHash: await sha256Hex(clientSecret) })
  // The client secret is shown once, here, to the merchant's server, which hands it to its page.
  return c.json({ id, clientSecret, status: view.status, expiresAt: view.expiresAt }, 201)
})

sessions.get('/:id', async (c) => {
  const id = c.req.param('id')
  const view = SESSION_ID.test(id) ? await sessionStub(c.env, id).merchantView() : undefined
  return view ? c.json(view) : errorResponse(c, 'not_found', 'No such checkout session.')
})
