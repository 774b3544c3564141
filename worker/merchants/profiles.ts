/**
 * @module
 * Merchant profiles, kept in D1 (`merchants`, `merchant_keys`): the merchants a deployment serves
 * besides its default one (the merchant its variables describe, id `default`). Each profile holds
 * its gateway credentials, allowed origins, webhook URL and limits; its secrets are sealed
 * (sealed.ts) and its API keys kept as SHA-256 hashes, so no route and no dump can read them. The
 * platform API (routes/platform.ts) is the only writer; every function returns a typed result and
 * the route decides the HTTP answer.
 *
 * Rotation: a merchant has at most two active API keys and two webhook secrets (create the new one,
 * switch, revoke the old); a new secure key keeps the one before it for notifications until the
 * overlap is ended, as `SECURE_KEY_PREVIOUS` does for the default profile.
 */
import type { Env } from '../env.ts'
import { randomToken, sha256Hex } from '../ids.ts'
import { masterKey, openSecrets, previousMasterKey, sealSecrets } from './sealed.ts'

export const DEFAULT_MERCHANT = 'default'
/** Active API keys and webhook secrets a merchant may hold at once: the current and the next. */
export const MAX_ACTIVE = 2

export const MERCHANT_ID = /^mer_[A-Za-z0-9]{16}$/

export interface GatewaySettings {
  readonly memberId: string
  readonly terminalId: string
  readonly partnerId?: string
  readonly username?: string
}

export interface ProfileSettings {
  readonly gateway: GatewaySettings
  readonly allowedOrigins: readonly string[]
  readonly webhookUrl?: string
  readonly limits: { readonly amountMin?: string; readonly amountMax?: string }
}

/** What is sealed: never returned by any route, never logged. */
export interface ProfileSecrets {
  readonly secureKey: string
  readonly secureKeyPrevious?: string
  readonly authToken?: string
  readonly qrAuthToken?: string
  /** Every delivery is signed with each (oldest first): two during a rotation's overlap. */
  readonly webhookSecrets: readonly { readonly id: string; readonly secret: string; readonly createdAt: number }[]
  /** Seals the replayable answers of session creations (their client secrets), whichever key asked. */
  readonly sealKey: string
}

export type MerchantStatus = 'active' | 'disabled'

/** A profile as the platform API shows it: which secrets are set, never what they are. */
export interface ProfileView extends ProfileSettings {
  readonly object: 'merchant'
  readonly id: string
  readonly name: string
  readonly status: MerchantStatus
  readonly secrets: {
    readonly secureKey: true
    readonly secureKeyPrevious: boolean
    readonly authToken: boolean
    readonly qrAuthToken: boolean
  }
  readonly apiKeys: readonly { readonly id: string; readonly createdAt: number }[]
  readonly webhookSecrets: readonly { readonly id: string; readonly createdAt: number }[]
  readonly createdAt: number
  readonly updatedAt: number
}

/** A loaded profile: settings and opened secrets, for the Worker's own use (merchant-env.ts). */
export interface Profile {
  readonly id: string
  readonly name: string
  readonly status: MerchantStatus
  readonly settings: ProfileSettings
  readonly secrets: ProfileSecrets
  readonly createdAt: number
  readonly updatedAt: number
}

export type ProfileResult<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false
      readonly reason: 'not_found' | 'limit_reached' | 'last_secret' | 'conflict' | 'no_master_key' | 'member_taken'
    }

interface Row {
  id: string
  name: string
  status: string
  profile: string
  secrets: string
  created_at: number
  updated_at: number
}

const newMerchantId = (): string => `mer_${randomToken(16)}`
const newApiKey = (): string => `mk_${randomToken(43)}`
const newKeyId = (): string => `key_${randomToken(16)}`
const newWebhookSecret = (): { id: string; secret: string; createdAt: number } => ({
  id: `whs_${randomToken(16)}`,
  secret: `whsec_${randomToken(43)}`,
  createdAt: Date.now(),
})

const fail = (reason: Extract<ProfileResult<never>, { ok: false }>['reason']) => ({ ok: false as const, reason })

export const keyHash = (key: string): Promise<string> => sha256Hex(`pay-checkout merchant key v1|${key}`)

async function loadRow(env: Env, id: string): Promise<Row | null> {
  return env.DB.prepare('SELECT * FROM merchants WHERE id = ?').bind(id).first<Row>()
}

/**
 * A row's secrets and the key that sealed them: the master key, or during a rotation the one
 * before it; undefined when neither opens them.
 */
async function openRow(env: Env, row: Row): Promise<{ secrets: ProfileSecrets; previous: boolean } | undefined> {
  for (const [key, previous] of [
    [masterKey(env), false],
    [previousMasterKey(env), true],
  ] as const) {
    const secrets = key ? await openSecrets<ProfileSecrets>(key, row.id, row.secrets) : undefined
    if (secrets) return { secrets, previous }
  }
  return undefined
}

async function profileOf(env: Env, row: Row): Promise<Profile | undefined> {
  const secrets = (await openRow(env, row))?.secrets
  if (!secrets) return undefined
  return {
    id: row.id,
    name: row.name,
    status: row.status === 'disabled' ? 'disabled' : 'active',
    settings: JSON.parse(row.profile) as ProfileSettings,
    secrets,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** A profile with its secrets opened; undefined when there is none (or its secrets do not open). */
export async function loadProfile(env: Env, id: string): Promise<Profile | undefined> {
  if (!MERCHANT_ID.test(id)) return undefined
  const row = await loadRow(env, id)
  return row ? profileOf(env, row) : undefined
}

async function keysOf(env: Env, id: string): Promise<{ id: string; createdAt: number }[]> {
  const rows = await env.DB.prepare(
    'SELECT id, created_at FROM merchant_keys WHERE merchant_id = ? AND revoked_at IS NULL ORDER BY created_at, id',
  )
    .bind(id)
    .all<{ id: string; created_at: number }>()
  return rows.results.map((r) => ({ id: r.id, createdAt: r.created_at }))
}

function viewOf(p: Profile, apiKeys: readonly { id: string; createdAt: number }[]): ProfileView {
  return {
    object: 'merchant',
    id: p.id,
    name: p.name,
    status: p.status,
    ...p.settings,
    secrets: {
      secureKey: true,
      secureKeyPrevious: p.secrets.secureKeyPrevious !== undefined,
      authToken: p.secrets.authToken !== undefined,
      qrAuthToken: p.secrets.qrAuthToken !== undefined,
    },
    apiKeys,
    webhookSecrets: p.secrets.webhookSecrets.map(({ id, createdAt }) => ({ id, createdAt })),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  }
}

export async function profileView(env: Env, id: string): Promise<ProfileResult<ProfileView>> {
  const p = await loadProfile(env, id)
  return p ? { ok: true, value: viewOf(p, await keysOf(env, id)) } : fail('not_found')
}

export interface NewProfile {
  readonly name: string
  readonly settings: ProfileSettings
  readonly secureKey: string
  readonly authToken?: string
  readonly qrAuthToken?: string
}

/**
 * Whether another merchant (a profile, or the default merchant's `MEMBER_ID`) is this gateway
 * member: two merchants on one member would share the gateway's view of each other's payments and
 * saved cards (an inquiry, a deletion), so each profile has a member of its own.
 */
async function memberTaken(env: Env, memberId: string, except?: string): Promise<boolean> {
  if (memberId === env.MEMBER_ID) return true
  const row = await env.DB.prepare(
    "SELECT id FROM merchants WHERE json_extract(profile, '$.gateway.memberId') = ? AND id IS NOT ? LIMIT 1",
  )
    .bind(memberId, except ?? null)
    .first<{ id: string }>()
  return row !== null
}

/**
 * A write that the unique index on the profile's gateway member refused
 * (migrations/0007_one_profile_per_member.sql): another profile took the member since
 * `memberTaken` looked, at the same moment.
 */
const memberClash = (e: unknown): boolean => e instanceof Error && e.message.includes('merchants_by_member')

/** A new profile with its first API key and webhook secret, each shown in this answer only. */
export async function createProfile(
  env: Env,
  input: NewProfile,
): Promise<ProfileResult<{ merchant: ProfileView; apiKey: { id: string; key: string }; webhookSecret: string }>> {
  const master = masterKey(env)
  if (!master) return fail('no_master_key')
  if (await memberTaken(env, input.settings.gateway.memberId)) return fail('member_taken')
  const id = newMerchantId()
  const now = Date.now()
  const webhook = newWebhookSecret()
  const secrets: ProfileSecrets = {
    secureKey: input.secureKey,
    ...(input.authToken ? { authToken: input.authToken } : {}),
    ...(input.qrAuthToken ? { qrAuthToken: input.qrAuthToken } : {}),
    webhookSecrets: [webhook],
    sealKey: randomToken(43),
  }
  const key = newApiKey()
  const keyId = newKeyId()
  try {
    await env.DB.batch([
      env.DB.prepare(
        'INSERT INTO merchants (id, name, status, profile, secrets, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).bind(
        id,
        input.name,
        'active',
        JSON.stringify(input.settings),
        await sealSecrets(master, id, secrets),
        now,
        now,
      ),
      env.DB.prepare('INSERT INTO merchant_keys (hash, id, merchant_id, created_at) VALUES (?, ?, ?, ?)').bind(
        await keyHash(key),
        keyId,
        id,
        now,
      ),
    ])
  } catch (e) {
    // A batch is one transaction: the key was not kept either.
    if (memberClash(e)) return fail('member_taken')
    throw e
  }
  const profile: Profile = {
    id,
    name: input.name,
    status: 'active',
    settings: input.settings,
    secrets,
    createdAt: now,
    updatedAt: now,
  }
  return {
    ok: true,
    value: {
      merchant: viewOf(profile, [{ id: keyId, createdAt: now }]),
      apiKey: { id: keyId, key },
      webhookSecret: webhook.secret,
    },
  }
}

export async function listProfiles(
  env: Env,
  limit: number,
  startingAfter?: string,
): Promise<{ data: ProfileView[]; hasMore: boolean } | undefined> {
  const cursor = startingAfter
    ? await env.DB.prepare('SELECT created_at FROM merchants WHERE id = ?')
        .bind(startingAfter)
        .first<{ created_at: number }>()
    : null
  if (startingAfter && !cursor) return undefined
  const rows = cursor
    ? await env.DB.prepare(
        'SELECT * FROM merchants WHERE created_at < ?1 OR (created_at = ?1 AND id < ?2) ORDER BY created_at DESC, id DESC LIMIT ?3',
      )
        .bind(cursor.created_at, startingAfter, limit + 1)
        .all<Row>()
    : await env.DB.prepare('SELECT * FROM merchants ORDER BY created_at DESC, id DESC LIMIT ?')
        .bind(limit + 1)
        .all<Row>()
  const data: ProfileView[] = []
  for (const row of rows.results.slice(0, limit)) {
    const p = await profileOf(env, row)
    if (p) data.push(viewOf(p, await keysOf(env, p.id)))
  }
  return { data, hasMore: rows.results.length > limit }
}

/** How often the reseal tries one profile that is being written meanwhile. */
const RESEAL_TRIES = 3

/** One page of a rotation of the master key (`resealProfiles`), in the order of the profiles' ids. */
export interface ResealPage {
  /** Found under the key before the master key, and sealed again under it. */
  readonly resealed: number
  /** Under the master key already. */
  readonly current: number
  /** The profiles neither key opens (sealed under a third key): their merchants' calls fail. */
  readonly unreadable: readonly string[]
  readonly hasMore: boolean
  /** The last profile of this page: the next page starts after it. */
  readonly last: string | null
}

/**
 * The master key's rotation, a page of profiles at a time: each one sealed under the key before it
 * (`MERCHANT_SECRETS_KEY_PREVIOUS`) is sealed again under the master key, with the same secrets.
 * The write happens only if the sealed column is still the one read, so a change written meanwhile
 * is never overwritten with what was read before it. Its version (`updated_at`) stays, since
 * nothing in it changed, so a change in flight is not refused for it.
 */
export async function resealProfiles(
  env: Env,
  limit: number,
  startingAfter?: string,
): Promise<ProfileResult<ResealPage>> {
  const master = masterKey(env)
  if (!master) return fail('no_master_key')
  const rows = await env.DB.prepare('SELECT * FROM merchants WHERE id > ? ORDER BY id LIMIT ?')
    .bind(startingAfter ?? '', limit + 1)
    .all<Row>()
  const page = rows.results.slice(0, limit)
  let resealed = 0
  let current = 0
  const unreadable: string[] = []
  for (const first of page) {
    let row: Row | null = first
    // A write meanwhile (a failed swap) is read again: a version still holding only the key before
    // may have sealed it under that key again. Found under the key before is counted as resealed
    // even if the writes keep winning, so the pass that finds none stays the last one.
    for (let tries = 1; row; tries += 1) {
      const opened = await openRow(env, row)
      if (!opened) {
        unreadable.push(row.id)
        break
      }
      if (!opened.previous) {
        current += 1
        break
      }
      const written = await env.DB.prepare('UPDATE merchants SET secrets = ? WHERE id = ? AND secrets = ?')
        .bind(await sealSecrets(master, row.id, opened.secrets), row.id, row.secrets)
        .run()
      if (written.meta.changes === 1 || tries === RESEAL_TRIES) {
        resealed += 1
        break
      }
      row = await loadRow(env, row.id)
    }
  }
  return {
    ok: true,
    value: { resealed, current, unreadable, hasMore: rows.results.length > limit, last: page.at(-1)?.id ?? null },
  }
}

/**
 * Writes a changed profile if nobody changed it meanwhile (its `updated_at` is the version): two
 * platform calls at once never lose one's change silently; the second gets `conflict`.
 */
async function write(env: Env, before: Profile, after: Profile): Promise<ProfileResult<Profile>> {
  const master = masterKey(env)
  if (!master) return fail('no_master_key')
  const updatedAt = Math.max(Date.now(), before.updatedAt + 1)
  const result = await env.DB.prepare(
    'UPDATE merchants SET name = ?, status = ?, profile = ?, secrets = ?, updated_at = ? WHERE id = ? AND updated_at = ?',
  )
    .bind(
      after.name,
      after.status,
      JSON.stringify(after.settings),
      await sealSecrets(master, after.id, after.secrets),
      updatedAt,
      after.id,
      before.updatedAt,
    )
    .run()
    .catch((e: unknown) => {
      if (memberClash(e)) return undefined
      throw e
    })
  if (!result) return fail('member_taken')
  return result.meta.changes === 1 ? { ok: true, value: { ...after, updatedAt } } : fail('conflict')
}

export interface ProfileChange {
  readonly name?: string
  readonly status?: MerchantStatus
  readonly gateway?: Partial<GatewaySettings>
  readonly allowedOrigins?: readonly string[]
  /** null removes it: the merchant gets no webhooks. */
  readonly webhookUrl?: string | null
  readonly limits?: ProfileSettings['limits']
  /** A new secure key: the one before it still verifies notifications until `endSecureKeyOverlap`. */
  readonly secureKey?: string
  readonly endSecureKeyOverlap?: boolean
  readonly authToken?: string | null
  readonly qrAuthToken?: string | null
}

export async function updateProfile(env: Env, id: string, change: ProfileChange): Promise<ProfileResult<ProfileView>> {
  const before = await loadProfile(env, id)
  if (!before) return fail('not_found')
  const member = change.gateway?.memberId
  if (member !== undefined && member !== before.settings.gateway.memberId && (await memberTaken(env, member, id)))
    return fail('member_taken')
  const s = before.settings
  const { webhookUrl: _url, ...kept } = s
  const settings: ProfileSettings = {
    ...(change.webhookUrl === null ? kept : s),
    ...(change.gateway ? { gateway: { ...s.gateway, ...change.gateway } } : {}),
    ...(change.allowedOrigins ? { allowedOrigins: change.allowedOrigins } : {}),
    ...(typeof change.webhookUrl === 'string' ? { webhookUrl: change.webhookUrl } : {}),
    ...(change.limits ? { limits: change.limits } : {}),
  }
  const old = before.secrets
  const rotated = change.secureKey !== undefined && change.secureKey !== old.secureKey
  const { secureKeyPrevious: _prev, authToken: _a, qrAuthToken: _q, ...base } = old
  const secrets: ProfileSecrets = {
    ...base,
    secureKey: change.secureKey ?? old.secureKey,
    ...(rotated
      ? { secureKeyPrevious: old.secureKey }
      : old.secureKeyPrevious && !change.endSecureKeyOverlap
        ? { secureKeyPrevious: old.secureKeyPrevious }
        : {}),
    ...(change.authToken === null
      ? {}
      : (change.authToken ?? old.authToken)
        ? { authToken: change.authToken ?? old.authToken }
        : {}),
    ...(change.qrAuthToken === null
      ? {}
      : (change.qrAuthToken ?? old.qrAuthToken)
        ? { qrAuthToken: change.qrAuthToken ?? old.qrAuthToken }
        : {}),
  }
  const written = await write(env, before, {
    ...before,
    name: change.name ?? before.name,
    status: change.status ?? before.status,
    settings,
    secrets,
  })
  return written.ok ? { ok: true, value: viewOf(written.value, await keysOf(env, id)) } : written
}

/** A new API key (shown once), unless the merchant holds two active ones already. */
export async function issueApiKey(
  env: Env,
  id: string,
): Promise<ProfileResult<{ id: string; key: string; createdAt: number }>> {
  if (!(await loadRow(env, id))) return fail('not_found')
  const key = newApiKey()
  const keyId = newKeyId()
  const now = Date.now()
  // One statement: two issues at once cannot both see one active key and make three.
  const inserted = await env.DB.prepare(
    `INSERT INTO merchant_keys (hash, id, merchant_id, created_at)
     SELECT ?1, ?2, ?3, ?4 WHERE (SELECT count(*) FROM merchant_keys WHERE merchant_id = ?3 AND revoked_at IS NULL) < ?5`,
  )
    .bind(await keyHash(key), keyId, id, now, MAX_ACTIVE)
    .run()
  if (inserted.meta.changes !== 1) return fail('limit_reached')
  return { ok: true, value: { id: keyId, key, createdAt: now } }
}

/** Revokes an API key: refused on every route from this moment (key lookups are never cached). */
export async function revokeApiKey(env: Env, id: string, keyId: string): Promise<ProfileResult<{ id: string }>> {
  const result = await env.DB.prepare(
    'UPDATE merchant_keys SET revoked_at = ? WHERE id = ? AND merchant_id = ? AND revoked_at IS NULL',
  )
    .bind(Date.now(), keyId, id)
    .run()
  return result.meta.changes === 1 ? { ok: true, value: { id: keyId } } : fail('not_found')
}

/** A new webhook secret (shown once): deliveries are signed with both until the old one is retired. */
export async function addWebhookSecret(
  env: Env,
  id: string,
): Promise<ProfileResult<{ id: string; secret: string; createdAt: number }>> {
  const before = await loadProfile(env, id)
  if (!before) return fail('not_found')
  if (before.secrets.webhookSecrets.length >= MAX_ACTIVE) return fail('limit_reached')
  const added = newWebhookSecret()
  const written = await write(env, before, {
    ...before,
    secrets: { ...before.secrets, webhookSecrets: [...before.secrets.webhookSecrets, added] },
  })
  return written.ok ? { ok: true, value: added } : written
}

export async function retireWebhookSecret(
  env: Env,
  id: string,
  secretId: string,
): Promise<ProfileResult<{ id: string }>> {
  const before = await loadProfile(env, id)
  if (!before) return fail('not_found')
  const left = before.secrets.webhookSecrets.filter((s) => s.id !== secretId)
  if (left.length === before.secrets.webhookSecrets.length) return fail('not_found')
  if (left.length === 0) return fail('last_secret')
  const written = await write(env, before, { ...before, secrets: { ...before.secrets, webhookSecrets: left } })
  return written.ok ? { ok: true, value: { id: secretId } } : written
}

/** The active merchant whose active API key this is: read from D1 on every call, so a revoke holds at once. */
export async function merchantOfKey(env: Env, bearer: string): Promise<string | undefined> {
  if (!bearer.startsWith('mk_')) return undefined
  const hash = await keyHash(bearer)
  const row = await env.DB.prepare(
    `SELECT k.merchant_id AS id FROM merchant_keys k JOIN merchants m ON m.id = k.merchant_id
     WHERE k.hash = ? AND k.revoked_at IS NULL AND m.status = 'active'`,
  )
    .bind(hash)
    .first<{ id: string }>()
  return row?.id ?? undefined
}
