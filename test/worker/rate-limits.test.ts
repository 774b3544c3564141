/**
 * Rate limits that hold across isolates (SECURITY.md R23): the browser's and the merchant's
 * limiters, swapped here for a low test binding. The other hardening rules: hardening.test.ts.
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import app from '../../worker/index.ts'
import { keyProof } from '../../worker/console/caller.ts'
import { consoleSigner, CONSOLE_COOKIE, newSession } from '../../worker/console/session.ts'
import { browser, createSession } from './api.ts'

describe('rate limits that hold across isolates (R23)', () => {
  /** The Worker with its browser and merchant limiters swapped for the low test binding (3 a minute). */
  const lowLimits = () => ({
    ...env,
    RATE_LIMIT_BROWSER: env.RATE_LIMIT_TEST_LOW,
    RATE_LIMIT_MERCHANT: env.RATE_LIMIT_TEST_LOW,
  })

  it('browser routes: the fourth request a minute from one address is 429 rate_limited with Retry-After; another address is not affected', async () => {
    const s = await createSession()
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`
    const read = (from: string) =>
      app.fetch(
        new Request(`http://worker.test/v1/checkout/${s.id}`, {
          headers: {
            Authorization: `Bearer ${s.clientSecret}`,
            Origin: 'https://shop.example',
            'CF-Connecting-IP': from,
          },
        }),
        lowLimits(),
      )
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 4; i++) {
      last = await read(ip)
      statuses.push(last.status)
    }
    expect(statuses).toEqual([200, 200, 200, 429])
    expect(last?.headers.get('Retry-After')).toMatch(/^\d+$/)
    expect(last?.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example')
    expect(await last?.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } })
    expect((await read(`2001:db8::${Math.floor(Math.random() * 9999)}`)).status).toBe(200)
  })

  it('browser routes: the addresses of one IPv6 /64 share one count (rotating through them is no new client); another /64 is not affected', async () => {
    const s = await createSession()
    const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`
    const read = (from: string) =>
      app.fetch(
        new Request(`http://worker.test/v1/checkout/${s.id}`, {
          headers: { Authorization: `Bearer ${s.clientSecret}`, 'CF-Connecting-IP': from },
        }),
        lowLimits(),
      )
    const statuses: number[] = []
    for (const host of ['::1', '::2', ':0:0:0:3', '::abcd']) statuses.push((await read(`${net}${host}`)).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    expect((await read(`2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:2::1`)).status).toBe(200)
    // An IPv4 address written as IPv6 is that address; the special forms whose /64 is all zeros
    // are each their own client, not one shared count.
    const v4 = `203.0.113.${Math.floor(Math.random() * 250) + 1}`
    const mapped: number[] = []
    for (const from of [v4, v4, `::ffff:${v4}`, `::ffff:${v4}`]) mapped.push((await read(from)).status)
    expect(mapped).toEqual([200, 200, 200, 429])
    expect((await read(`::${Math.floor(Math.random() * 0xffff).toString(16)}`)).status).toBe(200)
  })

  it('the shopper’s return (which can start a gateway inquiry) and the card frame count against the same address', async () => {
    const s = await createSession()
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`
    const get = (path: string) =>
      app.fetch(new Request(`http://worker.test${path}`, { headers: { 'CF-Connecting-IP': ip } }), lowLimits())
    const statuses = [
      (await get(`/v1/return/${s.id}`)).status,
      (await get(`/frame/${s.id}`)).status,
      (await get(`/v1/return/${s.id}`)).status,
      (await get(`/frame/${s.id}`)).status,
    ]
    expect(statuses).toEqual([200, 200, 200, 429])
  })

  it('merchant routes: the fourth request a minute with one merchant key is 429 rate_limited, across sessions, payments and invoices', async () => {
    const ask = (method: string, path: string) =>
      app.fetch(
        new Request(`http://worker.test${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${env.MERCHANT_API_KEY}`,
            'Content-Type': 'application/json',
            'CF-Connecting-IP': '203.0.113.60',
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        }),
        lowLimits(),
      )
    const statuses = [
      (await ask('POST', '/v1/sessions')).status,
      (await ask('GET', `/v1/sessions/cs_${'A'.repeat(24)}`)).status,
      (await ask('POST', '/v1/payments/123/inquiry')).status,
    ]
    expect(statuses).toEqual([400, 404, 404])
    const fourth = await ask('POST', '/v1/invoices/INV1/regenerate')
    expect(fourth.status).toBe(429)
    expect(fourth.headers.get('Retry-After')).toMatch(/^\d+$/)
    expect(fourth.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(await fourth.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } })
  })

  it('wrong merchant keys are counted per address: a new key on each guess still meets the limit; another address is not affected', async () => {
    const guess = (ip: string) =>
      app.fetch(
        new Request('http://worker.test/v1/sessions/cs_' + 'B'.repeat(24), {
          headers: { Authorization: `Bearer sk_guess_${Math.random().toString(36).slice(2)}`, 'CF-Connecting-IP': ip },
        }),
        lowLimits(),
      )
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await guess('203.0.113.61')).status)
    expect(statuses).toEqual([401, 401, 401, 429])
    expect((await guess('203.0.113.62')).status).toBe(401)
  })

  it('a console user has a count of their own, one however often they sign in: bad keys from their address do not use it up; a forged cookie, and any sign-in, is a guess', async () => {
    const signer = consoleSigner(env)
    if (!signer) throw new Error('the test Worker signs console sessions')
    const signIn = async () =>
      (
        await newSession(signer, {
          merchant: 'default',
          via: 'key',
          proof: await keyProof(signer, env.MERCHANT_API_KEY),
        })
      ).cookie
    const [cookie, again] = [await signIn(), await signIn()]
    expect(again).not.toBe(cookie)
    const ip = `203.0.113.${Math.floor(Math.random() * 150) + 100}`
    const read = (headers: Record<string, string>) =>
      app.fetch(
        new Request('http://worker.test/v1/sessions?limit=1', {
          headers: { 'CF-Connecting-IP': ip, 'Sec-Fetch-Site': 'same-origin', ...headers },
        }),
        lowLimits(),
      )
    const guesses: number[] = []
    for (let i = 0; i < 3; i++) guesses.push((await read({ Authorization: `Bearer sk_guess_${i}` })).status)
    expect(guesses).toEqual([401, 401, 401])
    // The address's guesses are spent; the signed-in user on it reads, up to the limit of their
    // own, which a second sign-in of theirs shares.
    const own: number[] = []
    for (const c of [cookie, again, cookie, again]) own.push((await read({ Cookie: `${CONSOLE_COOKIE}=${c}` })).status)
    expect(own).toEqual([200, 200, 200, 429])
    const [payload] = cookie.split('.')
    expect((await read({ Cookie: `${CONSOLE_COOKIE}=${payload}.forged` })).status).toBe(429)
    // A key tried at the sign-in is a guess of the address, whatever cookie comes with it.
    const tried = await app.fetch(
      new Request('http://worker.test/console/api/session', {
        method: 'POST',
        headers: {
          'CF-Connecting-IP': ip,
          'Content-Type': 'application/json',
          Cookie: `${CONSOLE_COOKIE}=${cookie}`,
          Origin: new URL(env.PUBLIC_BASE_URL).origin,
        },
        body: JSON.stringify({ apiKey: 'sk_guess_signin' }),
      }),
      lowLimits(),
    )
    expect(tried.status).toBe(429)
  })

  it('the suites run under the configured limits: a burst of 50 reads from one address is never limited', async () => {
    const s = await createSession()
    const answers = await Promise.all(Array.from({ length: 50 }, () => browser(s, 'GET', '')))
    expect(answers.map((a) => a.status).filter((st) => st !== 200)).toEqual([])
  })
})
