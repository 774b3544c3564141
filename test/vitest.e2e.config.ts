// End-to-end tests: playwright-core drives Debian's Chromium through the demo shop, against the
// Worker and the sandbox gateway run with `wrangler dev`; the core flows in Firefox and WebKit
// (test/engines/) run in the same run, on the same demo stack (one stack start fewer than a run of
// their own).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/e2e/**/*.test.ts', 'test/engines/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A page answers in well under a second when the machine is idle, not always on two busy cores:
    // polls wait up to 10 s (vitest's default is 1 s) and still fail on what never happens.
    expect: { poll: { timeout: 10_000 } },
    // Two files at a time on the one stack: a browser test waits on its pages most of the time
    // (the e2e run kept about half of two cores busy), so two of them share the cores.
    fileParallelism: true,
    maxWorkers: 2,
  },
})
