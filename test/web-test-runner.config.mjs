// Browser tests in real Chromium (Debian's), in two groups: the components alone from fixtures
// (test/widget/components/, no server: `npm run test:components`), then <pay-checkout> against the
// real Worker and the sandbox gateway, both run with `wrangler dev` for the run. A small middleware
// plays the merchant's server: it creates checkout sessions with the merchant API key, which never
// reaches the browser.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { esbuildPlugin } from '@web/dev-server-esbuild'
import { chromeLauncher } from '@web/test-runner-chrome'
import { CHROME_ARGS, findChrome } from '../tools/chrome.mjs'
import { root, STACK_SECRETS, startStack } from '../tools/stacks.mjs'

const { MERCHANT_API_KEY } = STACK_SECRETS
const state = mkdtempSync(join(tmpdir(), 'pay-wtr-'))
let worker
let sandbox
let stopStack

/**
 * Sandbox + Worker, started with the run unless it is the components group alone (which needs no
 * server), so they come up while the components run; stopped with the run. Started on the first
 * request instead, a busy machine (`npm test` runs the static checks beside) could spend the
 * first checkout test's whole timeout waiting for them.
 */
let starting
function stackReady() {
  starting ??= startStack({ stateDir: state, vars: { CARD_VELOCITY_LIMIT: '100000' } }).then((stack) => {
    worker = stack.worker
    sandbox = stack.sandbox
    stopStack = stack.stop
  })
  return starting
}
const componentsOnly = process.argv.includes('--group') && process.argv.includes('components')
const workerPlugin = {
  name: 'pay-worker',
  serverStart() {
    // Not awaited: the components group runs meanwhile; requests to the merchant's server wait.
    if (!componentsOnly) stackReady().catch(() => undefined)
  },
  async serverStop() {
    await starting?.catch(() => undefined)
    await stopStack?.()
    rmSync(state, { recursive: true, force: true })
  },
}

/** `POST /__merchant/session` with a session body: what a merchant's server would do. */
async function merchantServer(ctx, next) {
  if (ctx.path.startsWith('/__merchant/')) await stackReady()
  if (ctx.path === '/__merchant/session' && ctx.method === 'POST') {
    const chunks = []
    for await (const chunk of ctx.req) chunks.push(chunk)
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}')
    // A null drops a default below (a setup session has no amount).
    const drop = Object.keys(body).filter((k) => body[k] === null)
    const origin = `${ctx.protocol}://${ctx.host}`
    const res = await fetch(`${worker.url}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(
        Object.fromEntries(
          Object.entries({
            amount: '100.00',
            currency: 'EUR',
            merchantTransactionId: `wtr-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
            allowedOrigins: [origin],
            ...body,
          }).filter(([k]) => !drop.includes(k)),
        ),
      ),
    })
    ctx.status = res.status
    ctx.type = 'application/json'
    ctx.body = JSON.stringify({ ...(await res.json()), endpoint: worker.url })
    return
  }
  if (ctx.path === '/__merchant/ready') {
    ctx.status = 204
    return
  }
  if (ctx.path === '/__merchant/state' && ctx.method === 'GET') {
    const res = await fetch(`${worker.url}/v1/sessions/${ctx.query.id}`, {
      headers: { Authorization: `Bearer ${MERCHANT_API_KEY}` },
    })
    ctx.type = 'application/json'
    ctx.body = await res.text()
    return
  }
  if (ctx.path === '/__merchant/return' && ctx.method === 'GET') {
    // Where the gateway's page sends the shopper back (the Worker's return), as the shopper's
    // browser would open it: the result page's HTML.
    const res = await fetch(`${worker.url}/v1/return/${encodeURIComponent(String(ctx.query.id))}`, {
      redirect: 'manual',
    })
    ctx.status = res.status
    ctx.type = 'text/html'
    ctx.body = await res.text()
    return
  }
  if (ctx.path === '/__merchant/registration' && ctx.method === 'DELETE') {
    // The merchant deletes a saved card (its server's call to the merchant API).
    const res = await fetch(`${worker.url}/v1/registrations/${encodeURIComponent(String(ctx.query.id))}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${MERCHANT_API_KEY}`, 'Idempotency-Key': crypto.randomUUID() },
    })
    ctx.status = res.status
    ctx.type = 'application/json'
    ctx.body = await res.text()
    return
  }
  if (ctx.path === '/__merchant/invoice' && ctx.method === 'POST') {
    // An existing, already expired invoice in the sandbox, as the merchant's dashboard would have
    // (the sandbox's test control): `{ systemInvoiceId }`.
    const ref = `inv-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`
    const res = await fetch(`${sandbox.url}/sandbox/invoices`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ merchantInvoiceId: ref, amount: '250.00', currency: 'EUR', invoiceExpirationPeriod: '0' }),
    })
    ctx.status = res.status
    ctx.type = 'application/json'
    ctx.body = await res.text()
    return
  }
  // The strict-CSP page: no inline script or style allowed, and Trusted Types enforced (the
  // policies the README names).
  if (ctx.path === '/test/widget/csp-page.html') {
    await next()
    ctx.set(
      'Content-Security-Policy',
      "script-src 'self'; style-src 'self'; require-trusted-types-for 'script'; trusted-types pay-checkout lit-html",
    )
    return
  }
  return next()
}

export default {
  rootDir: root,
  // Components from fixtures alone (no server), then the checkout and the frame against the Worker.
  groups: [
    { name: 'components', files: 'test/widget/components/*.test.ts' },
    { name: 'checkout', files: 'test/widget/*.test.ts' },
  ],
  nodeResolve: true,
  concurrency: 1,
  middleware: [merchantServer],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(root, 'tsconfig.json') }), workerPlugin],
  browsers: [chromeLauncher({ launchOptions: { executablePath: findChrome(), args: CHROME_ARGS, headless: true } })],
  testFramework: { config: { timeout: 30000 } },
  testsFinishTimeout: 240000,
  browserStartTimeout: 60000,
}
