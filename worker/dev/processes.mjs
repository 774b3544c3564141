// Starting and stopping `wrangler dev` processes (the sandbox gateway, the product Worker, the demo
// shop), shared by `npm start`, the tests and the benchmarks. It lives with the product's scripts
// and depends on nothing under test/, so `npm start` never runs test code.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, utimesSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const wranglerBin = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js')

// Every process started here is tracked from the moment spawn() returns, in its own process group
// (wrangler runs workerd as a child, so one group holds one whole tree). Three ways to end them:
// - stopAll(): what a script's signal handler or error path awaits;
// - the 'exit' hook: any exit of this process that still leaves groups behind SIGTERMs them;
// - the reaper: a small detached process that reads the group ids from a pipe and, when the pipe
//   closes (this process died, even by SIGKILL, which runs no hook), ends every group still alive.
const tracked = new Set()
let refusing = false
let reaper

function reaperPipe() {
  if (reaper) return reaper
  const script = `
    const groups = new Set(); let buf = ''
    process.on('SIGINT', () => {}); process.on('SIGTERM', () => {}); process.on('SIGHUP', () => {})
    const alive = (g) => { try { process.kill(-g, 0); return true } catch { return false } }
    process.stdin.on('data', (c) => {
      buf += c; const lines = buf.split('\\n'); buf = lines.pop()
      for (const l of lines) l[0] === '+' ? groups.add(Number(l.slice(1))) : groups.delete(Number(l.slice(1)))
    })
    process.stdin.on('close', () => {
      const left = [...groups].filter(alive)
      for (const g of left) try { process.kill(-g, 'SIGTERM') } catch {}
      const deadline = Date.now() + 5000
      const check = setInterval(() => {
        const still = left.filter(alive)
        if (still.length && Date.now() < deadline) return
        for (const g of still) try { process.kill(-g, 'SIGKILL') } catch {}
        clearInterval(check); process.exit(0)
      }, 100)
    })`
  reaper = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'ignore', 'ignore'], detached: true })
  reaper.unref()
  reaper.stdin.on('error', () => {}) // the reaper gone first: nothing more to tell it
  reaper.stdin.unref?.()
  process.once('exit', () => {
    for (const child of tracked) signalGroup(child, 'SIGTERM')
  })
  return reaper
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // gone already
    }
  }
}

/**
 * spawn() in a process group of its own, tracked until it exits (see above). After stopAll() has
 * begun, nothing new starts: a start-up still under way when a signal came fails instead.
 */
export function spawnTracked(command, args, options = {}) {
  if (refusing) throw new Error('stopping: no new process is started')
  const pipe = reaperPipe()
  const child = spawn(command, args, { ...options, detached: process.platform !== 'win32' })
  if (child.pid === undefined) return child
  tracked.add(child)
  pipe.stdin.write(`+${child.pid}\n`)
  child.once('exit', () => {
    tracked.delete(child)
    if (!pipe.stdin.destroyed) pipe.stdin.write(`-${child.pid}\n`)
  })
  return child
}

/** Stops every tracked process tree (each as stopProcess does) and starts no new one. */
export async function stopAll() {
  refusing = true
  await Promise.all([...tracked].map((child) => stopProcess(child)))
}

/**
 * For a command-line script: SIGINT, SIGTERM and SIGHUP at any moment, or an error nobody caught,
 * stop every tracked tree and then exit. Returns that stop, for the script's own error paths.
 */
export function stopAllOnExit() {
  let stopping
  const stop = (code) => {
    stopping ??= stopAll().finally(() => process.exit(code))
    return stopping
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0))
  process.on('uncaughtException', (e) => {
    console.error(e)
    stop(1)
  })
  process.on('unhandledRejection', (e) => {
    console.error(e)
    stop(1)
  })
  return stop
}

/** Environment for wrangler that keeps it offline: no metrics, no Cloudflare lookups. */
export const offlineEnv = () => ({
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_LOG: process.env.WRANGLER_LOG ?? 'warn',
})

/**
 * A TCP port nobody listens on right now, below the OS's ephemeral range (Linux 32768 to 60999,
 * macOS and Windows 49152 up).
 */
export async function freePort() {
  // A port is free only until somebody binds it, and its process (wrangler) binds it seconds later.
  // A port from the ephemeral range (what listen(0) gives) is also what the OS gives every outgoing
  // connection meanwhile: a test run makes thousands to 127.0.0.1, and one of them on that port
  // made wrangler fail with "Address already in use". Ports below the range are taken only by a
  // listener that names them. Stacks started together must not get the same one twice either,
  // nor stacks of two processes (vitest runs test files in processes of their own): a port handed
  // out is reserved for a minute by a file of that name, which one process alone can create.
  for (let tries = 0; tries < 1_000; tries++) {
    const port = LOW_PORT + Math.floor(Math.random() * (HIGH_PORT - LOW_PORT))
    if (reserved(port) && (await bindable(port))) return port
  }
  throw new Error(`no free port on 127.0.0.1 between ${LOW_PORT} and ${HIGH_PORT} (is the loopback interface up?)`)
}

/** Reserves `port` for a minute across this machine's processes; false when another holds it. */
function reserved(port) {
  // Per user: another user's directory in a shared /tmp could not be written.
  const dir = join(tmpdir(), `pay-checkout-ports-${userInfo().uid}`)
  const file = join(dir, String(port))
  mkdirSync(dir, { recursive: true })
  try {
    closeSync(openSync(file, 'wx'))
    return true
  } catch (e) {
    if (e.code !== 'EEXIST') throw e
  }
  // A reservation older than a minute is over (its port is bound by now, or was never used).
  try {
    if (Date.now() - statSync(file).mtimeMs < 60_000) return false
    const now = new Date()
    utimesSync(file, now, now)
    return true
  } catch {
    return false
  }
}
// Tests that name their ports (`npm start -- --port`, `npm run sandbox -- --port`) use 18xxx and
// 28xxx, outside this. A machine whose ephemeral range starts lower gets the ports below it.
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768
  } catch {
    return 32_768
  }
})()
const HIGH_PORT = Math.min(28_000, EPHEMERAL_LOW)
const LOW_PORT = Math.max(1_024, Math.min(20_000, HIGH_PORT - 4_000))

/** Whether 127.0.0.1:port can be listened on now (nothing listens there). */
function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
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
 * Starts `wrangler dev` for a config on 127.0.0.1:port and waits for `readyPath` (/healthz) to answer.
 * `vars` become `--var NAME:value` overrides; `extraArgs` are passed through. `traces: false` runs
 * it without wrangler's local trace collector (`X_LOCAL_OBSERVABILITY`, on by default: a Worker in
 * the same workerd thread that each invocation, storage operation and fetch is streamed to, for the
 * local explorer); unset, as the environment says.
 * @param {{ config: string, port: number, persistTo: string, vars?: Record<string, string>, extraArgs?: string[],
 *   quiet?: boolean, label?: string, readyPath?: string, traces?: boolean }} options
 */
export async function startWrangler({
  config,
  port,
  persistTo,
  vars = {},
  extraArgs = [],
  quiet = true,
  label = 'wrangler',
  readyPath = '/healthz',
  traces,
}) {
  // The product Worker's search index (D1) needs its tables before the first request. A state
  // directory without a database gets its migrated copy before workerd starts (workerd creates the
  // D1 folder as it starts: a copy then would meet it). An existing database is migrated while the
  // Worker starts (SQLite shares the file between the two processes), and the Worker counts as
  // started when both are done.
  const product = config === PRODUCT_CONFIG
  const fresh = product && !existsSync(join(persistTo, 'v3', 'd1'))
  if (fresh) await applyD1Migrations({ config, persistTo })
  const migrated = product && !fresh ? applyD1Migrations({ config, persistTo }) : Promise.resolve()
  migrated.catch(() => undefined) // awaited below; until then a failure must not go unhandled
  const args = [
    wranglerBin,
    'dev',
    '-c',
    config,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(await freePort()),
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
    ...Object.entries(vars)
      .map(([k, v]) => ['--var', `${k}:${v}`])
      .flat(),
    ...extraArgs,
  ]
  const child = spawnTracked(process.execPath, args, {
    cwd: root,
    env: { ...offlineEnv(), ...(traces === undefined ? {} : { X_LOCAL_OBSERVABILITY: String(traces) }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000)
    if (!quiet) process.stdout.write(chunk.toString().replace(/^/gm, `[${label}] `))
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const url = `http://127.0.0.1:${port}`
  try {
    await Promise.all([waitFor(`${url}${readyPath}`, 90_000, child), migrated])
  } catch (e) {
    stopProcess(child)
    throw new Error(`${label} did not start: ${e.message}\n${output}`, { cause: e })
  }
  return { url, child, output: () => output, stop: () => stopProcess(child) }
}

/**
 * The product's local D1 database migrated, in `persistTo`: what `wrangler d1 migrations apply DB
 * --local` gives (non-interactive, so it does not ask for confirmation). A `wrangler d1 migrations
 * apply` costs about 6 CPU-seconds (wrangler, then workerd) and the tests start a dozen stacks, so:
 * a state directory without a D1 database gets a copy of one migrated once per set of migrations
 * (kept under node_modules/.cache), and one that a run here already migrated with the same
 * migrations (its marker file says so: `npm start`'s state) is left as it is. Any other database
 * gets the migrations it lacks, nothing else.
 */
/** In a state's D1 folder: the digest of the migrations it was migrated with (migrationsDigest). */
const MIGRATED_MARKER = '.pay-checkout-migrations'

export async function applyD1Migrations({ config, persistTo }) {
  const d1 = join(persistTo, 'v3', 'd1')
  const marker = join(d1, MIGRATED_MARKER)
  const digest = await migrationsDigest(config)
  if ((await readFile(marker, 'utf8').catch(() => '')) === digest) return
  if (existsSync(d1)) {
    await runD1Migrations({ config, persistTo })
    await writeFile(marker, digest)
    return
  }
  // Copied beside and renamed into place: a start stopped halfway (Ctrl+C in its first second)
  // leaves no half-copied database behind, and a database folder made meanwhile is never
  // overwritten (the rename fails instead).
  const template = await migratedTemplate(config, digest)
  await mkdir(dirname(d1), { recursive: true })
  const copying = await mkdtemp(`${d1}.copying-`)
  try {
    await cp(join(template, 'v3', 'd1'), copying, { recursive: true })
    await writeFile(join(copying, MIGRATED_MARKER), digest)
    await rename(copying, d1)
  } finally {
    await rm(copying, { recursive: true, force: true })
  }
}

const templates = new Map()
/** The migrated template's state directory, built on first use (one build per process at a time). */
function migratedTemplate(config, digest) {
  if (!templates.has(digest)) {
    const built = (async () => {
      const dir = join(root, 'node_modules', '.cache', 'pay-checkout', `d1-${digest}`)
      if (existsSync(join(dir, 'v3', 'd1'))) return dir
      // Built beside and renamed into place, so another process never copies half a template: of
      // two that build at once, the second's rename fails and its copy is dropped.
      await mkdir(dirname(dir), { recursive: true })
      const building = await mkdtemp(`${dir}.building-`)
      try {
        await runD1Migrations({ config, persistTo: building })
        await rename(building, dir).catch((e) => {
          if (!existsSync(join(dir, 'v3', 'd1'))) throw e
        })
      } finally {
        await rm(building, { recursive: true, force: true })
      }
      return dir
    })()
    templates.set(digest, built)
    built.catch(() => templates.delete(digest)) // a failed build is tried again next time
  }
  return templates.get(digest)
}

/**
 * Names what a database was migrated from: the migrations, the config (the database's name and id
 * name its file) and the wrangler (its workerd writes the file).
 */
async function migrationsDigest(config) {
  const dir = join(dirname(config), 'migrations')
  const hash = createHash('sha256')
  hash.update(JSON.parse(await readFile(join(root, 'node_modules', 'wrangler', 'package.json'), 'utf8')).version)
  hash.update(await readFile(config))
  for (const name of (await readdir(dir)).sort()) hash.update(`\0${name}\0`).update(await readFile(join(dir, name)))
  return hash.digest('hex').slice(0, 16)
}

function runD1Migrations({ config, persistTo }) {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(
      process.execPath,
      [wranglerBin, 'd1', 'migrations', 'apply', 'DB', '--local', '-c', config, '--persist-to', persistTo],
      {
        cwd: root,
        env: { ...offlineEnv(), CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    child.stdout.on('data', (c) => (output = (output + c).slice(-10_000)))
    child.stderr.on('data', (c) => (output = (output + c).slice(-10_000)))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`wrangler d1 migrations apply failed (${code}):\n${output}`)),
    )
  })
}

/** Ends a process and everything it started (wrangler runs workerd as a child). */
export function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    signalGroup(child, 'SIGTERM')
    setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // gone already
      }
    }, 5_000).unref()
  })
}

export const SANDBOX_CONFIG = join(root, 'worker/sandbox/wrangler.toml')
export const PRODUCT_CONFIG = join(root, 'wrangler.toml')
export const DEMO_CONFIG = join(root, 'worker/demo/wrangler.toml')

/**
 * The demo chain as `npm start` runs it: the sandbox gateway, the product Worker, and the demo
 * shop Worker in front of it. The demo owns the public port: it serves /demo/* and forwards every
 * other path to the product Worker, so the product's PUBLIC_BASE_URL (notification, 3-D Secure
 * return and frame URLs) is the demo's origin, and the product's own port is only the demo's
 * upstream. Ports default to free ones; state goes under `stateDir`.
 * @param {{ stateDir: string, ports?: { sandbox?: number, product?: number, demo?: number },
 *   sandboxVars?: Record<string, string>, productVars?: Record<string, string>, demoVars?: Record<string, string>,
 *   productArgs?: string[], demoArgs?: string[], quiet?: boolean, together?: boolean, traces?: boolean }} options
 * `together` starts the three at once (each needs only the others' ports, chosen first): a stack
 * starts sooner (`npm start` answered in 9 to 11 s on 2 cores, against 13 s one after another).
 * Without it they start one after another (each line of output is labelled either way).
 */
export async function startDemoStack({
  stateDir,
  ports = {},
  sandboxVars = {},
  productVars = {},
  demoVars = {},
  productArgs = [],
  demoArgs = [],
  quiet = true,
  together = false,
  traces,
}) {
  const running = []
  const stop = async () => {
    await Promise.all(running.map((r) => r.stop()))
  }
  try {
    const demoPort = ports.demo ?? (await freePort())
    const sandboxPort = ports.sandbox ?? (await freePort())
    const productPort = ports.product ?? (await freePort())
    const publicUrl = `http://127.0.0.1:${demoPort}`
    const sandboxUrl = `http://127.0.0.1:${sandboxPort}`
    const productUrl = `http://127.0.0.1:${productPort}`
    const start = {
      sandbox: () =>
        startWrangler({
          config: SANDBOX_CONFIG,
          port: sandboxPort,
          persistTo: join(stateDir, 'sandbox'),
          vars: sandboxVars,
          quiet,
          label: 'sandbox',
          traces,
        }),
      product: () =>
        startWrangler({
          config: PRODUCT_CONFIG,
          port: productPort,
          persistTo: join(stateDir, 'worker'),
          vars: {
            GATEWAY_BASE_URL: sandboxUrl,
            PUBLIC_BASE_URL: publicUrl,
            // The deployment's origins follow the public port (wrangler.toml names 8787's). The
            // public port by the name localhost, and the Worker's own port, serve it too (a page of
            // yours may load it from either).
            ALLOWED_ORIGINS: `${publicUrl},http://localhost:${demoPort}`,
            OWN_ORIGINS: `http://localhost:${demoPort},${productUrl}`,
            MERCHANT_WEBHOOK_URL: `${publicUrl}/demo/webhooks`,
            ...productVars,
          },
          extraArgs: productArgs,
          quiet,
          label: 'worker',
          traces,
        }),
      demo: () =>
        startWrangler({
          config: DEMO_CONFIG,
          port: demoPort,
          persistTo: join(stateDir, 'demo'),
          vars: { PRODUCT_URL: productUrl, GATEWAY_BASE_URL: sandboxUrl, ...demoVars },
          extraArgs: demoArgs,
          quiet,
          label: 'demo',
          // The demo forwards /healthz to the product Worker, which may still be starting beside
          // it (each early try logs a lost connection): the demo is up when its own stylesheet is.
          readyPath: '/demo/app.css',
          traces,
        }),
    }
    const started = (p) => p.then((r) => (running.push(r), r))
    if (together) {
      const all = await Promise.allSettled([started(start.sandbox()), started(start.product()), started(start.demo())])
      const failed = all.find((r) => r.status === 'rejected')
      if (failed) throw failed.reason
      const [sandbox, product, demo] = all.map((r) => r.value)
      return { sandbox, product, demo, stop }
    }
    const sandbox = await started(start.sandbox())
    const product = await started(start.product())
    const demo = await started(start.demo())
    return { sandbox, product, demo, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
