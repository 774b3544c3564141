/**
 * @module
 * The demo shop Worker's bindings. It is a merchant's site for development: it holds the merchant
 * API key (server side only) and calls the product Worker over HTTP, like any merchant server.
 */
import type { DemoShop } from './shop.ts'

export interface DemoEnv {
  /**
   * The product Worker's own address (internal; `npm start` runs it on 127.0.0.1:8790). Every
   * path outside /demo/ is forwarded there, and the demo's server side calls its merchant API.
   */
  PRODUCT_URL: string
  /**
   * The sandbox gateway: the pages' CSP names it (3-D Secure form posts), and its test controls
   * issue the demo's already expired invoice, as the gateway's dashboard would.
   */
  GATEWAY_BASE_URL: string

  // Secrets (from .dev.vars through `--env-file` in `npm start`, `--var` in tests)
  /** The merchant's key for the product Worker's merchant routes: never sent to a page. */
  MERCHANT_API_KEY: string
  /** Verifies the webhooks the product Worker sends to /demo/webhooks. */
  WEBHOOK_SECRET: string

  /** The demo's memory: orders, refs and webhooks, each order bound to one visitor. */
  SHOP: DurableObjectNamespace<DemoShop>
}
