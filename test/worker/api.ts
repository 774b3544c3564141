/**
 * Driving the Worker through its public HTTP surface, as the merchant's server and the widget do.
 */
import { env, exports } from 'cloudflare:workers'
import { expect } from 'vitest'
import { extraMemberGateway, PLATFORM_SECRETS, TEST_SECRETS } from '../../tools/credentials.ts'
import { uniqueId } from './helpers.ts'

export const ORIGIN = 'https://shop.example'

export interface Answer<T = Record<string, unknown>> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
  readonly text: string
}

/**
 * Every JSON answer a test file saw: test/worker/setup.ts has them checked against the API
 * document after the file (test/support/contract.ts), so an answer that lacks a field the document
 * says is always there fails.
 */
export const seenAnswers: { method: string; path: string; status: number; body: unknown }[] = []

export async function call<T = Record<string, unknown>>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
  const res = await exports.default.fetch(new Request(`http://worker.test${path}`, { redirect: 'manual', ...init }))
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
    if (res.status >= 200 && res.status < 300)
      seenAnswers.push({ method: init.method ?? 'GET', path, status: res.status, body })
  } catch {
    body = {}
  }
  return { status: res.status, headers: res.headers, body: body as T, text }
}

const json = (body: unknown): string => JSON.stringify(body)

export function merchant<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return call<T>(path, {
    method,
    headers: {
      Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: json(body) }),
  })
}

/** The platform API (merchant profiles), with the deployment's PLATFORM_API_KEY. */
export function platform<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  return call<T>(`/v1/platform${path}`, {
    method,
    headers: { Authorization: `Bearer ${PLATFORM_SECRETS.PLATFORM_API_KEY}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: json(body) }),
  })
}

export interface CreatedProfile {
  merchant: { id: string; apiKeys: { id: string }[]; webhookSecrets: { id: string }[] }
  apiKey: { id: string; key: string }
  webhookSecret: string
}

/** A merchant profile on the sandbox's extra gateway member `member` (each test file its own members). */
export async function newProfile(member: number, over: Record<string, unknown> = {}): Promise<CreatedProfile> {
  const res = await platform<CreatedProfile>('POST', '/merchants', {
    name: `Shop ${uniqueId('m')}`,
    gateway: extraMemberGateway(member),
    ...over,
  })
  if (res.status !== 201) throw new Error(`merchant not created: ${res.status} ${res.text}`)
  return res.body
}

export interface Session {
  readonly id: string
  readonly clientSecret: string
  readonly mtid: string
  readonly frameToken?: string
}

export async function createSession(over: Record<string, unknown> = {}): Promise<Session> {
  const mtid = (over.merchantTransactionId as string | undefined) ?? uniqueId('order')
  const res = await merchant<{ id: string; clientSecret: string; frameToken?: string }>('POST', '/v1/sessions', {
    flow: 'card',
    amount: '100.00',
    currency: 'EUR',
    merchantTransactionId: mtid,
    allowedOrigins: [ORIGIN],
    ...over,
  })
  if (res.status !== 201) throw new Error(`session not created: ${res.status} ${res.text}`)
  const { id, clientSecret, frameToken } = res.body
  return { id, clientSecret, mtid, ...(frameToken === undefined ? {} : { frameToken }) }
}

export function browser<T = Record<string, unknown>>(
  s: Pick<Session, 'id' | 'clientSecret'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return call<T>(`/v1/checkout/${s.id}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${s.clientSecret}`,
      Origin: ORIGIN,
      'Content-Type': 'application/json',
      ...headers,
    },
    ...(body === undefined ? {} : { body: json(body) }),
  })
}

/** A complete card pay body for a test card. */
export function cardBody(number: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    card: { number, expiryMonth: '12', expiryYear: '2030', cvv: number.startsWith('37') ? '1234' : '123' },
    customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    ...over,
  }
}

export function pay(
  s: Session,
  number: string,
  key = uniqueId('key'),
  over: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return browser<{
    status: string
    paymentId?: string
    redirect?: { url: string }
    attemptsRemaining: number
    message: string
    error?: { code: string }
  }>(s, 'POST', '/pay', cardBody(number, over), {
    'Idempotency-Key': key,
    ...headers,
  })
}

export async function sessionState(id: string): Promise<Record<string, unknown>> {
  return (await merchant('GET', `/v1/sessions/${id}`)).body
}

/** Polls the merchant view until `predicate` holds (alarms run in the background). */
export async function eventually(
  id: string,
  predicate: (s: Record<string, unknown>) => boolean,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  let last: Record<string, unknown> = {}
  while (Date.now() < deadline) {
    last = await sessionState(id)
    if (predicate(last)) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`condition not reached; last state ${last.status as string}`)
}

/** The gateway's latest notification for a session (about `paymentId`, if given), as the sandbox sent it (to the catcher). */
export async function notificationSentFor(sessionId: string, timeoutMs = 8_000, paymentId?: string): Promise<string> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const bodies = (await (await fetch(`${env.CATCHER_URL}/v1/notifications/${sessionId}`)).json()) as string[]
    const about = paymentId
      ? bodies.filter((body) => (JSON.parse(body) as { paymentId?: string }).paymentId === paymentId)
      : bodies
    if (about.length > 0) return about[about.length - 1] ?? ''
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('no notification was sent')
}

/**
 * The shopper pays on the gateway's hosted invoice page (a regenerated invoice's `transactionUrl`)
 * with a card (one that pays unless said); the page answers with its redirect to the return page.
 */
export async function payInvoicePage(url: string, number = '4111111111111111'): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams({ holder: 'Ada Lovelace', number, month: '12', year: '2030', cvv: '123' }),
    redirect: 'manual',
  })
  expect(res.status).toBe(303)
  return res
}

/** Relays a notification to the Worker, as the gateway would deliver it. */
export function deliverNotification(sessionId: string, body: string) {
  return call(`/v1/notifications/${sessionId}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
  })
}

/**
 * The merchant webhook events received about a merchantTransactionId (of one event type, if
 * given), each once: delivery is at least once, and an event whose answer was slow on a busy
 * machine comes again with the same id, which must not count as another event.
 */
/**
 * Deliveries with each event once: delivery is at least once, and an event whose answer was slow
 * on a busy machine comes again with the same id, which must not count as another event.
 */
export function distinctEvents<T extends { body: string }>(deliveries: readonly T[]): T[] {
  const seen = new Set<string>()
  return deliveries.filter((d) => {
    const id = (JSON.parse(d.body) as { id?: string }).id
    if (id === undefined) return true
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

export async function webhooksAbout(
  mtid: string,
  count = 1,
  timeoutMs = 10_000,
  type?: string,
): Promise<{ body: string; signature: string | undefined }[]> {
  const deadline = Date.now() + timeoutMs
  let items: { body: string; signature: string | undefined }[] = []
  while (Date.now() < deadline) {
    const delivered = (await (
      await fetch(`${env.CATCHER_URL}/webhooks?mtid=${encodeURIComponent(mtid)}`)
    ).json()) as typeof items
    items = distinctEvents(delivered).filter((i) => !type || (JSON.parse(i.body) as { type?: string }).type === type)
    if (items.length >= count) return items
    await new Promise((r) => setTimeout(r, 100))
  }
  return items
}
