/**
 * Global setup of the end-to-end tests: one demo stack (sandbox, product Worker, demo shop) that
 * every file using the default shop shares (`openShop()` without variables, `openMerchantPage()`),
 * instead of one per file: a stack costs about ten seconds of both cores to start. Files still
 * run one after another, each with its own browser and its own shopper (the demo's visitor
 * cookie), so no file sees another's orders. A file that needs other Worker variables starts a
 * stack of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { startDemoStack } from '../../tools/stacks.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared demo stack: the demo's public origin and the sandbox gateway's. */
    shopStack: { demo: string; sandbox: string }
  }
}

/** The Worker variables of the shared stack (and the default of a file's own). */
export const SHOP_VARS = {
  GATEWAY_TIMEOUT_MS: '2000',
  INQUIRY_BASE_MS: '500',
  WEBHOOK_RETRY_BASE_MS: '300',
  CARD_VELOCITY_LIMIT: '1000',
}
export const SHOP_SANDBOX_VARS = { SANDBOX_PENDING_DELAY_MS: '1000', SANDBOX_SLOW_MS: '4000' }

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = mkdtempSync(join(tmpdir(), 'pay-e2e-'))
  const stack = await startDemoStack({ stateDir: state, vars: SHOP_VARS, sandboxVars: SHOP_SANDBOX_VARS })
  project.provide('shopStack', { demo: stack.demo.url, sandbox: stack.sandbox.url })
  return async () => {
    await stack.stop()
    rmSync(state, { recursive: true, force: true })
  }
}
