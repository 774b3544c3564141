// Tests that run in Node: the shared field table and validators, and the smoke test that starts
// the real processes (`npm start`, `npm run sandbox`).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/shared/**/*.test.ts', 'test/build/**/*.test.ts', 'test/smoke/**/*.test.ts'],
    environment: 'node',
    // The smoke tests each start wrangler dev processes on free ports; two starting at once on two
    // cores have hung a start past its timeout, so files run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
