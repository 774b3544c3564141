/**
 * Malformed input never reaches the gateway: 1,000 generated bodies to every JSON route, each
 * answered with a 4xx in the one error shape, none with a 5xx, and not one gateway call.
 */
import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest'
import { isErrorBody } from '../../shared/errors.ts'
import { checkAmount } from '../../shared/money.ts'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { call, createSession, ORIGIN, type Session } from './api.ts'
import { uniqueId } from './helpers.ts'

const RUNS = 1000

/** Names the routes know, so that generated bodies get past the first checks more often. */
const KEYS = [
  'flow',
  'amount',
  'currency',
  'merchantTransactionId',
  'paymentType',
  'card',
  'card.number',
  'customer',
  'walletId',
  'idType',
  'invoiceId',
  'merchantInvoiceId',
  'invoiceExpirationPeriod',
  'turnstileToken',
  'recurring',
  'allowedOrigins',
]

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('100.00', '0.01', 'EUR', '4111111111111111', 'card', 'wallet-ok', 'a|b', '\u0000', '1e2', '-1.00'),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('leaf'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS, 'number', 'cvv', 'email', 'givenName'), tie('node'), { maxKeys: 4 }),
  ),
})).node

/**
 * A malformed body: not JSON, JSON that is not an object, or an object that always carries one
 * poison (so a body can never be valid by accident): a key no route accepts, or an amount that is
 * not canonical amount text (which every route refuses, as a bad value or a field it may not set).
 */
const malformed: fc.Arbitrary<string> = fc.oneof(
  fc.string().filter((s) => {
    try {
      JSON.parse(s)
      return false
    } catch {
      return true
    }
  }),
  fc.oneof(fc.array(value), fc.string(), fc.integer(), fc.constant(null)).map((v) => JSON.stringify(v)),
  fc
    .tuple(
      fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 }),
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 8 }).map((junk) => ({ [`x_${junk}`]: junk })),
        fc
          .oneof(fc.string(), fc.double(), fc.constantFrom('1', '1.0', '01.00', '-5.00', '1e3', '100.001', '1,00'))
          .filter((amount) => typeof amount !== 'string' || checkAmount(amount.trim()) !== 'ok')
          .map((amount) => ({ amount })),
      ),
    )
    .map(([o, poison]) => JSON.stringify({ ...o, ...poison })),
)

let spy: MockInstance<typeof fetch>
let card: Session
let qr: Session
let invoice: Session

beforeAll(async () => {
  card = await createSession()
  qr = await createSession({ flow: 'qr' })
  invoice = await createSession({
    flow: 'invoice',
    invoiceId: 'INV1',
    merchantInvoiceId: uniqueId('m'),
    invoiceExpirationPeriod: '1',
  })
  spy = vi.spyOn(globalThis, 'fetch')
})

afterAll(() => {
  const gatewayCalls = spy.mock.calls
    .map((c) => String(c[0] instanceof Request ? c[0].url : c[0]))
    .filter((u) => u.startsWith(env.GATEWAY_BASE_URL))
  expect(gatewayCalls).toEqual([])
  spy.mockRestore()
})

const merchantHeaders = {
  Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`,
  'Content-Type': 'application/json',
  'Idempotency-Key': 'fuzz-key',
}
const browserHeaders = (s: Session) => ({
  Authorization: `Bearer ${s.clientSecret}`,
  Origin: ORIGIN,
  'Content-Type': 'application/json',
  'Idempotency-Key': uniqueId('f'),
})

const ROUTES: [string, () => string, () => Record<string, string>][] = [
  ['POST /v1/sessions', () => '/v1/sessions', () => merchantHeaders],
  ['POST /v1/payments/{id}/repeat', () => '/v1/payments/1234567890/repeat', () => merchantHeaders],
  ['POST /v1/payments/{id}/inquiry', () => '/v1/payments/1234567890/inquiry', () => merchantHeaders],
  ['POST /v1/invoices/{id}/regenerate', () => '/v1/invoices/INV1/regenerate', () => merchantHeaders],
  ['POST /v1/checkout/{id}/pay', () => `/v1/checkout/${card.id}/pay`, () => browserHeaders(card)],
  ['POST /v1/checkout/{id}/qr/verify', () => `/v1/checkout/${qr.id}/qr/verify`, () => browserHeaders(qr)],
  ['POST /v1/checkout/{id}/qr/complete', () => `/v1/checkout/${qr.id}/qr/complete`, () => browserHeaders(qr)],
  [
    'POST /v1/checkout/{id}/invoice/regenerate',
    () => `/v1/checkout/${invoice.id}/invoice/regenerate`,
    () => browserHeaders(invoice),
  ],
  ['POST /v1/notifications/{id}', () => `/v1/notifications/${card.id}`, () => ({ 'Content-Type': 'application/json' })],
]

describe('fuzz: malformed bodies', () => {
  it.each(ROUTES)(`%s answers ${RUNS} malformed bodies with a 4xx in the error shape`, async (_, path, headers) => {
    const bodies = fc.sample(malformed, { numRuns: RUNS, seed: 42 })
    const failures: string[] = []
    for (let i = 0; i < bodies.length; i += 25) {
      const batch = bodies.slice(i, i + 25)
      const answers = await Promise.all(batch.map((body) => call(path(), { method: 'POST', headers: headers(), body })))
      answers.forEach((a, j) => {
        if (a.status < 400 || a.status >= 500 || !isErrorBody(a.body))
          failures.push(`${a.status} for ${JSON.stringify(batch[j]).slice(0, 120)}: ${a.text.slice(0, 120)}`)
      })
    }
    expect(failures.slice(0, 5)).toEqual([])
  })
})
