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
  /** Per-call gateway timeout in milliseconds (default 15000). */
  GATEWAY_TIMEOUT_MS?: string

  // Secrets
  SECURE_KEY: string
  AUTH_TOKEN?: string
  QR_AUTH_TOKEN?: string
  MERCHANT_API_KEY: string
  WEBHOOK_SECRET: string
}
