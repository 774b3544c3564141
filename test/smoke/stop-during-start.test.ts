/**
 * `npm start` stopped at any moment leaves nothing behind: the stack is started as a user would
 * (`npm start` in its own process group) and stopped at several moments of its start-up and after,
 * by SIGTERM to the group (what a terminal or a process manager sends) or by SIGKILL to the script
 * itself (its own death, which runs no handler). Every process of the tree is collected from /proc
 * while it runs; afterwards none may be alive and the three ports must be free. The ports are
 * chosen with `--port`, `--worker-port` and `--sandbox-port`, so the started case also checks
 * those flags.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { offlineEnv, root } from '../../tools/stacks.mjs'

const PORTS = { demo: 28787, worker: 28790, sandbox: 28788 }
/** `npm start`'s merchant key: the one .dev.vars gets from .dev.vars.example. */
const DEV_MERCHANT_KEY =
  /^MERCHANT_API_KEY=(.*)$/m.exec(readFileSync(join(root, '.dev.vars.example'), 'utf8'))?.[1] ?? ''

/** pid -> [ppid, state, command line] for every process now. */
function processTable(): Map<number, { ppid: number; state: string; cmd: string }> {
  const table = new Map<number, { ppid: number; state: string; cmd: string }>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // The command name is in parentheses and may itself hold spaces or parentheses.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ')
      table.set(Number(name), { ppid: Number(ppid), state: state ?? '?', cmd })
    } catch {
      // ended while we read
    }
  }
  return table
}

/** Every descendant of `rootPid` seen while it runs (re-parented ones too, once seen). */
function watchTree(rootPid: number) {
  const seen = new Map<number, string>()
  const known = new Set([rootPid])
  const look = () => {
    const table = processTable()
    let grew = true
    while (grew) {
      grew = false
      for (const [pid, p] of table) {
        if (!known.has(pid) && known.has(p.ppid)) {
          known.add(pid)
          grew = true
        }
      }
    }
    // A child seen between its fork and its exec still shows its parent's command line: the
    // command is read again on every look, so it names what the process runs now.
    for (const pid of known) {
      const p = table.get(pid)
      if (pid !== rootPid && p && p.state !== 'Z') seen.set(pid, p.cmd)
    }
  }
  look()
  const timer = setInterval(look, 50)
  return {
    seen,
    stop: () => clearInterval(timer),
    find: (pattern: RegExp) => [...seen].find(([pid, cmd]) => pattern.test(cmd) && processTable().has(pid))?.[0],
  }
}

function alive(pids: Iterable<number>): string[] {
  const table = processTable()
  return [...pids]
    .filter((pid) => table.has(pid) && table.get(pid)?.state !== 'Z')
    .map((pid) => `${pid} ${table.get(pid)?.cmd.slice(0, 160)}`)
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** What the last probe got (a status or an error), for a timeout's message. */
let lastProbe = ''
const answers = async (url: string) => {
  try {
    // A port that accepts and holds the request (a server half started) counts as not answering.
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) })
    lastProbe = `${url}: ${res.status}`
    return res.ok
  } catch (e) {
    lastProbe = `${url}: ${e instanceof Error ? `${e.name} ${e.message}` : String(e)}`
    return false
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for: ${what} (last probe: ${lastProbe}; processes seen: ${[...(tree?.seen.values() ?? [])].map((c) => c.slice(0, 100)).join(' | ')})`,
      )
    await new Promise((r) => setTimeout(r, 25))
  }
}

let npm: ChildProcess | undefined
let tree: ReturnType<typeof watchTree> | undefined
let state: string | undefined
afterEach(async () => {
  // Whatever a failed case left: end it so the next case (and the next file) can bind the ports.
  tree?.stop()
  for (const pid of tree?.seen.keys() ?? []) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  if (npm?.pid) {
    try {
      process.kill(-npm.pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  npm = tree = undefined
  if (state) rmSync(state, { recursive: true, force: true })
  state = undefined
})

function startNpm() {
  npm = spawn(
    'npm',
    [
      'start',
      '--silent',
      '--',
      '--port',
      String(PORTS.demo),
      `--worker-port=${PORTS.worker}`,
      '--sandbox-port',
      String(PORTS.sandbox),
    ],
    {
      cwd: root,
      // Each case its own local state: a start killed part-way leaves nothing the next case reads.
      env: { ...offlineEnv(), PAY_STATE_DIR: (state = mkdtempSync(join(tmpdir(), 'pay-stop-'))) },
      stdio: 'ignore',
      detached: true,
    },
  )
  tree = watchTree(npm.pid!)
  return { npm, tree }
}

async function expectNothingLeft(t: ReturnType<typeof watchTree>) {
  // Stopping takes a moment (wrangler asks workerd to end); nothing may be left after 20 s.
  await until('every process of the stack to end', () => alive(t.seen.keys()).length === 0, 20_000).catch(
    () => undefined,
  )
  t.stop()
  expect(t.seen.size, 'the watcher saw the stack start').toBeGreaterThan(1)
  expect(alive(t.seen.keys())).toEqual([])
  for (const port of Object.values(PORTS)) expect(await portFree(port), `port ${port} is free`).toBe(true)
}

const sandboxUp = () => answers(`http://127.0.0.1:${PORTS.sandbox}/healthz`)
const workerUp = () => answers(`http://127.0.0.1:${PORTS.worker}/healthz`)
const demoUp = () => answers(`http://127.0.0.1:${PORTS.demo}/demo/`)

describe('npm start stopped at any moment leaves no process and no port behind', () => {
  it('SIGTERM to its group before the sandbox answers', async () => {
    const { npm, tree } = startNpm()
    await until('the sandbox wrangler to be spawned', () => tree.find(/wrangler\.js dev .*sandbox/) !== undefined)
    expect(await sandboxUp()).toBe(false)
    process.kill(-npm.pid!, 'SIGTERM')
    await expectNothingLeft(tree)
  })

  it('SIGTERM to its group right when /demo/ first answers', async () => {
    const { npm, tree } = startNpm()
    await until('/demo/ to answer', demoUp)
    process.kill(-npm.pid!, 'SIGTERM')
    await expectNothingLeft(tree)
  })

  it('npm start -- --port N --worker-port N --sandbox-port N serves the demo, the Worker and the sandbox on those ports; SIGINT to its group (Ctrl+C) then stops it', async () => {
    const { npm, tree } = startNpm()
    // npm start says it is ready once all three answer; /demo/ alone may answer before the Worker.
    await until('/demo/ and the Worker to answer', async () => (await demoUp()) && (await workerUp()))
    const health = await fetch(`http://127.0.0.1:${PORTS.demo}/healthz`, {
      headers: { Authorization: `Bearer ${DEV_MERCHANT_KEY}` },
    })
    expect(await health.json()).toEqual({ ok: true, gateway: `http://127.0.0.1:${PORTS.sandbox}` })
    await new Promise((r) => setTimeout(r, 2_000))
    process.kill(-npm.pid!, 'SIGINT')
    await expectNothingLeft(tree)
  })

  it('SIGKILL to the start script itself once the sandbox answers (no handler runs)', async () => {
    const { tree } = startNpm()
    await until('the sandbox to answer', sandboxUp)
    // The node process itself, not the `sh -c` npm runs it in.
    const script = tree.find(/^\S*node worker\/dev\/start\.mjs/)
    expect(script).toBeDefined()
    process.kill(script!, 'SIGKILL')
    await expectNothingLeft(tree)
  })
})
