// Tests that run in Node: the shared field table and validators, and the smoke test that starts
// the real processes (`npm start`, `npm run sandbox`).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/shared/**/*.test.ts', 'test/build/**/*.test.ts', 'test/smoke/**/*.test.ts'],
    environment: 'node',
    // Two files at a time: most of this suite waits on processes it starts (wrangler dev stacks,
    // tsc, npm pack), so one file at a time left a core idle (182 s one at a time, 133 s two).
    // The smoke tests' stacks take free ports and share only the migrated D1 template, which is
    // built beside and renamed into place.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
