#!/usr/bin/env node
// `npm start`: the sandbox gateway on 127.0.0.1:8788 and the Worker on 127.0.0.1:8787, wired
// together. `npm run sandbox` (--sandbox-only) starts the sandbox alone.
// Arguments after `--` go to the Worker's `wrangler dev` (e.g. `npm start -- --var MEMBER_ID:42`).
import { join } from 'node:path'
import { root, startWrangler } from '../../test/support/processes.mjs'

const args = process.argv.slice(2)
const sandboxOnly = args.includes('--sandbox-only')
const passThrough = args.filter((a) => a !== '--sandbox-only')
const running = []

async function main() {
  const sandbox = await startWrangler({
    config: join(root, 'worker/sandbox/wrangler.toml'),
    port: 8788,
    persistTo: join(root, '.wrangler/state-sandbox'),
    quiet: false,
    label: 'sandbox',
  })
  running.push(sandbox)
  console.log(`\nSandbox gateway: ${sandbox.url}`)
  if (!sandboxOnly) {
    const worker = await startWrangler({
      config: join(root, 'wrangler.toml'),
      port: 8787,
      persistTo: join(root, '.wrangler/state'),
      extraArgs: passThrough,
      quiet: false,
      label: 'worker',
    })
    running.push(worker)
    console.log(`Worker:          ${worker.url}  (health: ${worker.url}/healthz)`)
  }
  console.log('\nPress Ctrl+C to stop.')
  for (const r of running) r.child.once('exit', (code) => shutdown(code ?? 1))
}

let stopping = false
async function shutdown(code = 0) {
  if (stopping) return
  stopping = true
  await Promise.all(running.map((r) => r.stop()))
  process.exit(code)
}
process.on('SIGINT', () => shutdown(0))
process.on('SIGTERM', () => shutdown(0))

main().catch(async (e) => {
  console.error(e.message)
  await shutdown(1)
})
