/**
 * The token keeper (worker/gateway/token-keeper.ts): one Durable Object per merchant and token
 * service that asks the sandbox gateway for the AuthToken, over real HTTP, once for every caller.
 * Its callers stand in for many isolates: each isolate asks the keeper when it has no fresh token.
 */
import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { getAuthToken, jwtExpiry } from '../../worker/gateway/auth-token.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { uniqueId } from './helpers.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

/** The token requests the gateway receives while `run` runs. */
async function tokenRequestsDuring(run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(globalThis, 'fetch')
  try {
    await run()
    return spy.mock.calls.filter(([input]) => /\/authToken$/.test(input instanceof Request ? input.url : String(input)))
      .length
  } finally {
    spy.mockRestore()
  }
}

const keeper = () => env.TOKEN_KEEPERS.get(env.TOKEN_KEEPERS.idFromName(uniqueId('keeper')))
/** The sandbox merchant's credentials, as an isolate hands them to the keeper. */
const credentials = {
  baseUrl: env.GATEWAY_BASE_URL,
  partnerId: SANDBOX.partnerId,
  merchantUsername: SANDBOX.username,
  secureKey: SANDBOX.secureKey,
  timeoutMs: 2000,
}

describe('the token keeper', () => {
  it('30 concurrent callers get one token, from one request to the gateway, valid for about an hour', async () => {
    const k = keeper()
    let answers: Awaited<ReturnType<typeof k.token>>[] = []
    const requests = await tokenRequestsDuring(async () => {
      answers = await Promise.all(Array.from({ length: 30 }, () => k.token('transaction', credentials)))
    })
    expect(requests).toBe(1)
    const tokens = new Set(answers.map((a) => (a.ok ? a.token : `refused: ${a.reason}`)))
    expect(tokens.size).toBe(1)
    const [token] = [...tokens]
    expect((jwtExpiry(token ?? '') ?? 0) - Date.now()).toBeGreaterThan(55 * 60_000)
    // Later callers are answered from what it holds.
    expect(await tokenRequestsDuring(() => k.token('transaction', credentials))).toBe(0)
  })

  it('a refused token is replaced once however many callers report it; a caller reporting an older token gets the new one', async () => {
    const k = keeper()
    const first = await k.token('transaction', credentials)
    if (!first.ok) throw new Error(`no token: ${first.reason}`)
    let renewed: Awaited<ReturnType<typeof k.token>>[] = []
    const requests = await tokenRequestsDuring(async () => {
      renewed = await Promise.all(Array.from({ length: 10 }, () => k.token('transaction', credentials, first.token)))
    })
    expect(requests).toBe(1)
    expect(renewed.every((r) => r.ok)).toBe(true)
    // The invoice service has a token of its own.
    expect(await tokenRequestsDuring(() => k.token('invoice', credentials))).toBe(1)
  })

  it('an isolate whose keeper cannot be reached asks the gateway itself: a pay never waits on the keeper', async () => {
    const unreachable = {
      token: () => Promise.reject(new Error('Durable Object reset')),
    }
    // A base URL spelling of its own keeps this isolate cache entry apart from the other tests'.
    const source = {
      ...credentials,
      baseUrl: `${env.GATEWAY_BASE_URL}/?keeperless`,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
      keeper: unreachable,
    }
    let got: Awaited<ReturnType<typeof getAuthToken>> | undefined
    const requests = await tokenRequestsDuring(async () => {
      got = await getAuthToken(source, 'transaction')
    })
    expect(got).toMatchObject({ ok: true })
    expect(requests).toBe(1)
  })
})
