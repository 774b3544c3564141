// The core flows in every engine: Chromium and Firefox ESR through puppeteer-core, WebKitGTK through
// webdriverio and WebKitWebDriver (all Debian's packages), against the demo stack run with
// `wrangler dev` (the end-to-end tests' global setup). One engine at a time: the tests of a file
// run in order, and files one after another. `npm test` runs them within `test:e2e`; this config
// runs them alone (`npm run test:engines`).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/engines/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A page answers in well under a second when the machine is idle, not always on two busy cores:
    // polls wait up to 10 s (vitest's default is 1 s) and still fail on what never happens.
    expect: { poll: { timeout: 10_000 } },
    fileParallelism: false,
  },
})
