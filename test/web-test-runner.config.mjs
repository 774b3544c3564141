// Browser tests of <pay-checkout> in real Chromium (Debian's), against the real Worker and the
// sandbox gateway, both run with `wrangler dev` for the run. A small middleware plays the
// merchant's server: it creates checkout sessions with the merchant API key, which never reaches
// the browser.
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

/** Sandbox + Worker for the run. */
const workerPlugin = {
  name: 'pay-worker',
  async serverStart() {
    const stack = await startStack({ stateDir: state, vars: { CARD_VELOCITY_LIMIT: '100000' } })
    worker = stack.worker
    sandbox = stack.sandbox
    stopStack = stack.stop
  },
  async serverStop() {
    await stopStack?.()
    rmSync(state, { recursive: true, force: true })
  },
}

/** `POST /__merchant/session` with a session body: what a merchant's server would do. */
async function merchantServer(ctx, next) {
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
  if (ctx.path === '/__merchant/state' && ctx.method === 'GET') {
    const res = await fetch(`${worker.url}/v1/sessions/${ctx.query.id}`, {
      headers: { Authorization: `Bearer ${MERCHANT_API_KEY}` },
    })
    ctx.type = 'application/json'
    ctx.body = await res.text()
    return
  }
  if (ctx.path === '/__merchant/invoice' && ctx.method === 'POST') {
    // An existing, already expired invoice in the sandbox, as the merchant's dashboard would have.
    const { createHash } = await import('node:crypto')
    const ref = `inv-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`
    const sum = createHash('md5')
      .update(['10001', 'sandbox-secure-key-0123456789', ref, '250.00'].join('|'))
      .digest('hex')
    const res = await fetch(`${sandbox.url}/invoiceServices/REST/v1/generate`, {
      method: 'POST',
      headers: { AuthToken: 'sandbox-auth-token', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        'authentication.memberId': '10001',
        'authentication.checksum': sum,
        merchantInvoiceId: ref,
        amount: '250.00',
        currency: 'EUR',
        invoiceExpirationPeriod: '0',
      }),
    })
    ctx.type = 'application/json'
    ctx.body = await res.text()
    return
  }
  // The strict-CSP page: no inline script or style allowed.
  if (ctx.path === '/test/widget/csp-page.html') {
    await next()
    ctx.set('Content-Security-Policy', "script-src 'self'; style-src 'self'")
    return
  }
  return next()
}

export default {
  rootDir: root,
  files: ['test/widget/**/*.test.ts'],
  nodeResolve: true,
  concurrency: 1,
  middleware: [merchantServer],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(root, 'tsconfig.json') }), workerPlugin],
  browsers: [chromeLauncher({ launchOptions: { executablePath: findChrome(), args: CHROME_ARGS, headless: true } })],
  testFramework: { config: { timeout: 30000 } },
  testsFinishTimeout: 240000,
  browserStartTimeout: 60000,
}
