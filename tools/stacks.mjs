// Stacks for tests and benchmarks: the process helpers of `npm start` (worker/dev/processes.mjs)
// with the test secrets. Tests and benchmarks import both from here. Their stacks run without
// wrangler's local trace collector (`traces`, startWrangler): dev tooling that no test reads, which
// took about a quarter of the test stacks' workerd CPU, and the tests run CPU-bound on two cores.
// The benchmarks ask for it where they measure `wrangler dev` as a developer runs it.
import { join } from 'node:path'
import {
  freePort,
  PRODUCT_CONFIG,
  SANDBOX_CONFIG,
  startDemoStack as startDemoChain,
  startWrangler,
} from '../worker/dev/processes.mjs'
import { TEST_SECRETS as STACK_SECRETS } from './credentials.ts'

export {
  offlineEnv,
  freePort,
  waitFor,
  startWrangler,
  stopProcess,
  root,
  SANDBOX_CONFIG,
  PRODUCT_CONFIG,
  DEMO_CONFIG,
} from '../worker/dev/processes.mjs'

/** The Worker's secrets in tests (sandbox values plus test-only merchant and webhook keys). */
export { TEST_SECRETS as STACK_SECRETS } from './credentials.ts'

/**
 * The sandbox gateway and the product Worker wired to it, each a `wrangler dev` on a free port
 * with its state under `stateDir`. `vars` are extra Worker variables (and secrets, as `--var`).
 * No demo: webhooks go nowhere unless a test names its own MERCHANT_WEBHOOK_URL.
 * @param {{ stateDir: string, vars?: Record<string, string>, sandboxVars?: Record<string, string>, traces?: boolean }} options
 */
export async function startStack({
  stateDir,
  vars = {},
  sandboxVars = { SANDBOX_PENDING_DELAY_MS: '300' },
  traces = false,
}) {
  // Both at once: the Worker needs only the sandbox's address, known once its port is chosen.
  const [sandboxPort, port] = [await freePort(), await freePort()]
  const running = []
  const started = (p) => p.then((r) => (running.push(r), r))
  const all = await Promise.allSettled([
    started(
      startWrangler({
        config: SANDBOX_CONFIG,
        port: sandboxPort,
        persistTo: join(stateDir, 'sandbox'),
        vars: sandboxVars,
        label: 'sandbox',
        traces,
      }),
    ),
    started(
      startWrangler({
        config: PRODUCT_CONFIG,
        port,
        persistTo: join(stateDir, 'worker'),
        vars: {
          GATEWAY_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          MERCHANT_WEBHOOK_URL: '',
          ...STACK_SECRETS,
          ...vars,
        },
        label: 'worker',
        traces,
      }),
    ),
  ])
  const failed = all.find((r) => r.status === 'rejected')
  if (failed) {
    await Promise.all(running.map((r) => r.stop()))
    throw failed.reason
  }
  const [sandbox, worker] = all.map((r) => r.value)
  return { sandbox, worker, stop: async () => Promise.all([worker.stop(), sandbox.stop()]) }
}

/**
 * The demo chain (sandbox, product Worker, demo shop Worker in front) with the test secrets, on
 * free ports. `demo.url` is the public origin, as http://127.0.0.1:8787 is under `npm start`.
 * @param {{ stateDir: string, vars?: Record<string, string>, sandboxVars?: Record<string, string>, traces?: boolean }} options
 */
export function startDemoStack({
  stateDir,
  vars = {},
  sandboxVars = { SANDBOX_PENDING_DELAY_MS: '300' },
  traces = false,
}) {
  const { MERCHANT_API_KEY, WEBHOOK_SECRET } = STACK_SECRETS
  return startDemoChain({
    stateDir,
    sandboxVars,
    productVars: { ...STACK_SECRETS, ...vars },
    // The demo holds only what a merchant's server needs: no gateway credential.
    demoVars: { MERCHANT_API_KEY, WEBHOOK_SECRET },
    together: true,
    traces,
  })
}
