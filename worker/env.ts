/**
 * @module
 * The Worker's bindings. Variables are plain text in wrangler.toml; secrets come only from
 * `wrangler secret put` (or `.dev.vars` locally) and never reach a browser, a log or storage.
 */

export interface Env {
  // Variables
  /** The gateway's base URL (the sandbox at http://127.0.0.1:8788 in development). */
  GATEWAY_BASE_URL: string
  /** The merchant identifier issued by the gateway operator. */
  MEMBER_ID: string
  TERMINAL_ID: string
  /** For generating AuthTokens when no fixed AUTH_TOKEN is configured. */
  PARTNER_ID?: string
  MERCHANT_USERNAME?: string
  /** This Worker's public origin: notification and return URLs are built from it. */
  PUBLIC_BASE_URL: string
  /** Comma-separated origins allowed to call the browser routes when a session names none. */
  ALLOWED_ORIGINS?: string
  /**
   * Comma-separated other origins this Worker is served at besides PUBLIC_BASE_URL's (a custom
   * domain beside workers.dev; `wrangler dev`'s own port behind `npm start`'s public one): its card
   * frame there reads and pays as from PUBLIC_BASE_URL. Only origins that serve this Worker alone.
   */
  OWN_ORIGINS?: string
  /** Per-call gateway timeout in milliseconds (default 15000). */
  GATEWAY_TIMEOUT_MS?: string
  /** Where merchant webhooks go (signed with WEBHOOK_SECRET); none are sent when unset. */
  MERCHANT_WEBHOOK_URL?: string
  /** First webhook retry delay in ms, doubled each time (default 10000, capped at an hour). */
  WEBHOOK_RETRY_BASE_MS?: string
  /** First status-inquiry delay in ms for an unknown outcome, doubled each time (default 2000). */
  INQUIRY_BASE_MS?: string
  /** Days a customer's email and the merchant's metadata are kept on payments and in the index (default 7). */
  PERSONAL_DATA_RETENTION_DAYS?: string
  /** How long a QR code stays valid in ms (default 600000). */
  QR_TTL_MS?: string
  /** Attempts allowed per card fingerprint in 10 minutes, across sessions (default 5). */
  CARD_VELOCITY_LIMIT?: string
  /** Bounds for session amounts, as amount text (defaults 0.01 and 999999999.99). */
  AMOUNT_MIN?: string
  AMOUNT_MAX?: string
  /** Decline-rate breaker: settled card attempts in 10 minutes before it may trip (default 20). */
  BREAKER_MIN_ATTEMPTS?: string
  /** Share of those attempts declined that trips it (default 0.6). */
  BREAKER_DECLINE_RATE?: string
  /** How long it stays tripped in ms (default 900000). */
  BREAKER_PAUSE_MS?: string
  /** Distinct sources (networks) whose declines it takes to trip the whole deployment (default 10). */
  BREAKER_MIN_SOURCES?: string
  /** Settled card attempts of one source in 10 minutes before that source alone may be paused (default 5). */
  BREAKER_SOURCE_MIN_ATTEMPTS?: string
  /** "always" (default): Turnstile on every pay when TURNSTILE_SECRET is set; "on_declines": only while the breaker is tripped. */
  TURNSTILE_REQUIRED?: string
  /** Turnstile siteverify address (tests point it at a local stand-in). */
  TURNSTILE_VERIFY_URL?: string

  /** The gateway's region as a Durable Object `locationHint` (`weur`, `enam`, ...): objects that call it are created near it (worker/placement.ts). */
  GATEWAY_LOCATION?: string

  /** `true`: the merchant console's routes (`/console/`) answer; otherwise they are 404. */
  CONSOLE_ENABLED?: string
  /** Cloudflare Access in front of the console: the team's address (`https://<team>.cloudflareaccess.com`)... */
  ACCESS_TEAM_DOMAIN?: string
  /** ...and the Access application's audience tag. Both set: the console signs in through Access only. */
  ACCESS_AUD?: string
  /** JSON: Access users (`email` or `*@domain`) to the merchant id each acts for; unset, no one signs in (README, "Merchant console"). */
  ACCESS_MERCHANTS?: string

  // Secrets
  SECURE_KEY: string
  /** The secure key before the gateway's switch: notifications signed with it are still accepted (a rotation's overlap). */
  SECURE_KEY_PREVIOUS?: string
  AUTH_TOKEN?: string
  QR_AUTH_TOKEN?: string
  MERCHANT_API_KEY: string
  /** A second merchant API key, accepted like the first while the merchant's servers switch to it (SECURITY.md, rotation). */
  MERCHANT_API_KEY_NEXT?: string
  WEBHOOK_SECRET: string
  /** The next webhook secret: while set, every delivery is signed with both (two `v1=` in `Pay-Signature`). */
  WEBHOOK_SECRET_NEXT?: string
  /** When set, every pay must carry a valid Turnstile token (SECURITY.md R10). */
  TURNSTILE_SECRET?: string
  /** The platform API's key (`/v1/platform/*`, merchant profiles); unset, the platform API answers 404. */
  PLATFORM_API_KEY?: string
  /** Seals merchant profiles' secrets at rest (AES-256-GCM under a key derived from it; 32 characters or more). */
  MERCHANT_SECRETS_KEY?: string
  /**
   * The key before MERCHANT_SECRETS_KEY, while a rotation seals the profiles again under the new
   * one (`POST /v1/platform/merchant-secrets/reseal`): profiles it sealed still open (SECURITY.md).
   */
  MERCHANT_SECRETS_KEY_PREVIOUS?: string
  /** Signs the merchant console's session cookies (32 characters or more). */
  CONSOLE_SECRET?: string

  // Durable Objects
  SESSIONS: DurableObjectNamespace<import('./checkout/checkout-session.ts').CheckoutSession>
  OPERATIONS: DurableObjectNamespace<import('./sessions/merchant-operation.ts').MerchantOperation>
  VELOCITY: DurableObjectNamespace<import('./guards/card-velocity.ts').CardVelocity>
  /** One per gateway paymentId: captures, voids, refunds (worker/payments/). */
  PAYMENTS: DurableObjectNamespace<import('./payments/payment-object.ts').PaymentObject>
  /** One per registrationId: its deletion at the gateway (worker/registrations/). */
  REGISTRATIONS: DurableObjectNamespace<import('./registrations/registration-object.ts').RegistrationObject>
  /** One per merchant, token service and secure key: the generated AuthToken, asked for once for all isolates (worker/gateway/token-keeper.ts). */
  TOKEN_KEEPERS: DurableObjectNamespace<import('./gateway/token-keeper.ts').TokenKeeper>

  // D1
  /** The search index of payments and sessions (migrations/, worker/search/). */
  DB: D1Database

  // Rate Limiting bindings ([[ratelimits]] in wrangler.toml); a scope without one is not limited.
  /** Browser routes (/v1/checkout), per connecting address. */
  RATE_LIMIT_BROWSER?: RateLimit
  /** Merchant routes (/v1/sessions, /v1/payments, /v1/invoices), per merchant key. */
  RATE_LIMIT_MERCHANT?: RateLimit
  /** The decline-rate breaker, one per deployment (SECURITY.md R12). */
  BREAKER: DurableObjectNamespace<import('./guards/decline-breaker.ts').DeclineBreaker>
  /** Unique order references and session-creation idempotency keys. */
  ORDERS: DurableObjectNamespace<import('./guards/order-registry.ts').OrderRegistry>
}
