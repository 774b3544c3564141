/**
 * The server SDK's typed client (`createPayClient`, openapi-fetch on the types generated from the
 * API document), as the README shows it: the snippet is typechecked as written (strict, against
 * the SDK's sources) and run against the Worker, creating a session; a bad body comes back as the
 * typed error with field names. The README's webhook handler is typechecked the same way.
 * The demo shop's server side uses the same client (its smoke and end-to-end tests run it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { unstable_startWorker } from 'wrangler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPayClient } from '../../server/index.ts'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { PRODUCT_CONFIG, root } from '../../tools/stacks.mjs'
import { typecheckAgainstSdk } from '../support/typecheck.ts'
import { applyD1Migrations } from '../../worker/dev/processes.mjs'

const tmp = mkdtempSync(join(tmpdir(), 'pay-client-'))
const snippet =
  /<!-- server-sdk-client -->\n```ts\n([\s\S]*?)```/.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1] ?? ''
let worker: Awaited<ReturnType<typeof unstable_startWorker>>
let url = ''

beforeAll(async () => {
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false'
  await applyD1Migrations({ config: PRODUCT_CONFIG, persistTo: join(tmp, 'state') })
  const plain = (vars: Record<string, string>) =>
    Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, { type: 'plain_text' as const, value: v }]))
  worker = await unstable_startWorker({
    config: PRODUCT_CONFIG,
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: false,
      logLevel: 'none',
      persist: join(tmp, 'state'),
      watch: false,
    },
    bindings: plain({ ...TEST_SECRETS, PUBLIC_BASE_URL: 'http://127.0.0.1:9', MERCHANT_WEBHOOK_URL: '' }),
  })
  url = (await worker.url).toString().replace(/\/$/, '')
}, 120_000)

afterAll(async () => {
  await worker?.dispose()
  rmSync(tmp, { recursive: true, force: true })
})

describe('the README server SDK snippet', () => {
  it('is in the README and uses the client', () => {
    expect(snippet).toContain("from 'pay-checkout/server'")
    expect(snippet).toContain('createPayClient(')
  })

  it('typechecks as written, strict, against the SDK', () => {
    expect(typecheckAgainstSdk(join(tmp, 'typecheck'), 'snippet.ts', `${snippet}\nexport {}\n`)).toBe('')
  })

  it("the README's webhook handler (verifyWebhook) typechecks as written, strict", () => {
    const block =
      [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)]
        .map((m) => m[1] ?? '')
        .find((b) => b.includes('verifyWebhook(')) ?? ''
    expect(block).toContain("from 'pay-checkout/server'")
    expect(typecheckAgainstSdk(join(tmp, 'webhook'), 'webhook.ts', block)).toBe('')
  })

  it("the README's platform client snippet (many merchants) typechecks as written, strict", () => {
    const block =
      [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)]
        .map((m) => m[1] ?? '')
        .find((b) => b.includes('createPlatformClient(')) ?? ''
    expect(block).toContain("from 'pay-checkout/server'")
    const file = `${block}\ndeclare const WORKER: string\ndeclare const SECURE_KEY: string\ndeclare const process: { env: Record<string, string | undefined> }\nexport { shop }\n`
    expect(typecheckAgainstSdk(join(tmp, 'platform'), 'platform.ts', file)).toBe('')
  })

  it('runs against the Worker and creates a session', async () => {
    const file = join(tmp, 'run.ts')
    const logged: unknown[][] = []
    const code = snippet
      .replace("'pay-checkout/server'", `'${pathToFileURL(join(root, 'server/index.ts')).href}'`)
      .replace("'http://127.0.0.1:8787'", `'${url}'`)
      .replace("'sk_sandbox_merchant_0123456789'", `'${TEST_SECRETS.MERCHANT_API_KEY}'`)
      .replaceAll('console.log(', 'globalThis.__log(')
    expect(code).not.toContain('8787')
    writeFileSync(file, code)
    ;(globalThis as { __log?: (...a: unknown[]) => void }).__log = (...a) => logged.push(a)
    await import(/* @vite-ignore */ pathToFileURL(file).href)
    expect(logged).toHaveLength(1)
    expect(logged[0]?.[0]).toMatch(/^cs_/)
    expect(logged[0]?.[1]).toBe('clientSecret received')
  })
})

describe('createPayClient', () => {
  it('answers a refused body as the typed error, each field with what it expects', async () => {
    const pay = createPayClient({ baseUrl: `${url}/`, apiKey: TEST_SECRETS.MERCHANT_API_KEY })
    const { data, error, response } = await pay.POST('/v1/sessions', {
      body: { flow: 'card', amount: '49', currency: 'EUR', merchantTransactionId: 'bad|ref' },
    })
    expect(data).toBeUndefined()
    expect(response.status).toBe(400)
    expect(error?.error.code).toBe('invalid_request')
    expect(error?.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'amount', code: 'format', expected: expect.any(String) }),
        expect.objectContaining({ field: 'merchantTransactionId', code: 'format' }),
      ]),
    )
  })

  it('reads a session back by id, and a wrong key is 401', async () => {
    const pay = createPayClient({ baseUrl: url, apiKey: TEST_SECRETS.MERCHANT_API_KEY })
    const created = await pay.POST('/v1/sessions', {
      body: { methods: ['card', 'qr'], amount: '5.00', currency: 'EUR', merchantTransactionId: `c-${Date.now()}` },
    })
    const id = created.data?.id ?? ''
    const read = await pay.GET('/v1/sessions/{id}', { params: { path: { id } } })
    expect(read.data).toMatchObject({ id, status: 'open', amount: '5.00', methods: ['card', 'qr'] })
    const wrong = await createPayClient({ baseUrl: url, apiKey: 'nope' }).GET('/v1/sessions/{id}', {
      params: { path: { id } },
    })
    expect(wrong.response.status).toBe(401)
  })

  it('retries a call whose answer was lost with the same Idempotency-Key: the Worker acts once and replays', async () => {
    const keys: string[] = []
    let lost = 1
    const pay = createPayClient({
      baseUrl: url,
      apiKey: TEST_SECRETS.MERCHANT_API_KEY,
      retries: 2,
      // The first answer is lost on the way back: the Worker did create the session.
      fetch: async (request) => {
        keys.push(request.headers.get('Idempotency-Key') ?? '')
        const answer = await fetch(request)
        if (lost-- > 0) throw new TypeError('connection reset')
        return answer
      },
    })
    const order = `retry-${Date.now()}`
    const { data, response } = await pay.POST('/v1/sessions', {
      body: { flow: 'card', amount: '5.00', currency: 'EUR', merchantTransactionId: order },
    })
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).toBe(keys[0])
    expect(response.headers.get('Idempotent-Replayed')).toBe('true')
    // One session for the order (the index follows the session by a moment).
    let ids: string[] = []
    for (let i = 0; i < 60 && ids.length === 0; i++) {
      ids = (await pay.GET('/v1/sessions', { params: { query: { order } } })).data?.data.map((s) => s.id) ?? []
      if (ids.length === 0) await new Promise((r) => setTimeout(r, 100))
    }
    expect(ids).toEqual([data?.id])
  })

  it('retries what may answer otherwise in a moment (a key still in progress, a 503, a Retry-After date), never the gateway’s refusal', async () => {
    const error = (status: number, code: string, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify({ error: { code, message: code } }), {
        status,
        headers: { 'Content-Type': 'application/json', ...headers },
      })
    const answers = (script: Response[]) => {
      const tries: string[] = []
      const client = createPayClient({
        baseUrl: 'http://pay.test',
        apiKey: 'sk_test',
        retries: 3,
        fetch: async (request) => {
          tries.push(request.headers.get('Idempotency-Key') ?? '')
          return script.shift() ?? new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } })
        },
      })
      return { client, tries }
    }
    const refund = (client: ReturnType<typeof createPayClient>) =>
      client.POST('/v1/payments/{paymentId}/refunds', {
        params: { path: { paymentId: 'p1' }, header: { 'Idempotency-Key': 'refund-p1' } },
        body: {},
      })
    // Still in progress, then unavailable with a Retry-After date in the past: tried again, same key.
    const soon = new Date(Date.now() - 1000).toUTCString()
    const busy = answers([
      error(409, 'idempotency_in_progress'),
      error(503, 'gateway_unavailable', { 'Retry-After': soon }),
    ])
    expect((await refund(busy.client)).response.status).toBe(200)
    expect(busy.tries).toEqual(['refund-p1', 'refund-p1', 'refund-p1'])
    // The gateway refused: the same again, so asked once. Another 409 is an answer too.
    for (const final of [
      error(502, 'gateway_rejected'),
      error(502, 'gateway_auth_failed'),
      error(409, 'payment_state'),
    ]) {
      const once = answers([final])
      expect((await refund(once.client)).response.status).toBe(final.status)
      expect(once.tries).toHaveLength(1)
    }
  })

  it('gives up a try that takes longer than timeoutMs and tries again with the same Idempotency-Key', async () => {
    const keys: string[] = []
    let hang = 1
    const client = createPayClient({
      baseUrl: 'http://pay.test',
      apiKey: 'sk_test',
      retries: 1,
      timeoutMs: 50,
      // The first try never answers (until its signal gives it up); the second does.
      fetch: (request) => {
        keys.push(request.headers.get('Idempotency-Key') ?? '')
        if (hang-- > 0)
          return new Promise((_, reject) =>
            request.signal.addEventListener('abort', () => reject(request.signal.reason)),
          )
        return Promise.resolve(new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } }))
      },
    })
    const { response } = await client.POST('/v1/payments/{paymentId}/void', {
      params: { path: { paymentId: 'p1' }, header: { 'Idempotency-Key': 'void-p1' } },
      body: {},
    })
    expect(response.status).toBe(200)
    expect(keys).toEqual(['void-p1', 'void-p1'])
    expect(() => createPayClient({ baseUrl: 'http://pay.test', apiKey: 'k', timeoutMs: 0 })).toThrow(TypeError)
  })

  it('lists with the query as the document describes it: metadata[key]=value from an object, a bad limit named', async () => {
    const pay = createPayClient({ baseUrl: url, apiKey: TEST_SECRETS.MERCHANT_API_KEY })
    const page = await pay.GET('/v1/sessions', { params: { query: { metadata: { run: 'none-such' }, limit: 5 } } })
    expect(page.response.status).toBe(200)
    expect(page.data).toEqual({ object: 'list', data: [], has_more: false })
    const bad = await pay.GET('/v1/payments', { params: { query: { limit: 500, metadata: { a: '1', b: '2' } } } })
    expect(bad.response.status).toBe(400)
    expect(bad.error?.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'limit', code: 'out_of_range' }),
        expect.objectContaining({ field: 'metadata', code: 'out_of_range' }),
      ]),
    )
  })
})
