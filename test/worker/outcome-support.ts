/**
 * What the outcome tests share (outcomes.test.ts, notification-ownership.test.ts,
 * trust-after-payment.test.ts): the sandbox's test cards for each outcome, the bank page, invoices
 * made in the sandbox, and waiting for webhooks.
 */
import { env } from 'cloudflare:test'
import { expect } from 'vitest'
import { webhooksAbout, type Session } from './api.ts'
import { client, uniqueId } from './helpers.ts'

export const THREE_DS = '4000000000003220'
export const DECLINE = '4000000000000002'
export const PENDING = '4000000000000259'

export const stubOf = (s: Session) => env.SESSIONS.get(env.SESSIONS.idFromName(s.id)) as unknown as DurableObjectStub
export const eventTypes = async (mtid: string, atLeast: number) =>
  (await webhooksAbout(mtid, atLeast, 10_000)).map((h) => (JSON.parse(h.body) as { type: string }).type)

/** The shopper finishes on the sandbox's bank page; the sandbox notifies the Worker (relayed here). */
export async function finishBankPage(
  s: Session,
  redirectUrl: string,
  outcome: 'authenticated' | 'failed' = 'authenticated',
): Promise<void> {
  // The page of an extra member's payment names it in its query (`/acs/{id}?member=...`).
  const complete = new URL(redirectUrl)
  complete.pathname += '/complete'
  const acs = await fetch(complete, {
    method: 'POST',
    body: new URLSearchParams({ outcome }),
    redirect: 'manual',
  })
  expect(await acs.text()).toContain(`action="${env.PUBLIC_BASE_URL}/v1/return/${s.id}"`)
}

/** Polls until `find` returns something (webhooks are delivered in the background). */
export async function eventually<T>(find: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error('not found in time')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** An invoice in the sandbox, as the merchant made it in the gateway's dashboard (for `customerEmail`, if given). */
export async function sandboxInvoice(amount: string, customerEmail?: string): Promise<string> {
  const created = await client().generateInvoice({
    merchantInvoiceId: uniqueId('inv'),
    amount,
    currency: 'EUR',
    invoiceExpirationPeriod: '0',
    ...(customerEmail ? { customerEmail, merchantOrderDescription: `Order for ${customerEmail}` } : {}),
  })
  if (created.kind !== 'succeeded' || !created.response.systemInvoiceId) throw new Error(created.kind)
  return created.response.systemInvoiceId
}
