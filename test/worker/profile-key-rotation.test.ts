/**
 * The deployment's profile key (`MERCHANT_SECRETS_KEY`) rotates without a merchant going dark
 * (SECURITY.md, "Merchant profiles"): with the key before it in `MERCHANT_SECRETS_KEY_PREVIOUS`,
 * profiles it sealed still open, and the platform API seals them again under the new key a page at
 * a time. Over the platform routes, with this file's own profiles (setup.ts empties the database
 * before each file); the Worker's variables of each step of the rotation are given to its fetch.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { extraMemberGateway, PLATFORM_SECRETS } from '../../tools/credentials.ts'
import { frameToken, frameTokenClaims } from '../../worker/frame/token.ts'
import { newProfile } from './api.ts'
import { uniqueId } from './helpers.ts'

const OLD = PLATFORM_SECRETS.MERCHANT_SECRETS_KEY
const NEW = 'the-next-merchant-secrets-master-key-9876543210'
const THIRD = 'a-third-master-key-nobody-configured-0123456789'

/** The Worker's profile keys at one step of a rotation (and, to interleave a write, its database). */
type Keys = { MERCHANT_SECRETS_KEY: string; MERCHANT_SECRETS_KEY_PREVIOUS?: string; DB?: D1Database }
const BEFORE: Keys = { MERCHANT_SECRETS_KEY: OLD }
const DURING: Keys = { MERCHANT_SECRETS_KEY: NEW, MERCHANT_SECRETS_KEY_PREVIOUS: OLD }
const AFTER: Keys = { MERCHANT_SECRETS_KEY: NEW }

/** A platform call to a Worker holding `keys`. */
async function platformWith<T = Record<string, unknown>>(
  keys: Keys,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const { default: app } = await import('../../worker/index.ts')
  const res = await app.fetch(
    new Request(`http://worker.test/v1/platform${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${PLATFORM_SECRETS.PLATFORM_API_KEY}`,
        'Content-Type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { ...env, MERCHANT_SECRETS_KEY_PREVIOUS: undefined, ...keys },
  )
  return { status: res.status, body: (await res.json()) as T }
}

/**
 * The database, with `meanwhile` run just before the reseal's write of profile `id`: another
 * request's write landing between the reseal's read and its own.
 */
function interleaved(id: string, meanwhile: () => Promise<void>): D1Database {
  const db = env.DB
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== 'prepare') {
        const value: unknown = Reflect.get(target, prop)
        return typeof value === 'function' ? value.bind(target) : value
      }
      return (sql: string) => {
        const statement = target.prepare(sql)
        if (!sql.startsWith('UPDATE merchants SET secrets = ? WHERE id = ? AND secrets = ?')) return statement
        return {
          bind: (...values: unknown[]) => ({
            run: async () => {
              if (values[1] === id) await meanwhile()
              return statement.bind(...values).run()
            },
          }),
        }
      }
    },
  })
}

interface ResealPage {
  object: string
  resealed: number
  current: number
  unreadable: string[]
  has_more: boolean
  last: string | null
}

/** Every page of a reseal with `keys`, `limit` profiles a page, summed. */
async function resealAll(keys: Keys, limit: number) {
  const total = { resealed: 0, current: 0, unreadable: [] as string[], pages: 0 }
  let after: string | null = null
  do {
    const q: URLSearchParams = new URLSearchParams({
      limit: String(limit),
      ...(after ? { starting_after: after } : {}),
    })
    const page: { status: number; body: ResealPage } = await platformWith<ResealPage>(
      keys,
      'POST',
      `/merchant-secrets/reseal?${q}`,
    )
    expect(page.status).toBe(200)
    expect(page.body.object).toBe('merchant_secrets_reseal')
    total.resealed += page.body.resealed
    total.current += page.body.current
    total.unreadable.push(...page.body.unreadable)
    total.pages += 1
    after = page.body.has_more ? page.body.last : null
  } while (after)
  return total
}

describe("the profiles' key rotates without a merchant going dark", () => {
  it('with the key before it set, every profile still opens; the reseal moves them page by page, and then the new key alone opens them', async () => {
    const ids = await Promise.all([41, 42, 43].map(async (member) => (await newProfile(member)).merchant.id))
    const views = await Promise.all(ids.map((id) => platformWith(BEFORE, 'GET', `/merchants/${id}`)))
    for (const v of views) expect(v.status).toBe(200)

    // A new key alone opens none of them (a deploy of the new key without the previous one).
    for (const id of ids) expect((await platformWith(AFTER, 'GET', `/merchants/${id}`)).status).toBe(404)
    // Step 1 of the rotation: both keys; every profile reads as it did.
    for (const [i, id] of ids.entries()) expect(await platformWith(DURING, 'GET', `/merchants/${id}`)).toEqual(views[i])

    // Step 2: the reseal, two profiles a page.
    expect(await resealAll(DURING, 2)).toEqual({ resealed: 3, current: 0, unreadable: [], pages: 2 })
    // Run again, it finds nothing left under the key before: the previous key can go.
    expect(await resealAll(DURING, 2)).toEqual({ resealed: 0, current: 3, unreadable: [], pages: 2 })

    // Step 3: the new key alone; the profiles read as before (their version unchanged), and the
    // old key no longer opens them: they really were sealed again.
    for (const [i, id] of ids.entries()) {
      expect(await platformWith(AFTER, 'GET', `/merchants/${id}`)).toEqual(views[i])
      expect((await platformWith(BEFORE, 'GET', `/merchants/${id}`)).status).toBe(404)
    }
    // A change under the new key keeps working (its version check included).
    const renamed = await platformWith<{ name: string }>(AFTER, 'PATCH', `/merchants/${ids[0]}`, { name: 'Renamed' })
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Renamed' } })

    // Back under the configured key, for this file's other tests and as a rotation in reverse.
    expect(await resealAll({ MERCHANT_SECRETS_KEY: OLD, MERCHANT_SECRETS_KEY_PREVIOUS: NEW }, 25)).toEqual({
      resealed: 3,
      current: 0,
      unreadable: [],
      pages: 1,
    })
    for (const id of ids) expect((await platformWith(BEFORE, 'GET', `/merchants/${id}`)).status).toBe(200)
  })

  it('names a profile neither key opens; a key before that is the key, short, or without a key opens nothing more', async () => {
    const kept = (await newProfile(44)).merchant.id
    // A profile sealed under a key this deployment never had (a dump restored from elsewhere).
    const created = await platformWith<{ merchant: { id: string } }>(
      { MERCHANT_SECRETS_KEY: THIRD },
      'POST',
      '/merchants',
      {
        name: `Shop ${uniqueId('m')}`,
        gateway: extraMemberGateway(45),
      },
    )
    expect(created.status).toBe(201)
    const lost = created.body.merchant.id
    expect((await resealAll(DURING, 25)).unreadable).toEqual([lost])
    // Back under the configured key for the rest of the file (the lost one still named).
    expect((await resealAll({ MERCHANT_SECRETS_KEY: OLD, MERCHANT_SECRETS_KEY_PREVIOUS: NEW }, 25)).unreadable).toEqual(
      [lost],
    )
    // A key before that is the key itself finds everything under it already.
    expect(await resealAll({ MERCHANT_SECRETS_KEY: OLD, MERCHANT_SECRETS_KEY_PREVIOUS: OLD }, 25)).toMatchObject({
      resealed: 0,
      unreadable: [lost],
    })
    // A short one (a placeholder) opens nothing and is logged by name.
    const errors = vi.spyOn(console, 'error')
    const short = { ...AFTER, MERCHANT_SECRETS_KEY_PREVIOUS: 'old-key' }
    expect((await platformWith(short, 'GET', `/merchants/${kept}`)).status).toBe(404)
    expect(errors.mock.calls.flat().join(' ')).toMatch(
      /rotation_secret_ignored.*"variable":"MERCHANT_SECRETS_KEY_PREVIOUS"/,
    )
    errors.mockRestore()
    // Without a current key profiles are off: the key before does not keep them on, nor seal.
    const keyless = { MERCHANT_SECRETS_KEY: ' ', MERCHANT_SECRETS_KEY_PREVIOUS: OLD }
    expect((await platformWith(keyless, 'GET', `/merchants/${kept}`)).status).toBe(404)
    const refused = await platformWith(keyless, 'POST', '/merchant-secrets/reseal')
    expect(refused.status).toBe(500)
    expect(JSON.stringify(refused.body)).toContain('MERCHANT_SECRETS_KEY is not set')
    // Nothing was written to the lost one: its own key still opens it.
    expect((await platformWith({ MERCHANT_SECRETS_KEY: THIRD }, 'GET', `/merchants/${lost}`)).status).toBe(200)
  })

  it('a profile written meanwhile by a version holding only the old key keeps its change and ends under the new key', async () => {
    const id = (await newProfile(46)).merchant.id
    // Between the reseal's read and its write, the version before the rotation (the old key
    // only) adds a webhook secret: it seals the profile under the old key again.
    let added = 0
    const racing = interleaved(id, async () => {
      if (added++ > 0) return
      expect((await platformWith(BEFORE, 'POST', `/merchants/${id}/webhook-secrets`)).status).toBe(201)
    })
    const page = await platformWith<ResealPage>({ ...DURING, DB: racing }, 'POST', '/merchant-secrets/reseal?limit=100')
    expect(page.status).toBe(200)
    expect(added).toBeGreaterThan(0)
    // The reseal read it again and sealed it under the new key, with the secret added meanwhile.
    const after = await platformWith<{ webhookSecrets: unknown[] }>(AFTER, 'GET', `/merchants/${id}`)
    expect(after.status).toBe(200)
    expect(after.body.webhookSecrets).toHaveLength(2)
    // Back under the configured key for the rest of the file.
    await resealAll({ MERCHANT_SECRETS_KEY: OLD, MERCHANT_SECRETS_KEY_PREVIOUS: NEW }, 25)
  })

  it("a session's frame token signed before the rotation still verifies while the key before it is set", async () => {
    const id = 'cs_AAAAAAAAAAAAAAAAAAAAAAAA'
    const origins = ['https://shop.example']
    const token = await frameToken({ ...env, ...BEFORE }, id, origins, Date.now() + 60_000)
    expect(token).toBeDefined()
    expect(await frameTokenClaims({ ...env, ...DURING }, id, token)).toEqual({ origins, prefilled: [] })
    // Once the previous key is deleted, the route reads the session instead (the token is ignored).
    expect(await frameTokenClaims({ ...env, ...AFTER }, id, token)).toBeUndefined()
    // And a token signed under the new key verifies during and after.
    const fresh = await frameToken({ ...env, ...DURING }, id, origins, Date.now() + 60_000)
    expect(await frameTokenClaims({ ...env, ...AFTER }, id, fresh)).toEqual({ origins, prefilled: [] })
  })
})
