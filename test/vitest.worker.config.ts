// Worker tests run inside workerd (@cloudflare/vitest-plugin) against a real sandbox gateway
// over HTTP, started by the global setup.
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { PLATFORM_SECRETS, ROTATION_SECRETS, TEST_SECRETS } from '../tools/credentials.ts'

export default defineConfig({
  plugins: [
    // The search index's migrations (migrations/), applied by test/worker/setup.ts to the local D1.
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: fileURLToPath(new URL('../wrangler.toml', import.meta.url)) },
      miniflare: {
        bindings: {
          ...TEST_SECRETS,
          ...ROTATION_SECRETS,
          ...PLATFORM_SECRETS,
          // The merchant console (on in wrangler.toml's development variables), signing in with a
          // key: test/worker/console.test.ts runs Access beside it.
          GATEWAY_BASE_URL: inject('sandboxUrl'),
          CATCHER_URL: inject('catcherUrl'),
          GATEWAY_TIMEOUT_MS: '1500',
          // The sandbox notifies PUBLIC_BASE_URL: the catcher records it for tests to relay.
          PUBLIC_BASE_URL: inject('catcherUrl'),
          MERCHANT_WEBHOOK_URL: `${inject('catcherUrl')}/webhooks`,
          TURNSTILE_VERIFY_URL: `${inject('catcherUrl')}/siteverify`,
          WEBHOOK_RETRY_BASE_MS: '100',
          // An object's first status inquiry after an unknown or pending answer (then doubling).
          // Not shorter: the sandbox records a charge before it plays an injected fault, so that
          // inquiry settles it, and tests that look at the state in between (a capture in flight
          // refusing a refund) raced it on a loaded machine at 100 ms. Tests that need the inquiry
          // now make it due (timePasses) or wait for it.
          INQUIRY_BASE_MS: '1000',
          ALLOWED_ORIGINS: 'https://shop.example',
          // Another address the Worker is served at (test/worker/hardening.test.ts).
          OWN_ORIGINS: 'https://pay.own.example',
          // Test cards are shared by many tests; the velocity test sets its own limit.
          CARD_VELOCITY_LIMIT: '100000',
          TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL('../migrations', import.meta.url))),
          // Many tests decline cards on purpose: the deployment-wide breaker must not trip here
          // (test/smoke/breaker-http.test.ts trips it on a stack of its own).
          BREAKER_MIN_ATTEMPTS: '1000000',
          BREAKER_SOURCE_MIN_ATTEMPTS: '1000000',
          // The model-based test's runs of each model (test/worker/outcomes-model.test.ts).
          ...(process.env.MODEL_RUNS ? { MODEL_RUNS: process.env.MODEL_RUNS } : {}),
        },
        // The suites share one client address and one merchant key: limits they never reach, plus
        // a low one that the rate-limit test swaps in (hardening.test.ts).
        ratelimits: {
          RATE_LIMIT_BROWSER: { namespace_id: '1101', simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMIT_MERCHANT: { namespace_id: '1102', simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMIT_TEST_LOW: { namespace_id: '1199', simple: { limit: 3, period: 60 } },
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
    // Three files at a time on two cores (vitest's default there is one): much of every file's time
    // is waiting, on the sandbox over HTTP. Measured on this machine, with a runtime per file then:
    // 124 s two at a time, 99 s three, 108 s four.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // Files share a runtime one after another (and its storage), not a workerd each: a fresh
    // runtime per file cost a third of the suite (164 s and 254 s of CPU so, 110 s and 154 s
    // shared, on this machine's two cores). Each file begins with the runtime emptied of what the
    // files before it left (setup.ts: the database's rows, every object emptied and reset), and a
    // file that scripts the gateway drops its tokens from the isolate's cache.
    isolate: false,
  },
})
