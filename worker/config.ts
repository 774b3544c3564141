/**
 * @module
 * Configuration read from the bindings, in one place.
 */
import { DEFAULT_AMOUNT_BOUNDS, type AmountBounds } from '../shared/money.ts'
import type { Env } from './env.ts'
import { GatewayClient, type GatewayConfig } from './gateway/client.ts'
import { cacheKey, type KeptToken, type TokenKeeping } from './gateway/auth-token.ts'
import { numberVar } from './env-vars.ts'
import { sha256Hex } from './ids.ts'
import { placement } from './placement.ts'

const DEFAULT_TIMEOUT_MS = 15_000

/** An empty string in .dev.vars means "not set". */
const opt = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim())

export function gatewayConfig(env: Env): GatewayConfig {
  const timeout = numberVar(env.GATEWAY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS)
  const authToken = opt(env.AUTH_TOKEN)
  const qrAuthToken = opt(env.QR_AUTH_TOKEN)
  const partnerId = opt(env.PARTNER_ID)
  const merchantUsername = opt(env.MERCHANT_USERNAME)
  return {
    baseUrl: env.GATEWAY_BASE_URL,
    memberId: env.MEMBER_ID,
    terminalId: env.TERMINAL_ID,
    secureKey: env.SECURE_KEY,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    ...(authToken ? { authToken } : {}),
    ...(qrAuthToken ? { qrAuthToken } : {}),
    ...(partnerId ? { partnerId } : {}),
    ...(merchantUsername ? { merchantUsername } : {}),
    ...(!authToken && env.TOKEN_KEEPERS ? { keeper: keeping(env) } : {}),
  }
}

/**
 * The token keepers (worker/gateway/token-keeper.ts): one per merchant, token service and secure
 * key, named by the credentials (the key by a hash of it), so a token asked for with one secure key
 * is never handed to a caller holding another (a mistyped key shows at once, not an hour later).
 */
function keeping(env: Env): TokenKeeping {
  const ns = env.TOKEN_KEEPERS
  return {
    token: async (service, credentials, refused) => {
      const name = `${cacheKey(credentials, service)}|${(await sha256Hex(credentials.secureKey)).slice(0, 16)}`
      // As declared: the RPC stub's mapped type of the union narrows badly.
      return ns.get(ns.idFromName(name), placement(env)).token(service, credentials, refused) as Promise<KeptToken>
    },
  }
}

export function gatewayClient(env: Env): GatewayClient {
  return new GatewayClient(gatewayConfig(env))
}

/** The deployment's amount bounds (AMOUNT_MIN / AMOUNT_MAX), else the defaults. */
export function amountBounds(env: Env): AmountBounds {
  return {
    min: opt(env.AMOUNT_MIN) ?? DEFAULT_AMOUNT_BOUNDS.min,
    max: opt(env.AMOUNT_MAX) ?? DEFAULT_AMOUNT_BOUNDS.max,
  }
}
