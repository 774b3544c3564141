// Worker tests run inside workerd (@cloudflare/vitest-plugin) against a real sandbox gateway
// over HTTP, started by the global setup.
import { fileURLToPath } from 'node:url'
import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { TEST_SECRETS } from './support/credentials.ts'

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: fileURLToPath(new URL('../wrangler.toml', import.meta.url)) },
      miniflare: {
        bindings: {
          ...TEST_SECRETS,
          GATEWAY_BASE_URL: inject('sandboxUrl'),
          CATCHER_URL: inject('catcherUrl'),
          GATEWAY_TIMEOUT_MS: '1500',
        },
      },
    })),
  ],
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/worker/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
})
