/**
 * Global setup of the Worker tests: a real sandbox gateway (`wrangler dev`, real HTTP, fresh
 * state) and a notification catcher, a plain HTTP server that records what the sandbox POSTs to
 * `notificationUrl` so tests can read it back.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { freePort, root, startWrangler } from './processes.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string
    catcherUrl: string
  }
}

function startCatcher(port: number): Promise<() => Promise<void>> {
  const received = new Map<string, string[]>()
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const key = req.url ?? '/'
    if (req.method === 'POST') {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        received.set(key, [...(received.get(key) ?? []), body])
        res.writeHead(200).end('ok')
      })
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(received.get(key) ?? []))
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(() => new Promise((r) => server.close(() => r())))))
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = mkdtempSync(join(tmpdir(), 'pay-sandbox-'))
  const sandbox = await startWrangler({
    config: join(root, 'worker/sandbox/wrangler.toml'),
    port: await freePort(),
    persistTo: state,
    // Short waits keep the suite fast; the behaviour is the same as with the defaults.
    vars: { SANDBOX_PENDING_DELAY_MS: '300', SANDBOX_SLOW_MS: '3000' },
    label: 'sandbox',
  })
  const catcherPort = await freePort()
  const stopCatcher = await startCatcher(catcherPort)
  project.provide('sandboxUrl', sandbox.url)
  project.provide('catcherUrl', `http://127.0.0.1:${catcherPort}`)
  return async () => {
    await sandbox.stop()
    await stopCatcher()
    rmSync(state, { recursive: true, force: true })
  }
}
