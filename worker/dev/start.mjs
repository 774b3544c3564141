#!/usr/bin/env node
// `npm start`: the sandbox gateway on 127.0.0.1:8788, the product Worker on 127.0.0.1:8790, and
// the demo shop Worker on 127.0.0.1:8787 in front of it (/demo/ is the shop, every other path is
// forwarded to the product Worker: see worker/demo/index.ts for why one public origin).
// `npm run sandbox` (--sandbox-only) starts the sandbox alone.
// Arguments after `--` go to the product Worker's `wrangler dev` (e.g. `npm start -- --var MEMBER_ID:42`).
import { join } from 'node:path'
import { root, SANDBOX_CONFIG, startDemoStack, startWrangler, stopAllOnExit } from './processes.mjs'

// `--port N` (the demo shop's public origin, default 8787), `--worker-port N` (8790) and
// `--sandbox-port N` (8788; with `npm run sandbox`, `--port N` is the sandbox's): taken out here,
// everything else goes on to the product Worker's `wrangler dev`.
const PORT_FLAGS = ['--port', '--worker-port', '--sandbox-port']
const ports = {}
const args = []
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  const flag = PORT_FLAGS.find((f) => a === f || a.startsWith(`${f}=`))
  if (!flag) {
    args.push(a)
    continue
  }
  const value = a === flag ? argv[++i] : a.slice(flag.length + 1)
  if (!/^\d{1,5}$/.test(value ?? '') || Number(value) < 1 || Number(value) > 65535) {
    console.error(
      `${flag} needs a port number from 1 to 65535 (got ${value === undefined ? 'nothing' : JSON.stringify(value)})`,
    )
    process.exit(2)
  }
  ports[flag] = Number(value)
}
const sandboxOnly = args.includes('--sandbox-only')
const passThrough = args.filter((a) => a !== '--sandbox-only')
// Where the three Workers keep their local state; PAY_STATE_DIR gives a run its own (the stop
// tests: a start killed part-way must not leave anything the next one reads).
const stateDir = process.env.PAY_STATE_DIR || join(root, '.wrangler/state')
// From here on, a signal at any moment of the start-up (or after) stops every process started so far.
const shutdown = stopAllOnExit()

async function main() {
  let running
  if (sandboxOnly) {
    const sandbox = await startWrangler({
      config: SANDBOX_CONFIG,
      port: ports['--port'] ?? ports['--sandbox-port'] ?? 8788,
      persistTo: join(stateDir, 'sandbox'),
      quiet: false,
      label: 'sandbox',
    })
    running = [sandbox]
    console.log(`\nSandbox gateway: ${sandbox.url}`)
  } else {
    const stack = await startDemoStack({
      stateDir,
      ports: {
        sandbox: ports['--sandbox-port'] ?? 8788,
        product: ports['--worker-port'] ?? 8790,
        demo: ports['--port'] ?? 8787,
      },
      productArgs: passThrough,
      // The product Worker reads .dev.vars beside wrangler.toml; the demo's config is elsewhere,
      // so it is given the same file (its config loads only the secrets it names).
      demoArgs: ['--env-file', join(root, '.dev.vars')],
      quiet: false,
      together: true,
    })
    running = [stack.sandbox, stack.product, stack.demo]
    console.log(`\nSandbox gateway: ${stack.sandbox.url}`)
    console.log(`Worker:          ${stack.product.url}  (behind the demo's origin)`)
    console.log(
      `Demo shop:       ${stack.demo.url}/demo/  (every other path on ${stack.demo.url} is the Worker's: ${stack.demo.url}/healthz)`,
    )
    console.log(
      `Console:         ${stack.demo.url}/demo/console  (the merchant console, signed in as the demo merchant)`,
    )
  }
  console.log('\nPress Ctrl+C to stop.')
  // One of them ending ends the rest: a demo without its Worker is no demo.
  for (const r of running) r.child.once('exit', (code) => shutdown(code ?? 1))
}

main().catch((e) => {
  console.error(e.message)
  shutdown(1)
})
