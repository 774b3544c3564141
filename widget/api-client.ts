/**
 * @module
 * The widget's only way to the network: typed calls to the Worker's browser routes. Returns a
 * Result and never throws; a network failure is an error result like any other.
 */
import type { CheckoutView, PayResult } from '../shared/checkout.ts'
import { isErrorBody, type ErrorBody } from '../shared/errors.ts'
import { err, ok, type Result } from '../shared/result.ts'

// The wire types, shared with the Worker (`shared/checkout.ts`).
export type { CheckoutFlow as Flow, CheckoutView, InvoiceDetails, PayResult } from '../shared/checkout.ts'

/**
 * The Worker's error, or one of the widget's own: no answer at all (`network_error`), this page's
 * origin refused (`origin_not_allowed`), a payment being confirmed found never made (`payment_not_made`).
 */
export type ApiError = Omit<ErrorBody['error'], 'code'> & {
  readonly code: ErrorBody['error']['code'] | 'network_error' | 'origin_not_allowed' | 'payment_not_made'
  readonly status: number
}

/** The widget's own error for a payment being confirmed that the session then shows never made (README: pay-error). */
export const NOT_MADE = {
  code: 'payment_not_made',
  message: 'The payment service has no record of the payment being confirmed (it is asked once more later).',
  fields: [],
} as const satisfies Pick<ApiError, 'code' | 'message' | 'fields'>

export class ApiClient {
  constructor(
    private readonly endpoint: string,
    /** The session's id, as the page gave it. */
    readonly sessionId: string,
    private readonly clientSecret: string,
  ) {}

  /** One call to the session's browser routes: the card's below; the other methods' are with their steps (`inline/other-methods.ts`), so a bundle that shows only the card does not carry them. */
  async request<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<Result<T, ApiError>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.clientSecret}` }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey
    try {
      const res = await fetch(
        `${this.endpoint.replace(/\/$/, '')}/v1/checkout/${encodeURIComponent(this.sessionId)}${path}`,
        {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          credentials: 'omit',
        },
      )
      const json: unknown = await res.json().catch(() => undefined)
      if (res.ok) return ok(json as T)
      return err(
        isErrorBody(json)
          ? { ...json.error, status: res.status }
          : { code: 'internal_error', message: `HTTP ${res.status}`, status: res.status },
      )
    } catch {
      // No answer at all: the network, or this page's origin refused by CORS (the caller tells which).
      return err({ code: 'network_error', message: 'Network error', status: 0 })
    }
  }

  view(): Promise<Result<CheckoutView, ApiError>> {
    return this.request('GET', '')
  }

  pay(fields: Record<string, unknown>, idempotencyKey: string): Promise<Result<PayResult, ApiError>> {
    return this.request('POST', '/pay', fields, idempotencyKey)
  }
}
