// The Worker's own added latency on a pay, without `wrangler dev`'s HTTP proxy in the loop: the
// sandbox and the Worker are started with wrangler's programmatic API (`unstable_startWorker`,
// the same bundling and workerd runtime as `wrangler dev`) and both are called in-process with
// its `fetch` (Miniflare's `dispatchFetch`), so no Node HTTP server sits between the client and
// either Worker. The Worker reaches the sandbox over loopback HTTP (its GATEWAY_BASE_URL), as it
// reaches a gateway in production; the direct baseline calls the sandbox the same in-process way.
// Nor, unless asked, wrangler's local trace collector: locally (wrangler 4, `X_LOCAL_OBSERVABILITY`,
// on by default) every Worker of a stack streams a trace of each invocation, Durable Object call,
// storage operation and fetch to a collector Worker in the same workerd process and thread, for
// `wrangler dev`'s local explorer. It is dev tooling (a deployed Worker's logs and traces are
// collected by Cloudflare's runtime, not by another Worker sharing its thread), and it costs the
// Worker, which makes many such calls per pay, more than the sandbox it is compared with.
// `npm run bench` measures both ways.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { unstable_startWorker } from 'wrangler'
import { startReceiver } from './receiver.mjs'
import { applyD1Migrations, PRODUCT_CONFIG, SANDBOX_CONFIG } from '../worker/dev/processes.mjs'

const plain = (vars) =>
  Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, { type: 'plain_text', value: String(v) }]))

/**
 * Starts the sandbox, the Worker and the floors' forwarder; `secrets` are the Worker's test
 * secrets; `traces`: with wrangler's local trace collector attached to each (as `wrangler dev`);
 * `webhooks`: with a webhook URL, a receiver on loopback (as a merchant's deployment has one).
 */
export async function startDirect({ tmp, secrets, vars = {}, traces = false, webhooks = false }) {
  // Read by wrangler when it builds each Worker's runtime (a variable, not an option of
  // `unstable_startWorker`), which is after its bundle is done: later than `unstable_startWorker`
  // and its URL resolve. So it stays set for the stack's whole life, and the persisted state
  // shows whether the collector was attached (its trace store), which must be as asked.
  const before = process.env.X_LOCAL_OBSERVABILITY
  process.env.X_LOCAL_OBSERVABILITY = String(traces)
  const restore = () => {
    if (before === undefined) delete process.env.X_LOCAL_OBSERVABILITY
    else process.env.X_LOCAL_OBSERVABILITY = before
  }
  const receiver = webhooks ? await startReceiver() : undefined
  const end = async () => {
    restore()
    await receiver?.stop()
  }
  try {
    const stack = await start({
      tmp,
      secrets,
      vars: receiver ? { ...vars, MERCHANT_WEBHOOK_URL: `${receiver.url}/webhooks` } : vars,
    })
    // One request to each: both runtimes are up (and their trace stores made, if attached).
    await (await stack.worker('/healthz')).text()
    await (await stack.sandbox('/healthz')).text()
    for (const name of ['worker', 'sandbox'])
      if (existsSync(join(tmp, name, 'v3', 'observability')) !== traces) {
        await stack.stop()
        throw new Error(`the ${name}'s trace collector is ${traces ? 'missing' : 'attached'}`)
      }
    return {
      ...stack,
      /** Webhook events the receiver got (0 without `webhooks`), once the last are in. */
      webhooksReceived: async () => (receiver ? receiver.quiet() : 0),
      stop: async () => {
        try {
          await stack.stop()
        } finally {
          await end()
        }
      },
    }
  } catch (e) {
    await end()
    throw e
  }
}

async function start({ tmp, secrets, vars }) {
  const dev = (persist) => ({
    server: { hostname: '127.0.0.1', port: 0 },
    inspector: false,
    logLevel: 'none',
    persist,
    watch: false,
  })
  const sandbox = await unstable_startWorker({ config: SANDBOX_CONFIG, dev: dev(join(tmp, 'sandbox')) })
  const sandboxUrl = (await sandbox.url).toString().replace(/\/$/, '')
  await applyD1Migrations({ config: PRODUCT_CONFIG, persistTo: join(tmp, 'worker') })
  const worker = await unstable_startWorker({
    config: PRODUCT_CONFIG,
    dev: dev(join(tmp, 'worker')),
    bindings: plain({
      ...secrets,
      GATEWAY_BASE_URL: sandboxUrl,
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      MERCHANT_WEBHOOK_URL: '',
      ...vars,
    }),
  })
  const workerUrl = (await worker.url).toString().replace(/\/$/, '')
  const forwarder = await unstable_startWorker({
    config: join(import.meta.dirname, 'forwarder.toml'),
    // Its objects' storage beside the product's, on the same disk or in the same memory: a floor
    // measured elsewhere would not be the product's floor (wrangler's default for no persistence
    // is the system's temporary directory, whatever `tmp` is).
    dev: dev(join(tmp, 'forwarder')),
    bindings: plain({ TARGET: sandboxUrl }),
  })
  const forwarderUrl = (await forwarder.url).toString().replace(/\/$/, '')
  return {
    sandboxUrl,
    sandbox: (path, init) => sandbox.fetch(`${sandboxUrl}${path}`, init),
    worker: (path, init) => worker.fetch(`${workerUrl}${path}`, init),
    /** The sandbox through a Worker that only forwards: the floor of any Worker here. */
    forwarded: (path, init) => forwarder.fetch(`${forwarderUrl}${path}`, init),
    /** The same through one Durable Object that writes before and after the gateway call: the floor of a pay that cannot be lost. */
    ledgered: (path, init) => forwarder.fetch(`${forwarderUrl}/ledger${path}`, init),
    stop: async () => Promise.all([worker.dispose(), sandbox.dispose(), forwarder.dispose()]),
  }
}
