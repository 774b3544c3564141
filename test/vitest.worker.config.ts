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
          // The sandbox notifies PUBLIC_BASE_URL: the catcher records it for tests to relay.
          PUBLIC_BASE_URL: inject('catcherUrl'),
          MERCHANT_WEBHOOK_URL: `${inject('catcherUrl')}/webhooks`,
          TURNSTILE_VERIFY_URL: `${inject('catcherUrl')}/siteverify`,
          WEBHOOK_RETRY_BASE_MS: '100',
          INQUIRY_BASE_MS: '100',
          ALLOWED_ORIGINS: 'https://shop.example',
          // Test cards are shared by many tests; the velocity test sets its own limit.
          CARD_VELOCITY_LIMIT: '100000',
        },
      },
    })),
  ],
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/worker/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/worker/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
})
