/**
 * @module
 * A merchant as configuration: the deployment's `Env` with the merchant profile's values in place
 * of the default merchant's variables (`MEMBER_ID`, `SECURE_KEY`, `MERCHANT_WEBHOOK_URL`, ...). The
 * profile is written in the same names the Worker already reads, so every reader of the
 * configuration (the gateway client, the webhook outbox, the origin checks, the amount bounds)
 * serves any merchant unchanged, and the default merchant is the plain `Env` it always was.
 *
 * Who applies it: `merchantAuth` for a merchant's API call (the key names the merchant), and each
 * Durable Object for itself (a session, payment, operation or registration belongs to the merchant
 * that created it: `TaskedObject`). Names that must be unique per merchant (order references,
 * Idempotency-Keys, payment and registration objects) are prefixed with the merchant (`scoped`), so
 * one merchant's calls cannot even reach another's objects.
 *
 * Profiles are cached per isolate: a request (and each call into an object) that finds its
 * merchant's copy older than `FRESH_MS` reads it again first, so a change made through the
 * platform API holds everywhere from the next request at most that long after it (at once in the
 * isolate that made it); a profile that cannot be read again for `STALE_LIMIT_MS` is not acted on
 * (SECURITY.md, "Merchant profiles"). API keys are not cached (profiles.ts): a revoke holds at once.
 */
import type { Env } from '../env.ts'
import { log } from '../log.ts'
import { DEFAULT_MERCHANT, loadProfile, type Profile } from './profiles.ts'

export const FRESH_MS = 30_000
/** A profile that could not be read again for this long is not used: nothing acts on stale credentials. */
export const STALE_LIMIT_MS = 10 * FRESH_MS

/**
 * Who the configuration is for, under a symbol rather than a variable name: no `wrangler.toml`
 * variable or secret can make the default merchant pretend to be a profile.
 */
const PROFILE = Symbol('merchant profile')
interface Identity {
  readonly id: string
  readonly status: 'active' | 'disabled'
  /** Seals replayable creation answers (client secrets) whichever of the profile's API keys asked. */
  readonly sealKey: string
}

/** The variables a profile sets; every one of them is set (undefined too), none falls through to the default merchant's. */
function varsOf(p: Profile, base: Env): Partial<Env> & Record<string | symbol, unknown> {
  const s = p.settings
  const k = p.secrets
  return {
    [PROFILE]: { id: p.id, status: p.status, sealKey: k.sealKey } satisfies Identity,
    MEMBER_ID: s.gateway.memberId,
    TERMINAL_ID: s.gateway.terminalId,
    PARTNER_ID: s.gateway.partnerId,
    MERCHANT_USERNAME: s.gateway.username,
    SECURE_KEY: k.secureKey,
    SECURE_KEY_PREVIOUS: k.secureKeyPrevious,
    AUTH_TOKEN: k.authToken,
    QR_AUTH_TOKEN: k.qrAuthToken,
    // The default merchant's keys are not this merchant's: its own are looked up by hash (profiles.ts).
    MERCHANT_API_KEY: '',
    MERCHANT_API_KEY_NEXT: undefined,
    WEBHOOK_SECRET: k.webhookSecrets[0]?.secret ?? '',
    WEBHOOK_SECRET_NEXT: k.webhookSecrets[1]?.secret,
    MERCHANT_WEBHOOK_URL: s.webhookUrl,
    ALLOWED_ORIGINS: s.allowedOrigins.join(','),
    // Unset: the deployment's bounds, as for the default merchant.
    AMOUNT_MIN: s.limits.amountMin ?? base.AMOUNT_MIN,
    AMOUNT_MAX: s.limits.amountMax ?? base.AMOUNT_MAX,
  }
}

interface Entry {
  readonly id: string
  readonly base: Env
  vars: Record<string | symbol, unknown>
  loadedAt: number
  refreshing?: Promise<void> | undefined
  readonly env: Env
}

const entries = new Map<string, Entry>()

async function load(env: Env, id: string): Promise<Record<string | symbol, unknown>> {
  const profile = await loadProfile(env, id)
  if (!profile)
    throw new Error(
      `merchant profile ${id} cannot be loaded (missing, or sealed under neither MERCHANT_SECRETS_KEY nor MERCHANT_SECRETS_KEY_PREVIOUS)`,
    )
  return varsOf(profile, env)
}

/** Reads the profile again; reads meanwhile see the one before. */
function refresh(entry: Entry): Promise<void> {
  entry.refreshing ??= load(entry.base, entry.id)
    .then((vars) => {
      entry.vars = vars
      entry.loadedAt = Date.now()
    })
    .catch((e: unknown) => log.error('merchant_profile_refresh_failed', { merchant: entry.id, error: e }))
    .finally(() => (entry.refreshing = undefined))
  return entry.refreshing
}

/**
 * The configuration of merchant `id` (undefined or `default`: the deployment's own variables).
 * Throws when a profile cannot be loaded: nothing may act for a merchant without its credentials.
 */
export async function merchantEnv(env: Env, id: string | undefined): Promise<Env> {
  if (id === undefined || id === DEFAULT_MERCHANT) return env
  let entry = entries.get(id)
  if (!entry) {
    const base = baseOf(env)
    const vars = await load(base, id)
    entry = entries.get(id) ?? makeEntry(id, base, vars)
    entries.set(id, entry)
  } else if (Date.now() - entry.loadedAt > FRESH_MS) {
    // Each request (and each Durable Object call: TaskedObject) starts from a profile at most
    // FRESH_MS old; a profile that cannot be read again for long is not acted on at all.
    await refresh(entry)
    if (Date.now() - entry.loadedAt > STALE_LIMIT_MS) throw new Error(`merchant profile ${id} could not be read again`)
  }
  return entry.env
}

const BASE = Symbol('base env')

function makeEntry(id: string, base: Env, vars: Record<string, unknown>): Entry {
  const entry: Entry = {
    id,
    base,
    vars,
    loadedAt: Date.now(),
    // Every read of a stale profile (a long-lived object's too) starts one refresh behind it.
    env: new Proxy(base, {
      get: (target, key) => {
        if (key === BASE) return target
        return key in entry.vars ? entry.vars[key] : Reflect.get(target, key)
      },
      has: (target, key) => key in entry.vars || Reflect.has(target, key),
    }),
  }
  return entry
}

/** The deployment's own Env under a merchant's. */
function baseOf(env: Env): Env {
  return (env as Env & { [BASE]?: Env })[BASE] ?? env
}

/** After the platform API changed a profile: this isolate reads it anew now (others within FRESH_MS). */
export async function reloadMerchant(id: string): Promise<void> {
  const entry = entries.get(id)
  if (!entry) return
  // A refresh begun before the change may have read the profile as it was.
  await entry.refreshing
  await refresh(entry)
}

const identityOf = (env: Env): Identity | undefined => (env as Env & { [PROFILE]?: Identity })[PROFILE]

/** The merchant an Env is configured for. */
export const merchantIdOf = (env: Env): string => identityOf(env)?.id ?? DEFAULT_MERCHANT

/** `disabled`: the profile takes no new sessions or pays (what is under way still settles). */
export const merchantStatusOf = (env: Env): 'active' | 'disabled' => identityOf(env)?.status ?? 'active'

/** A profile's seal key (secrets.ts `sealingKeyOf`); undefined for the default merchant. */
export const sealKeyOf = (env: Env): string | undefined => identityOf(env)?.sealKey

/**
 * A name unique per merchant: the default merchant's names are as they always were (so objects
 * made before profiles are found), another merchant's carry its id.
 */
export const scoped = (env: Env, name: string): string => scopedFor(merchantIdOf(env), name)

/** `scoped` for a merchant named by its id (a search index row's). */
export const scopedFor = (merchant: string, name: string): string =>
  merchant === DEFAULT_MERCHANT ? name : `${merchant}/${name}`
