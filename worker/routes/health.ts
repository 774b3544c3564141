/**
 * @module
 * `GET /healthz`: liveness, and which gateway this deployment talks to (its origin only, never
 * credentials). `GET /healthz?deep=1` (merchant key) also asks the gateway something harmless —
 * a status inquiry for an order that cannot exist — which needs a token, a correct checksum and a
 * reachable gateway: "record not found" proves all three without moving money.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { errors } from '../schemas/doc.ts'
import { gatewayClient } from '../config.ts'
import type { Env } from '../env.ts'
import { randomToken } from '../ids.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'

export const health = new Hono<{ Bindings: Env }>()

health.use('/', async (c, next) => (c.req.query('deep') === undefined ? next() : merchantAuth()(c, next)))

health.get(
  '/',
  describeRoute({
    summary: 'Liveness; with deep=1 (merchant key) a harmless gateway inquiry proves token, checksum and reachability',
    operationId: 'getHealth',
    parameters: [{ name: 'deep', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } }],
    responses: { '200': { description: 'ok' }, '503': { description: 'The gateway check failed: error is gateway_unavailable, gateway_auth_failed or gateway_rejected' }, ...errors(401) },
  }),
  async (c) => {
  const gateway = new URL(c.env.GATEWAY_BASE_URL).origin
  if (c.req.query('deep') === undefined) return c.json({ ok: true, gateway })
  const started = Date.now()
  const outcome = await gatewayClient(c.env).inquiry(`healthz-${randomToken(16)}`, 'MID')
  const check =
    outcome.kind === 'not_found'
      ? { ok: true, token: 'ok' }
      : outcome.kind === 'unsent'
        ? { ok: false, token: outcome.reason === 'token_refused' ? 'refused' : 'unreachable', error: outcome.reason === 'token_refused' ? 'gateway_auth_failed' : 'gateway_unavailable' }
        : outcome.kind === 'rejected'
          ? { ok: false, token: outcome.reason === 'auth' ? 'refused' : 'ok', error: outcome.reason === 'auth' ? 'gateway_auth_failed' : 'gateway_rejected', gatewayCode: outcome.code }
          : outcome.kind === 'unknown'
            ? { ok: false, token: 'unknown', error: 'gateway_unavailable', reason: outcome.reason }
            : { ok: true, token: 'ok' }
  return c.json({ ok: check.ok, gateway, deep: { ...check, ms: Date.now() - started } }, check.ok ? 200 : 503)
  },
)
