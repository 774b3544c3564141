// Starting and stopping the sandbox gateway and the Worker as real `wrangler dev` processes,
// shared by `npm start`, the test setup and the benchmarks.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TEST_SECRETS as STACK_SECRETS } from './credentials.ts'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const wranglerBin = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js')

/** Environment for wrangler that keeps it offline: no metrics, no Cloudflare lookups. */
export const offlineEnv = () => ({
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_LOG: process.env.WRANGLER_LOG ?? 'warn',
})

/** A TCP port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export async function waitFor(url, timeoutMs = 60_000, child) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process for ${url} exited with ${child.exitCode}`)
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}

/**
 * Starts `wrangler dev` for a config on 127.0.0.1:port and waits for /healthz.
 * `vars` become `--var NAME:value` overrides; `extraArgs` are passed through.
 */
export async function startWrangler({ config, port, persistTo, vars = {}, extraArgs = [], quiet = true, label = 'wrangler' }) {
  const args = [
    wranglerBin, 'dev', '-c', config, '--ip', '127.0.0.1', '--port', String(port),
    '--inspector-port', String(await freePort()), '--persist-to', persistTo, '--show-interactive-dev-session=false',
    ...Object.entries(vars).map(([k, v]) => ['--var', `${k}:${v}`]).flat(),
    ...extraArgs,
  ]
  const child = spawn(process.execPath, args, { cwd: root, env: offlineEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
  let output = ''
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000)
    if (!quiet) process.stdout.write(chunk.toString().replace(/^/gm, `[${label}] `))
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const url = `http://127.0.0.1:${port}`
  try {
    await waitFor(`${url}/healthz`, 90_000, child)
  } catch (e) {
    stopProcess(child)
    throw new Error(`${label} did not start: ${e.message}\n${output}`)
  }
  return { url, child, output: () => output, stop: () => stopProcess(child) }
}

/** Ends a process and everything it started (wrangler runs workerd as a child). */
export function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      child.kill('SIGTERM')
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // gone already
      }
    }, 5_000).unref()
  })
}

/** The Worker's secrets in tests (sandbox values plus test-only merchant and webhook keys). */
export { TEST_SECRETS as STACK_SECRETS } from './credentials.ts'

/**
 * The sandbox gateway and the Worker wired to it, each a `wrangler dev` on a free port with its
 * state under `stateDir`. `vars` are extra Worker variables (and secrets, as `--var`).
 * @param {{ stateDir: string, vars?: Record<string, string>, sandboxVars?: Record<string, string> }} options
 */
export async function startStack({ stateDir, vars = {}, sandboxVars = { SANDBOX_PENDING_DELAY_MS: '300' } }) {
  const sandbox = await startWrangler({ config: join(root, 'worker/sandbox/wrangler.toml'), port: await freePort(), persistTo: join(stateDir, 'sandbox'), vars: sandboxVars, label: 'sandbox' })
  const port = await freePort()
  let worker
  try {
    worker = await startWrangler({
      config: join(root, 'wrangler.toml'),
      port,
      persistTo: join(stateDir, 'worker'),
      // Webhooks go to the demo shop's receiver unless a test names its own.
      vars: { GATEWAY_BASE_URL: sandbox.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, MERCHANT_WEBHOOK_URL: `http://127.0.0.1:${port}/demo/webhooks`, ...STACK_SECRETS, ...vars },
      label: 'worker',
    })
  } catch (e) {
    await sandbox.stop()
    throw e
  }
  return { sandbox, worker, stop: async () => Promise.all([worker.stop(), sandbox.stop()]) }
}
