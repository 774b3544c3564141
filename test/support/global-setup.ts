/**
 * Global setup of the Worker tests: a real sandbox gateway (`wrangler dev`, real HTTP, fresh
 * state) and the catcher (test/support/catcher.ts), which stands in for the merchant's webhook
 * receiver and Turnstile, and records the sandbox's notifications.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { startCatcher } from './catcher.ts'
import { freePort, root, startWrangler } from '../../tools/stacks.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string
    catcherUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = mkdtempSync(join(tmpdir(), 'pay-sandbox-'))
  const sandbox = await startWrangler({
    config: join(root, 'worker/sandbox/wrangler.toml'),
    port: await freePort(),
    persistTo: state,
    // Short waits keep the suite fast; the behaviour is the same as with the defaults.
    vars: { SANDBOX_PENDING_DELAY_MS: '300', SANDBOX_SLOW_MS: '3000', SANDBOX_3DS_TTL_MS: '4000' },
    label: 'sandbox',
    traces: false,
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
