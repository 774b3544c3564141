/**
 * @module
 * `GET /healthz`: liveness for anyone (`{ ok: true }`: up or down, nothing about the deployment).
 * With the merchant key it also names the gateway this deployment talks to (its origin only, never
 * credentials), and `?deep=1` (merchant key required) asks the gateway something harmless: a
 * status inquiry for an order that cannot exist, which needs a token, a correct checksum and a
 * reachable gateway ("record not found" proves all three without moving money). The deep answer is
 * kept for a short while per isolate, so a busy monitor (or a key guesser) does not become gateway
 * traffic; key guessing is limited here as on `/v1/*` (worker/index.ts, R23).
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { merchantKeyOf } from '../secrets.ts'
import { errors } from '../schemas/doc.ts'
import { gatewayClient } from '../config.ts'
import type { Env } from '../env.ts'
import { randomToken } from '../ids.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'

export const health = new Hono<{ Bindings: Env }>()

/** How long a deep check's answer is reused (per isolate, per gateway configuration). */
export const DEEP_CHECK_CACHE_MS = 30_000

type Check = { ok: boolean; token: string; error?: string; gatewayCode?: string; reason?: string }
const deepChecks = new Map<string, { at: number; check: Check; ms: number }>()

async function deepCheck(env: Env): Promise<{ check: Check; ms: number; cached: boolean }> {
  // The configuration the check proves: another gateway or other credentials are another answer.
  const key = [env.GATEWAY_BASE_URL, env.MEMBER_ID, env.TERMINAL_ID, env.PARTNER_ID, env.MERCHANT_USERNAME].join('|')
  const kept = deepChecks.get(key)
  if (kept && Date.now() - kept.at < DEEP_CHECK_CACHE_MS) return { check: kept.check, ms: kept.ms, cached: true }
  const started = Date.now()
  const outcome = await gatewayClient(env).inquiry(`healthz-${randomToken(16)}`, 'MID')
  const check: Check =
    outcome.kind === 'not_found'
      ? { ok: true, token: 'ok' }
      : outcome.kind === 'unsent'
        ? {
            ok: false,
            token: outcome.reason === 'token_refused' ? 'refused' : 'unreachable',
            error: outcome.reason === 'token_refused' ? 'gateway_auth_failed' : 'gateway_unavailable',
          }
        : outcome.kind === 'rejected'
          ? {
              ok: false,
              token: outcome.reason === 'auth' ? 'refused' : 'ok',
              error: outcome.reason === 'auth' ? 'gateway_auth_failed' : 'gateway_rejected',
              gatewayCode: outcome.code,
            }
          : outcome.kind === 'unknown'
            ? { ok: false, token: 'unknown', error: 'gateway_unavailable', reason: outcome.reason }
            : { ok: true, token: 'ok' }
  const ms = Date.now() - started
  deepChecks.set(key, { at: Date.now(), check, ms })
  return { check, ms, cached: false }
}

async function hasMerchantKey(c: { req: { header(name: string): string | undefined }; env: Env }): Promise<boolean> {
  const bearer = /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')?.[1]
  return (await merchantKeyOf(bearer, c.env)) !== undefined
}

health.use('/', async (c, next) => (c.req.query('deep') === undefined ? next() : merchantAuth()(c, next)))

health.get(
  '/',
  describeRoute({
    summary:
      'Liveness (anyone: ok only); with the merchant key the gateway origin, and with deep=1 a harmless gateway inquiry proves token, checksum and reachability',
    operationId: 'getHealth',
    parameters: [{ name: 'deep', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } }],
    responses: {
      '200': { description: 'ok' },
      '503': {
        description: 'The gateway check failed: error is gateway_unavailable, gateway_auth_failed or gateway_rejected',
      },
      ...errors(401, 429),
    },
  }),
  async (c) => {
    if (c.req.query('deep') === undefined) {
      // Anyone may ask whether the Worker is up; what it is connected to is the merchant's to know.
      return c.json(
        (await hasMerchantKey(c)) ? { ok: true, gateway: new URL(c.env.GATEWAY_BASE_URL).origin } : { ok: true },
      )
    }
    const { check, ms, cached } = await deepCheck(c.env)
    return c.json(
      { ok: check.ok, gateway: new URL(c.env.GATEWAY_BASE_URL).origin, deep: { ...check, ms, cached } },
      check.ok ? 200 : 503,
    )
  },
)
