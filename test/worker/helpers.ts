/**
 * Helpers for Worker tests: a gateway client on the sandbox, unique ids, and the notification
 * catcher's records.
 */
import { env } from 'cloudflare:test'
import { vi } from 'vitest'
import { GATEWAY_BRANDS, detectBrand } from '../../shared/card.ts'
import { OPERATION_PATHS } from '../../shared/fields.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { GatewayClient, type GatewayConfig } from '../../worker/gateway/client.ts'
import type { Fault } from '../../worker/sandbox/rows.ts'

let counter = 0
/** A merchantTransactionId no other test uses. */
export const uniqueId = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`

export function client(over: Partial<GatewayConfig> = {}): GatewayClient {
  return new GatewayClient({
    baseUrl: env.GATEWAY_BASE_URL,
    memberId: SANDBOX.memberId,
    terminalId: SANDBOX.terminalId,
    secureKey: SANDBOX.secureKey,
    partnerId: SANDBOX.partnerId,
    merchantUsername: SANDBOX.username,
    qrAuthToken: SANDBOX.qrAuthToken,
    timeoutMs: 1500,
    ...over,
  })
}

/** A notification address on the catcher, unique to one test. */
export const catcherUrl = (tag: string): string => `${env.CATCHER_URL}/n/${tag}`

/** Waits until the catcher has received at least one notification for `tag`. */
export async function notificationsFor(tag: string, timeoutMs = 8000): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const res = await fetch(catcherUrl(tag))
    const bodies = (await res.json()) as string[]
    if (bodies.length > 0) return bodies.map((b) => JSON.parse(b) as Record<string, unknown>)
    await new Promise((r) => setTimeout(r, 100))
  }
  return []
}

/** What the sandbox counted as charged for a merchantTransactionId (at its main member, or at `member`'s ledger). */
export async function chargesFor(mtid: string, member?: string): Promise<number> {
  const at = member === undefined ? '' : `&member=${member}`
  const res = await fetch(`${env.GATEWAY_BASE_URL}/sandbox/stats?mtid=${encodeURIComponent(mtid)}${at}`)
  const stats = (await res.json()) as { byMtid: number }
  return stats.byMtid
}

export async function injectFault(
  rule: {
    op: string
    fault: Fault
    field?: string
    value?: string
    times?: number
  },
  /** The sandbox gateway member whose requests it faults (a merchant profile's), else the main one. */
  memberId?: string,
): Promise<void> {
  const member = memberId ? `?member=${encodeURIComponent(memberId)}` : ''
  const res = await fetch(`${env.GATEWAY_BASE_URL}/sandbox/faults${member}`, {
    method: 'POST',
    body: JSON.stringify(rule),
    headers: { 'Content-Type': 'application/json' },
  })
  if (res.status !== 201) throw new Error(`fault not accepted: ${res.status}`)
}

/** The shopper part of a card payment with a test card. */
export function cardFields(number: string, over: Record<string, string> = {}) {
  const detected = detectBrand(number)
  const brand = detected ? GATEWAY_BRANDS[detected] : 'VISA'
  return {
    paymentBrand: brand,
    cardNumber: number,
    expiryMonth: '12',
    expiryYear: '2030',
    cvv: brand === 'AMEX' ? '1234' : '123',
    givenName: 'Ada',
    surname: 'Lovelace',
    email: 'ada@example.com',
    ip: '203.0.113.7',
    ...over,
  }
}

/**
 * The invoice the sandbox makes under `ref` from `invoiceId` (the same reference answers the same
 * invoice, whoever asks): its page, as the gateway sends it to the shopper, when the Worker's own
 * call for it got no answer.
 */
export async function invoicePageFor(invoiceId: string, ref: string): Promise<string> {
  const made = await client().regenerateInvoice({
    invoiceId,
    merchantInvoiceId: ref,
    invoiceExpirationPeriod: '24',
    merchantRedirectUrl: 'https://shop.example/invoice/done',
    notificationUrl: 'https://shop.example/notifications',
  })
  const page = made.kind === 'succeeded' ? (made.response.transactionUrl ?? '') : ''
  if (!page) throw new Error(`the sandbox made no invoice under ${ref}`)
  return page
}

/** Until `restore`, every invoice regeneration the Worker asks for is refused (30002), as a gateway may. */
export function regenerationsRefused(): { restore(): void } {
  const real = globalThis.fetch
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init)
    if (new URL(request.url).pathname === OPERATION_PATHS.invoiceRegenerate)
      return Response.json({ statusInvoiceResult: { code: '30002', description: 'Invalid parameter' } })
    return real(request)
  })
  return { restore: () => spy.mockRestore() }
}
