/**
 * Types of the test runtime's `env` and `exports`: the Worker's bindings, plus the notification
 * catcher the global setup starts.
 */
import type { Env as WorkerEnv } from '../../worker/env.ts'

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** The notification catcher started by the global setup. */
      CATCHER_URL: string
      /** A Rate Limiting binding with a limit of 3 a minute, for the rate-limit test. */
      RATE_LIMIT_TEST_LOW: RateLimit
      /** The D1 migrations (migrations/), read by the config and applied in setup.ts. */
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[]
    }
    interface GlobalProps {
      mainModule: typeof import('../../worker/index.ts')
    }
  }
}
