/**
 * The deployment's profile key (`MERCHANT_SECRETS_KEY`) rotates without a merchant going dark
 * (SECURITY.md, "Merchant profiles"): with the key before it in `MERCHANT_SECRETS_KEY_PREVIOUS`,
 * profiles it sealed still open, and the platform API seals them again under the new key a page at
 * a time. Over the platform routes, with this file's own database; the Worker's variables of each
 * step of the rotation are given to its fetch.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { extraMemberGateway, PLATFORM_SECRETS } from '../../tools/credentials.ts'
import { frameToken, frameTokenOrigins } from '../../worker/frame/token.ts'
import { newProfile } from './api.ts'
import { uniqueId } from './helpers.ts'

const OLD = PLATFORM_SECRETS.MERCHANT_SECRETS_KEY
const NEW = 'the-next-merchant-secrets-master-key-9876543210'
const THIRD = 'a-third-master-key-nobody-configured-0123456789'

/** The Worker's profile keys at one step of a rotation. */
type Keys = { MERCHANT_SECRETS_KEY: string; MERCHANT_SECRETS_KEY_PREVIOUS?: string }
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

  it('names a profile neither key opens, and seals nothing under the key before', async () => {
    // A profile sealed under a key this deployment never had (a dump restored from elsewhere).
    const created = await platformWith<{ merchant: { id: string } }>(
      { MERCHANT_SECRETS_KEY: THIRD },
      'POST',
      '/merchants',
      {
        name: `Shop ${uniqueId('m')}`,
        gateway: extraMemberGateway(44),
      },
    )
    expect(created.status).toBe(201)
    const lost = created.body.merchant.id
    const pass = await resealAll(DURING, 25)
    expect(pass.unreadable).toEqual([lost])
    // The others went under the new key: back under the configured one for the rest of the file.
    expect((await resealAll({ MERCHANT_SECRETS_KEY: OLD, MERCHANT_SECRETS_KEY_PREVIOUS: NEW }, 25)).unreadable).toEqual(
      [lost],
    )
    // The previous key only opens: with it as the only usable key nothing is sealed.
    const keyless = await platformWith(
      { MERCHANT_SECRETS_KEY: ' ', MERCHANT_SECRETS_KEY_PREVIOUS: OLD },
      'POST',
      '/merchant-secrets/reseal',
    )
    expect(keyless.status).toBe(500)
    expect(JSON.stringify(keyless.body)).toContain('MERCHANT_SECRETS_KEY is not set')
    // Its own key still opens it: nothing was written to it.
    expect((await platformWith({ MERCHANT_SECRETS_KEY: THIRD }, 'GET', `/merchants/${lost}`)).status).toBe(200)
  })

  it("a session's frame token signed before the rotation still verifies while the key before it is set", async () => {
    const id = 'cs_AAAAAAAAAAAAAAAAAAAAAAAA'
    const origins = ['https://shop.example']
    const token = await frameToken({ ...env, ...BEFORE }, id, origins, Date.now() + 60_000)
    expect(token).toBeDefined()
    expect(await frameTokenOrigins({ ...env, ...DURING }, id, token)).toEqual(origins)
    // Once the previous key is deleted, the route reads the session instead (the token is ignored).
    expect(await frameTokenOrigins({ ...env, ...AFTER }, id, token)).toBeUndefined()
    // And a token signed under the new key verifies during and after.
    const fresh = await frameToken({ ...env, ...DURING }, id, origins, Date.now() + 60_000)
    expect(await frameTokenOrigins({ ...env, ...AFTER }, id, fresh)).toEqual(origins)
  })
})
