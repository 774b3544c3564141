/**
 * Helpers for the payment-operation tests: a paid (or authorised) payment, its record over the
 * public route, and an operation call with an Idempotency-Key.
 */
import { env } from 'cloudflare:test'
import { createSession, merchant, pay, type Answer, type Session } from './api.ts'
import { uniqueId } from './helpers.ts'

export interface OperationAnswer {
  operation: { id: string; object: string; status: string; amount: string; reason: string | null }
  payment: PaymentBody
  error?: { code: string; fields?: { field: string; code: string }[] }
}

export interface PaymentBody {
  id: string
  status: string
  amount: string
  currency: string
  paymentType: string
  amountCaptured: string
  amountRefunded: string
  amountRefundable: string
  sessionId: string | null
  merchantTransactionId: string
  metadata: Record<string, string>
  refunds: { id: string; status: string; amount: string; reason: string | null }[]
  captures: { id: string; status: string; amount: string }[]
  voids: { id: string; status: string }[]
  error?: { code: string }
}

/** Polls `GET /v1/payments/{id}` until the record exists (it follows the session's success) and `predicate` holds. */
export async function paymentEventually(
  paymentId: string,
  predicate: (p: PaymentBody) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<PaymentBody> {
  const deadline = Date.now() + timeoutMs
  let last: Answer<PaymentBody> | undefined
  while (Date.now() < deadline) {
    last = await merchant<PaymentBody>('GET', `/v1/payments/${paymentId}`)
    if (last.status === 200 && predicate(last.body)) return last.body
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`payment ${paymentId} not reached: ${last?.status} ${last?.text}`)
}

/** A session paid by card (`paymentType` DB by default; PA authorises), and its payment record. */
export async function paidPayment(
  over: Record<string, unknown> = {},
  card = '4111111111111111',
): Promise<{ session: Session; paymentId: string; payment: PaymentBody }> {
  const session = await createSession(over)
  // The shopper's form shows the customer the merchant gave (the payment carries the email sent).
  const customer = over.customer as Record<string, string> | undefined
  const paid = await pay(
    session,
    card,
    undefined,
    customer ? { customer: { givenName: 'Ada', surname: 'Lovelace', ...customer } } : {},
  )
  if (paid.body.status !== 'succeeded' || !paid.body.paymentId) throw new Error(`not paid: ${paid.text}`)
  const payment = await paymentEventually(paid.body.paymentId)
  return { session, paymentId: paid.body.paymentId, payment }
}

export function operate(
  paymentId: string,
  path: 'capture' | 'void' | 'refunds',
  body?: Record<string, unknown>,
  key = uniqueId('op'),
): Promise<Answer<OperationAnswer>> {
  return merchant<OperationAnswer>('POST', `/v1/payments/${paymentId}/${path}`, body, { 'Idempotency-Key': key })
}

/** What reached the sandbox gateway on one payment: captures, refunds, reversals recorded. */
export async function gatewayOperationsOn(
  paymentId: string,
): Promise<{ captures: number; refunds: number; reversals: number }> {
  const res = await fetch(`${env.GATEWAY_BASE_URL}/sandbox/stats?parent=${encodeURIComponent(paymentId)}`)
  return (await res.json()) as { captures: number; refunds: number; reversals: number }
}

export const paymentStub = (paymentId: string): DurableObjectStub =>
  env.PAYMENTS.get(env.PAYMENTS.idFromName(paymentId))
