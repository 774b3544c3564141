// Token requests with many isolates (`npm run bench`, bench/README.md): the product Worker's
// bundle (what `wrangler deploy` uploads) run as N Workers in one Miniflare, each its own V8 isolate
// with its own memory and its own session objects (as a deployment's sessions run in isolates on
// many machines), all bound to the first one's token keepers (one per merchant and service for the
// whole deployment), paying against the sandbox gateway, which counts the AuthTokens it issues.
// Run twice: with the keepers, and without their binding (each isolate then asks the gateway
// itself, as before the keepers).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { unstable_splitSqlQuery } from 'wrangler'
import { cardBody, merchant } from './load.mjs'
import { root, STACK_SECRETS } from '../tools/stacks.mjs'

const CLASSES = {
  SESSIONS: 'CheckoutSession',
  OPERATIONS: 'MerchantOperation',
  VELOCITY: 'CardVelocity',
  ORDERS: 'OrderRegistry',
  BREAKER: 'DeclineBreaker',
  PAYMENTS: 'PaymentObject',
  REGISTRATIONS: 'RegistrationObject',
  TOKEN_KEEPERS: 'TokenKeeper',
}

/** The product Worker as `wrangler deploy` bundles it (development configuration). */
function bundle() {
  const out = mkdtempSync(join(tmpdir(), 'pay-bundle-'))
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', out],
    { cwd: root, stdio: 'ignore', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
  )
  return { path: join(out, 'index.js'), dir: out }
}

/**
 * `pays` card payments on fresh sessions through `isolates` Workers in turn, `concurrency` at a
 * time; `keepers`: whether the Workers have the token keepers' binding. Answers the token requests
 * the gateway saw, errors, and charges against successes.
 */
async function run({ script, sandboxUrl, isolates, pays, concurrency, keepers }) {
  const classes = Object.entries(CLASSES).filter(([name]) => keepers || name !== 'TOKEN_KEEPERS')
  const bindings = {
    ...STACK_SECRETS,
    GATEWAY_BASE_URL: sandboxUrl,
    MEMBER_ID: '10001',
    TERMINAL_ID: '2001',
    PARTNER_ID: '3001',
    MERCHANT_USERNAME: 'sandbox-merchant',
    PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    ALLOWED_ORIGINS: 'http://127.0.0.1:9',
    MERCHANT_WEBHOOK_URL: '',
    CARD_VELOCITY_LIMIT: '1000000',
    BREAKER_MIN_ATTEMPTS: '1000000',
    BREAKER_SOURCE_MIN_ATTEMPTS: '1000000',
  }
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      // workerd resolves modules under this root: the bundle's own folder.
      rootPath: dirname(script),
      workers: Array.from({ length: isolates }, (_, i) => ({
        name: `w${i}`,
        modules: true,
        scriptPath: script,
        compatibilityDate: '2026-10-01',
        bindings,
        // Each isolate runs its own sessions; the keepers are the first one's, for all of them.
        durableObjects: Object.fromEntries(
          classes.map(([name, className]) => [
            name,
            { className, useSQLite: true, ...(i > 0 && name === 'TOKEN_KEEPERS' ? { scriptName: 'w0' } : {}) },
          ]),
        ),
        d1Databases: { DB: 'pay-checkout-index' },
      })),
    }),
  )
  try {
    const workers = await Promise.all(Array.from({ length: isolates }, (_, i) => mf.getWorker(`w${i}`)))
    // The search index's tables, as `wrangler d1 migrations apply` makes them.
    const db = await mf.getD1Database('DB', 'w0')
    for (const file of readdirSync(join(root, 'migrations'))
      .filter((f) => f.endsWith('.sql'))
      .sort())
      for (const sql of unstable_splitSqlQuery(readFileSync(join(root, 'migrations', file), 'utf8')))
        await db.prepare(sql).run()
    const call = (i, path, init) => workers[i % isolates].fetch(`http://worker.test${path}`, init)
    const stats = async () => (await fetch(`${sandboxUrl}/sandbox/stats`)).json()
    const before = await stats()
    let next = 0
    let errors = 0
    let succeeded = 0
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < pays) {
          const i = next++
          // Created and paid through the same isolate: its objects are its own.
          const s = await merchant({ fetch: (path, init) => call(i, path, init) }, '/v1/sessions', {
            flow: 'card',
            amount: '10.00',
            currency: 'EUR',
            merchantTransactionId: `iso-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`,
          })
          const paid = await call(i, `/v1/checkout/${s.id}/pay`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${s.clientSecret}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': `iso-${s.id}`,
            },
            body: cardBody,
          })
          const body = await paid.json()
          if (paid.status === 200 && body.status === 'succeeded') succeeded += 1
          else errors += 1
        }
      }),
    )
    const after = await stats()
    return {
      tokenRequests: after.tokens - before.tokens,
      pays,
      succeeded,
      errors,
      charges: after.charges - before.charges,
    }
  } finally {
    await mf.dispose()
  }
}

/** Both runs, on the sandbox at `sandboxUrl`. */
export async function tokensAcrossIsolates(sandboxUrl, { isolates = 8, pays = 1000, concurrency = 16 } = {}) {
  const { path: script, dir } = bundle()
  try {
    const keeper = await run({ script, sandboxUrl, isolates, pays, concurrency, keepers: true })
    const perIsolate = await run({ script, sandboxUrl, isolates, pays, concurrency, keepers: false })
    return { isolates, concurrency, keeper, perIsolate }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
