/**
 * @module
 * The sandbox gateway: a faithful stand-in for the real one, strict enough that passing against
 * it means passing against the real gateway. Same paths, form bodies, AuthToken header, checksums,
 * HTTP 200 for business failures, result codes, ids, notifications, 3-D Secure and hosted invoice
 * pages, plus test cards and fault injection.
 *
 * Run alone with `npm run sandbox` (127.0.0.1:8788). See README "Sandbox gateway".
 */
import { Hono, type Context } from 'hono'
import { BRAND_RULES, detectBrand, last4 } from '../../shared/card.ts'
import { OPERATION_PATHS, type Operation } from '../../shared/fields.ts'
import type { FieldError } from '../../shared/errors.ts'
import { validateRequest } from '../../shared/validate.ts'
import { timingSafeEqual } from 'hono/utils/buffer'
import { checksum, type ChecksumInputs, type ChecksumRule } from '../../shared/gateway/checksum.ts'
import { decodeForm } from '../../shared/gateway/form.ts'
import { behaviourOf, WALLETS } from './cards.ts'
import { signToken, verifyToken } from './jwt.ts'
import type { BackOfficeKind, FaultRule, InvoiceRow, PaymentKind, PaymentRow, SandboxLedger } from './ledger.ts'
import { acsPage, invoicePage, returnPage } from './pages.ts'
import { numberVar } from '../../shared/settings.ts'

export { SandboxLedger } from './ledger.ts'

export interface SandboxEnv {
  LEDGER: DurableObjectNamespace<SandboxLedger>
  SANDBOX_MEMBER_ID: string
  SANDBOX_TERMINAL_ID: string
  SANDBOX_SECURE_KEY: string
  SANDBOX_PARTNER_ID: string
  SANDBOX_USERNAME: string
  /** A fixed token the sandbox accepts, as a merchant may be handed one. */
  SANDBOX_AUTH_TOKEN: string
  /** The partner's own QR token (QR rule 1). */
  SANDBOX_QR_AUTH_TOKEN: string
  /** Lifetime of generated tokens in seconds (the real gateway: 3600). */
  SANDBOX_TOKEN_TTL_S?: string
  /** How long a pending card waits before its notification settles it. */
  SANDBOX_PENDING_DELAY_MS?: string
  /** How late a `late_pending` fault's answer comes (after its notification). */
  SANDBOX_LATE_ANSWER_MS?: string
  /** How long the slow card (and the injected timeout) takes to answer. */
  SANDBOX_SLOW_MS?: string
  /** How long a 3-D Secure authentication waits for the shopper before it fails (default 15 min). */
  SANDBOX_3DS_TTL_MS?: string
}

type Ctx = Context<{ Bindings: SandboxEnv }>

/** Result codes the sandbox answers (successes from the spec, the rest from public docs). */
export const CODES = {
  succeeded: ['00001', 'Transaction succeeded'],
  captured: ['00004', 'Capture succeeded'],
  refunded: ['00005', 'Refund succeeded'],
  cancelled: ['00006', 'Cancel succeeded'],
  pending: ['00002', 'Transaction pending'],
  threeDs: ['00003', '3D Secure authentication required'],
  qrOk: ['00008', 'Request processed successfully'],
  invoiceOk: ['00013', 'Invoice regenerated successfully'],
  invoiceCreated: ['00014', 'Invoice generated successfully'],
  declined: ['10001', 'Transaction declined by authorization system'],
  notPermitted: ['10002', 'Transaction declined (not permitted)'],
  notFound: ['10026', 'Record not found'],
  tokenFailed: ['20001', 'Authorization failed: AuthToken missing, invalid or expired'],
  checksum: ['20002', 'Checksum mismatch'],
  login: ['20003', 'Invalid memberId or terminalId'],
  required: ['30001', 'Missing required parameter'],
  invalid: ['30002', 'Invalid parameter'],
  notAllowed: ['30003', 'Parameter not allowed for this request'],
  queryString: ['30004', 'Parameters in the query string are not accepted'],
  duplicate: ['30005', 'Duplicate merchantTransactionId'],
  mismatch: ['30006', 'Amount or currency differ from the verified request'],
  expiredInvoice: ['10015', 'Invoice expired'],
  abandoned3ds: ['10016', '3D Secure authentication not completed in time'],
} as const

const num = numberVar
const ledger = (c: Ctx): DurableObjectStub<SandboxLedger> => c.env.LEDGER.get(c.env.LEDGER.idFromName('ledger'))
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const rand = (n: number): string => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => (b % 10).toString()).join('')

/** The gateway's timestamp format: `YYYY-MM-DD HH:MM:SS` (UTC). */
export function gatewayTimestamp(d = new Date()): string {
  return d.toISOString().slice(0, 19).replace('T', ' ')
}

function result([code, description]: readonly [string, string], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, result: { code, description }, timestamp: gatewayTimestamp() }
}

/** Several validation errors in one result, joined like the gateway does: "c1 | c2". */
function validationResult(errors: readonly FieldError[]): Record<string, unknown> {
  const parts = errors.map((e) => {
    const [code, text] = e.code === 'required' ? CODES.required : e.code === 'not_allowed' ? CODES.notAllowed : CODES.invalid
    return { code, description: `${text}: ${e.field}` }
  })
  return {
    result: { code: parts.map((p) => p.code).join(' | '), description: parts.map((p) => p.description).join(' | ') },
    timestamp: gatewayTimestamp(),
  }
}

/** Reads a form (or JSON) body; refuses parameters in the query string, like the gateway. */
async function readBody(c: Ctx): Promise<Record<string, string> | Response> {
  if (new URL(c.req.url).search !== '') return c.json(result(CODES.queryString))
  const type = c.req.header('Content-Type') ?? ''
  const text = await c.req.text()
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed !== 'object' || parsed === null) return c.json(result(CODES.invalid))
      return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
    } catch {
      return c.json(result(CODES.invalid))
    }
  }
  return decodeForm(text)
}

async function tokenAccepted(c: Ctx, op: Operation): Promise<boolean> {
  const token = c.req.header('AuthToken')
  if (!token) return false
  if (await timingSafeEqual(token, c.env.SANDBOX_AUTH_TOKEN)) return true
  if ((op === 'qrVerify' || op === 'qrComplete') && (await timingSafeEqual(token, c.env.SANDBOX_QR_AUTH_TOKEN))) return true
  const claims = await verifyToken(c.env.SANDBOX_SECURE_KEY, token)
  return claims !== undefined && claims.memberId === c.env.SANDBOX_MEMBER_ID
}

/**
 * The checks every API request goes through, in the gateway's order: query string, AuthToken,
 * fields, merchant identity, checksum. Answers the refusal, or the validated fields.
 */
async function admit(
  c: Ctx,
  op: Operation,
  rule: ChecksumRule | undefined,
  inputs: (f: Record<string, string>) => Partial<ChecksumInputs<ChecksumRule>>,
): Promise<Record<string, string> | Response> {
  const body = await readBody(c)
  if (body instanceof Response) return body
  if (!(await tokenAccepted(c, op))) return c.json(result(CODES.tokenFailed))
  const valid = validateRequest(op, body)
  if (!valid.ok) return c.json(validationResult(valid.error))
  const f = valid.value
  const member = f['authentication.memberId']
  const terminal = f['authentication.terminalId']
  if ((member !== undefined && member !== c.env.SANDBOX_MEMBER_ID) || (terminal !== undefined && terminal !== c.env.SANDBOX_TERMINAL_ID)) {
    return c.json(result(CODES.login))
  }
  if (rule) {
    const expected = await checksum(rule, {
      memberId: c.env.SANDBOX_MEMBER_ID,
      secureKey: c.env.SANDBOX_SECURE_KEY,
      ...inputs(f),
    } as ChecksumInputs<ChecksumRule>)
    const given = f['authentication.checksum'] ?? ''
    if (!expected.ok || !(await timingSafeEqual(given, expected.value))) return c.json(result(CODES.checksum))
  }
  return f
}

/** Answers a processed request, unless a fault is injected for it: then the answer is lost or mangled. */
async function answer(c: Ctx, op: string, fields: Record<string, string>, body: Record<string, unknown>, forced?: 'http500' | 'slow'): Promise<Response> {
  const fault = forced === 'slow' ? 'timeout' : forced ?? (await ledger(c).takeFault(op, fields))
  if (fault === 'timeout') await sleep(num(c.env.SANDBOX_SLOW_MS, 30_000))
  if (fault === 'http500') return c.html('<html><body><h1>500 Internal Server Error</h1></body></html>', 500)
  if (fault === 'unparseable') return c.body(JSON.stringify(body).slice(0, 40), 200, { 'Content-Type': 'application/json' })
  // Something between us and the Worker (a proxy, a rotated key) refuses the token after the
  // charge went through: the Worker must not take the refusal for "nothing happened".
  if (fault === 'token_refused') return c.json(result(CODES.tokenFailed))
  // The gateway's own answer is late and still says "pending" (P, 00002) although the payment has
  // settled and its notification went out first: a notification may overtake the answer.
  if (fault === 'late_pending') {
    await sleep(num(c.env.SANDBOX_LATE_ANSWER_MS, 1_000))
    return c.json({ ...body, transactionStatus: 'P', result: { code: CODES.pending[0], description: CODES.pending[1] } })
  }
  return c.json(body)
}

/** The notification body for a payment (facts sheet), with its checksum. */
export async function notificationBody(p: PaymentRow, secureKey: string, terminalId: string): Promise<Record<string, unknown>> {
  const sum = await checksum('notification', { paymentId: p.id, merchantTransactionId: p.mtid, amount: p.amount, transactionStatus: p.status, secureKey })
  const [firstName = '', ...rest] = p.holder.split(' ')
  return {
    paymentId: p.id,
    status: p.status,
    transactionStatus: p.status,
    paymentBrand: p.brand,
    paymentMode: p.kind === 'qr' ? 'EW' : 'CC',
    firstName,
    lastName: rest.join(' '),
    amount: p.amount,
    currency: p.currency,
    descriptor: 'SANDBOX*PAYCHECKOUT',
    merchantTransactionId: p.mtid,
    remark: p.description,
    tmpl_amount: p.amount,
    tmpl_currency: p.currency,
    eci: p.status === 'Y' ? '05' : '07',
    checksum: sum.ok ? sum.value : '',
    result: { code: p.code, description: p.description },
    customer: { email: p.email, id: '' },
    card: { bin: p.bin, lastFourDigits: p.last4, last4Digits: p.last4, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear },
    timestamp: gatewayTimestamp(),
    bankReferenceId: `BR${p.id}`,
    terminalId,
  }
}

/** Notifies `p` as it stands (now, or after `delayMs`); with `settle`, first moves it to that state. */
async function scheduleNotification(c: Ctx, p: PaymentRow, delayMs: number, settle = false): Promise<void> {
  if (!p.notificationUrl && !settle) return
  const body = await notificationBody(p, c.env.SANDBOX_SECURE_KEY, c.env.SANDBOX_TERMINAL_ID)
  await ledger(c).later(delayMs, p.notificationUrl, JSON.stringify(body), settle ? { id: p.id, status: p.status, code: p.code, description: p.description } : undefined)
}

/** The payment response: full for a card payment, short for token and repeat payments (spec). */
function paymentBody(p: PaymentRow, full: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = { paymentId: p.id, paymentType: p.paymentType, result: { code: p.code, description: p.description }, timestamp: gatewayTimestamp() }
  if (p.registrationId) base.registrationId = p.registrationId
  base.transactionStatus = p.status
  if (!full) return { ...base, ...extra }
  return {
    ...base,
    paymentBrand: p.brand,
    paymentMode: 'CC',
    amount: p.amount,
    currency: p.currency,
    descriptor: 'SANDBOX*PAYCHECKOUT',
    card: { bin: p.bin, last4Digits: p.last4, holder: p.holder, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear },
    merchantTransactionId: p.mtid,
    remark: p.description,
    tmpl_amount: p.amount,
    tmpl_currency: p.currency,
    ...extra,
  }
}

function newPayment(kind: PaymentKind, f: Record<string, string>, over: Partial<PaymentRow>): PaymentRow {
  return {
    id: rand(10),
    kind,
    mtid: f.merchantTransactionId ?? '',
    amount: f.amount ?? '',
    currency: f.currency ?? '',
    paymentType: f.paymentType ?? 'DB',
    recurring: f.recurringType ?? '',
    status: 'Y',
    code: CODES.succeeded[0],
    description: CODES.succeeded[1],
    brand: f.paymentBrand ?? '',
    bin: '',
    last4: '',
    expiryMonth: '',
    expiryYear: '',
    holder: [f['customer.givenName'], f['customer.surname']].filter(Boolean).join(' '),
    registrationId: '',
    parentId: '',
    notificationUrl: f.notificationUrl ?? '',
    redirectUrl: f.merchantRedirectUrl ?? '',
    redirectMethod: f.redirectMethod ?? 'POST',
    walletId: '',
    merchantWalletId: '',
    email: f['customer.email'] ?? '',
    behaviour: '',
    createRegistration: 0,
    created: new Date().toISOString(),
    ...over,
  }
}

export const sandbox = new Hono<{ Bindings: SandboxEnv }>()

sandbox.get('/healthz', (c) => c.json({ ok: true, service: 'sandbox-gateway' }))

// AuthToken generation (facts sheet): same fields on both services.
for (const path of [OPERATION_PATHS.authToken, '/invoiceServices/REST/v1/authToken']) {
  sandbox.post(path, async (c) => {
    const body = await readBody(c)
    if (body instanceof Response) return body
    const valid = validateRequest('authToken', body)
    const f = valid.ok ? valid.value : {}
    const good =
      valid.ok &&
      f['authentication.partnerId'] === c.env.SANDBOX_PARTNER_ID &&
      f['merchant.username'] === c.env.SANDBOX_USERNAME &&
      (await timingSafeEqual(f['authentication.sKey'] ?? '', c.env.SANDBOX_SECURE_KEY))
    if (!good) return c.json({ result: { code: '401', description: 'Token generation failed' }, timestamp: gatewayTimestamp() })
    const token = await signToken(c.env.SANDBOX_SECURE_KEY, { partnerId: c.env.SANDBOX_PARTNER_ID, memberId: c.env.SANDBOX_MEMBER_ID, sub: c.env.SANDBOX_USERNAME }, num(c.env.SANDBOX_TOKEN_TTL_S, 3600))
    return c.json({
      partnerId: c.env.SANDBOX_PARTNER_ID,
      memberId: c.env.SANDBOX_MEMBER_ID,
      result: { code: '200', description: 'Token generated successfully' },
      timestamp: gatewayTimestamp(),
      LoginName: c.env.SANDBOX_USERNAME,
      AuthToken: token,
    })
  })
}

// Initial card payment.
sandbox.post(OPERATION_PATHS.payment, async (c) => {
  const f = await admit(c, 'payment', 'payment', (f) => ({ merchantTransactionId: f.merchantTransactionId, amount: f.amount }))
  if (f instanceof Response) return f
  const number = f['card.number'] ?? ''
  const brand = detectBrand(number)
  if (!brand || BRAND_RULES[brand].gateway !== f.paymentBrand) return c.json(validationResult([{ field: 'paymentBrand', code: 'invalid_value' }]))
  const behaviour = behaviourOf(number)
  const status = behaviour === 'decline' ? 'N' : behaviour === 'three_ds' ? '3D' : behaviour === 'pending' ? 'P' : 'Y'
  const [code, description] = behaviour === 'decline' ? CODES.declined : behaviour === 'three_ds' ? CODES.threeDs : behaviour === 'pending' ? CODES.pending : CODES.succeeded
  const wantsRegistration = f.createRegistration === 'true'
  const p = newPayment('card', f, {
    status,
    code,
    description,
    bin: number.slice(0, 6),
    last4: last4(number),
    expiryMonth: f['card.expiryMonth'] ?? '',
    expiryYear: f['card.expiryYear'] ?? '',
    behaviour,
    createRegistration: wantsRegistration ? 1 : 0,
    // Ten digits at most: a longer run of digits could pass for a card number in a log scan.
    registrationId: wantsRegistration && status !== 'N' ? `R${rand(10)}` : '',
  })
  const begun = await ledger(c).begin(p, true)
  if (!begun.ok) return c.json(result(CODES.duplicate))
  if (p.registrationId && status === 'Y') await addRegistration(c, p)
  if (status === 'P') {
    // Settled a few seconds later, and told by notification only.
    const settled = { ...p, status: 'Y', code: CODES.succeeded[0], description: CODES.succeeded[1] }
    await scheduleNotification(c, settled, num(c.env.SANDBOX_PENDING_DELAY_MS, 3000), true)
    return answer(c, 'payment', f, paymentBody(p, true))
  }
  if (status === '3D') {
    const origin = new URL(c.req.url).origin
    const redirect = { url: `${origin}/acs/${p.id}`, method: 'POST', parameters: [{ name: 'PaReq', value: `sandbox-${p.id}` }, { name: 'MD', value: p.id }] }
    return answer(c, 'payment', f, paymentBody(p, true, { redirect }))
  }
  if (status === 'Y') await scheduleNotification(c, p, 0)
  return answer(c, 'payment', f, paymentBody(p, true), behaviour === 'http500' || behaviour === 'slow' ? behaviour : undefined)
})

async function addRegistration(c: Ctx, p: PaymentRow): Promise<void> {
  await ledger(c).addRegistration({
    id: p.registrationId,
    brand: p.brand,
    bin: p.bin,
    last4: p.last4,
    expiryMonth: p.expiryMonth,
    expiryYear: p.expiryYear,
    holder: p.holder,
    behaviour: p.behaviour === '' ? 'succeed' : p.behaviour,
    initialDone: p.recurring === 'INITIAL' ? 1 : 0,
  })
}

// Pay with a registration: initial (customer registered without paying) or repeat.
sandbox.post('/transactionServices/REST/v1/paywithtoken/:id', async (c) => {
  const id = c.req.param('id')
  const peek = c.req.raw.clone()
  const peeked = decodeForm(await peek.text())
  if (peeked.paymentType === 'DL') {
    // Deleting the stored card (facts sheet): later payments with it find no record.
    const f = await admit(c, 'deleteRegistration', 'deregistration', () => ({ registrationId: id }))
    if (f instanceof Response) return f
    const deleted = await ledger(c).deleteRegistration(id)
    return answer(c, 'deleteRegistration', { ...f, id }, deleted ? result(CODES.cancelled, { registrationId: id, paymentType: 'DL' }) : result(CODES.notFound))
  }
  const recurring = peeked.recurringType === 'INITIAL' ? 'tokenInitial' : 'tokenRepeat'
  const f = await admit(c, recurring, 'registration', (f) => ({ registrationId: id, amount: f.amount }))
  if (f instanceof Response) return f
  const reg = await ledger(c).registration(id)
  if (!reg) return c.json(result(CODES.notFound))
  // The series' ordering rule: an initial payment precedes repeated ones.
  if (recurring === 'tokenRepeat' && !reg.initialDone) return c.json(result(CODES.notPermitted, { paymentType: f.paymentType }))
  const p = newPayment('token', f, { brand: reg.brand, bin: reg.bin, last4: reg.last4, expiryMonth: reg.expiryMonth, expiryYear: reg.expiryYear, holder: reg.holder, registrationId: id, behaviour: reg.behaviour })
  if (recurring === 'tokenInitial') await ledger(c).markInitialDone(id)
  await ledger(c).begin(p, false)
  await scheduleNotification(c, p, 0)
  return answer(c, recurring, { ...f, id }, paymentBody(p, false))
})

// Repeat by payment id, or status inquiry (paymentType=IN), on the same path.
sandbox.post('/transactionServices/REST/v1/payments/:id', async (c) => {
  const id = c.req.param('id')
  const peek = decodeForm(await c.req.raw.clone().text())
  if (peek.paymentType === 'IN') {
    const f = await admit(c, 'inquiry', 'inquiry', () => ({ id }))
    if (f instanceof Response) return f
    let p = f.idType === 'MID' ? await ledger(c).paymentByMtid(id) : await ledger(c).payment(id)
    if (!p || p.status === 'V') return answer(c, 'inquiry', { ...f, id }, result(CODES.notFound))
    // A bank page nobody finished: the authentication window closes and the payment fails, as
    // real access control servers do; the shopper's card is not charged.
    if (p.status === '3D' && Date.now() - Date.parse(p.created) > num(c.env.SANDBOX_3DS_TTL_MS, 15 * 60_000)) {
      p = (await ledger(c).settle(p.id, 'N', ...CODES.abandoned3ds)) ?? p
      await scheduleNotification(c, p, 0)
    }
    return answer(c, 'inquiry', { ...f, id }, paymentBody(p, true))
  }
  const backOffice = BACK_OFFICE[peek.paymentType ?? '']
  if (backOffice) return backOfficeCall(c, id, backOffice)
  const f = await admit(c, 'repeat', 'paymentId', (f) => ({ paymentId: id, amount: f.amount }))
  if (f instanceof Response) return f
  const parent = await ledger(c).payment(id)
  if (!parent) return c.json(result(CODES.notFound))
  // Only a succeeded payment of a recurring series (its initial, or a repeat of it) may be repeated.
  if (parent.status !== 'Y' || (parent.recurring !== 'INITIAL' && parent.recurring !== 'REPEATED')) {
    return c.json(result(CODES.notPermitted, { paymentType: f.paymentType }))
  }
  const p = newPayment('repeat', f, { brand: parent.brand, bin: parent.bin, last4: parent.last4, expiryMonth: parent.expiryMonth, expiryYear: parent.expiryYear, holder: parent.holder, parentId: id, behaviour: 'succeed' })
  await ledger(c).begin(p, false)
  await scheduleNotification(c, p, 0)
  return answer(c, 'repeat', { ...f, id }, paymentBody(p, false))
})

/** Captures, refunds and reversals: the paymentType value, the operation and what success answers. */
const BACK_OFFICE: Record<string, { op: 'capture' | 'refund' | 'reversal'; kind: BackOfficeKind; ok: readonly [string, string] }> = {
  CP: { op: 'capture', kind: 'capture', ok: CODES.captured },
  RF: { op: 'refund', kind: 'refund', ok: CODES.refunded },
  RV: { op: 'reversal', kind: 'reversal', ok: CODES.cancelled },
}

/**
 * A capture, refund or reversal of payment `id`. The ledger checks the parent's state and the
 * amounts and records the operation in one step; it is then found by an inquiry by its own
 * paymentId or merchantTransactionId, like a payment. Faults apply per operation.
 */
async function backOfficeCall(c: Ctx, id: string, b: (typeof BACK_OFFICE)[string]): Promise<Response> {
  const f = await admit(c, b.op, b.op === 'reversal' ? 'reversal' : 'paymentId', (f) => ({ paymentId: id, amount: f.amount }))
  if (f instanceof Response) return f
  const parent = await ledger(c).payment(id)
  const p = newPayment(b.kind, f, {
    // A reversal releases the whole authorisation.
    amount: f.amount ?? parent?.amount ?? '',
    currency: f.currency ?? parent?.currency ?? '',
    paymentType: f.paymentType ?? '',
    code: b.ok[0],
    description: b.ok[1],
    parentId: id,
    brand: parent?.brand ?? '',
    bin: parent?.bin ?? '',
    last4: parent?.last4 ?? '',
    holder: parent?.holder ?? '',
  })
  const recorded = await ledger(c).backOffice(p)
  if (!recorded.ok) {
    const refusal =
      recorded.reason === 'not_found'
        ? result(CODES.notFound)
        : recorded.reason === 'duplicate'
          ? result(CODES.duplicate)
          : recorded.reason === 'amount' || recorded.reason === 'currency'
            ? validationResult([{ field: recorded.reason, code: 'invalid_value' }])
            : result(CODES.notPermitted, { paymentType: f.paymentType })
    return answer(c, b.op, { ...f, id }, refusal)
  }
  return answer(c, b.op, { ...f, id }, { ...paymentBody(p, false), amount: p.amount, currency: p.currency, ...(p.mtid ? { merchantTransactionId: p.mtid } : {}) })
}

// QR wallet: verify (no paymentId) then complete (with the verified paymentId).
sandbox.post(OPERATION_PATHS.qrVerify, async (c) => {
  const peek = decodeForm(await c.req.raw.clone().text())
  const op = peek.paymentId ? 'qrComplete' : 'qrVerify'
  const f = await admit(c, op, undefined, () => ({}))
  if (f instanceof Response) return f
  if (op === 'qrVerify') {
    const p = newPayment('qr', f, {
      status: 'V',
      code: CODES.qrOk[0],
      description: CODES.qrOk[1],
      amount: f['customer.walletAmount'] ?? '',
      currency: f['customer.walletCurrency'] ?? '',
      brand: 'QR',
      walletId: f['customer.walletId'] ?? '',
      merchantWalletId: `MW${rand(10)}`,
      holder: [f['customer.givenname'], f['customer.surname']].filter(Boolean).join(' '),
    })
    await ledger(c).begin(p, false)
    return answer(c, op, f, result(CODES.qrOk, { paymentId: p.id, merchantWalletId: p.merchantWalletId }))
  }
  const verified = await ledger(c).payment(f.paymentId ?? '')
  if (!verified || verified.kind !== 'qr') return c.json(result(CODES.notFound))
  if (verified.status !== 'V') return c.json(result(CODES.notPermitted, { paymentId: verified.id, merchantWalletId: verified.merchantWalletId }))
  if (verified.amount !== f.amount || verified.currency !== f.currency) return c.json(result(CODES.mismatch))
  const declined = verified.walletId === WALLETS.declined
  const [code, description] = declined ? CODES.declined : CODES.qrOk
  // The completion is what takes the money, as the paymentType it was sent (the spec's DYNAMIC
  // request: PA, an authorisation, captured with CP or voided with RV like a card's).
  const settled = await ledger(c).settle(verified.id, declined ? 'N' : 'Y', code, description, f.paymentType)
  if (settled && f.notificationUrl) await scheduleNotification(c, { ...settled, notificationUrl: f.notificationUrl }, 0)
  return answer(c, op, f, result([code, description], { paymentId: verified.id, merchantWalletId: verified.merchantWalletId }))
})

function invoiceBody(c: Ctx, inv: InvoiceRow, ok: readonly [string, string]): Record<string, unknown> {
  const created = new Date(inv.createdMs)
  return {
    memberId: c.env.SANDBOX_MEMBER_ID,
    statusInvoiceResult: { code: ok[0], description: ok[1] },
    invoiceDetails: {
      amount: inv.amount,
      currency: inv.currency,
      invoiceExpirationPeriod: String(inv.period),
      createdDate: created.toISOString().slice(0, 10),
      // Faithful to the sample: a leading space and a trailing dot.
      createdTime: ` ${created.toISOString().slice(11, 19)}.`,
      merchantInvoiceId: inv.merchantInvoiceId,
      customerEmail: inv.email,
      merchantOrderDescription: inv.description,
      systemInvoiceId: inv.id,
      transactionUrl: `${new URL(c.req.url).origin}/invoice/pay/${inv.id}`,
    },
  }
}

const invoiceRefusal = (code: readonly [string, string]) => ({ memberId: '', statusInvoiceResult: { code: code[0], description: code[1] } })

// Invoice generation (sandbox only: the real gateway creates invoices in its dashboard).
sandbox.post(OPERATION_PATHS.invoiceGenerate, async (c) => {
  const f = await admit(c, 'invoiceGenerate', 'invoiceGenerate', (f) => ({ merchantInvoiceId: f.merchantInvoiceId, amount: f.amount }))
  if (f instanceof Response) return invoiceShape(f)
  const inv: InvoiceRow = {
    id: `INV${rand(9)}`,
    merchantInvoiceId: f.merchantInvoiceId ?? '',
    amount: f.amount ?? '',
    currency: f.currency ?? '',
    period: Number(f.invoiceExpirationPeriod ?? '0'),
    createdMs: Date.now(),
    email: f.customerEmail ?? '',
    description: f.merchantOrderDescription ?? '',
    redirectUrl: f.merchantRedirectUrl ?? '',
    notificationUrl: f.notificationUrl ?? '',
    paymentId: '',
    sourceId: '',
  }
  if (!(await ledger(c).addInvoice(inv))) return c.json(invoiceRefusal(CODES.duplicate))
  return c.json(invoiceBody(c, inv, CODES.invoiceCreated))
})

sandbox.post(OPERATION_PATHS.invoiceRegenerate, async (c) => {
  const f = await admit(c, 'invoiceRegenerate', 'invoice', (f) => ({ invoiceId: f.invoiceId, merchantRedirectUrl: f.merchantRedirectUrl }))
  if (f instanceof Response) return invoiceShape(f)
  const from = await ledger(c).invoice(f.invoiceId ?? '')
  if (!from) return answer(c, 'invoiceRegenerate', f, invoiceRefusal(CODES.notFound))
  // Asking again for the same new reference from the same invoice answers that invoice: the
  // sandbox's assumption of how a client recovers a regeneration whose answer was lost.
  const earlier = await ledger(c).invoiceByMerchantId(f.merchantInvoiceId ?? '')
  if (earlier && earlier.sourceId === from.id) return answer(c, 'invoiceRegenerate', f, invoiceBody(c, earlier, CODES.invoiceOk))
  const inv: InvoiceRow = {
    ...from,
    id: `INV${rand(9)}`,
    merchantInvoiceId: f.merchantInvoiceId ?? '',
    period: Number(f.invoiceExpirationPeriod ?? '0'),
    createdMs: Date.now(),
    redirectUrl: f.merchantRedirectUrl ?? '',
    notificationUrl: f.notificationUrl ?? from.notificationUrl,
    paymentId: '',
    sourceId: from.id,
  }
  if (!(await ledger(c).addInvoice(inv))) return c.json(invoiceRefusal(CODES.duplicate))
  return answer(c, 'invoiceRegenerate', f, invoiceBody(c, inv, CODES.invoiceOk))
})

/** Invoice endpoints answer refusals in `statusInvoiceResult`, not `result`. */
async function invoiceShape(res: Response): Promise<Response> {
  const body: unknown = await res.json()
  const r = (body as { result?: unknown }).result
  return Response.json({ memberId: '', statusInvoiceResult: r, timestamp: gatewayTimestamp() })
}

/** The browser's way back to the merchant, with the facts sheet's return fields and checksum. */
async function returnToMerchant(c: Ctx, p: PaymentRow): Promise<Response> {
  const sum = await checksum('notification', { paymentId: p.id, merchantTransactionId: p.mtid, amount: p.amount, transactionStatus: p.status, secureKey: c.env.SANDBOX_SECURE_KEY })
  const fields = {
    paymentId: p.id,
    merchantTransactionId: p.mtid,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    resultCode: p.code,
    resultDescription: p.description,
    checksum: sum.ok ? sum.value : '',
  }
  if (!p.redirectUrl) return c.html(returnPage(undefined, fields, 'GET'))
  if (p.redirectMethod === 'GET') {
    const url = new URL(p.redirectUrl)
    for (const [k, v] of Object.entries(fields)) url.searchParams.set(k, v)
    return c.redirect(url.toString(), 303)
  }
  return c.html(returnPage(p.redirectUrl, fields, 'POST'))
}

// The sandbox ACS: the shopper's 3-D Secure challenge.
sandbox.on(['GET', 'POST'], '/acs/:id', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  if (!p || p.status !== '3D') return c.html('<p>No authentication is waiting for this payment.</p>', 404)
  return c.html(acsPage(p))
})

sandbox.post('/acs/:id/complete', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  if (!p || p.status !== '3D') return c.html('<p>No authentication is waiting for this payment.</p>', 404)
  const form = decodeForm(await c.req.text())
  const passed = form.outcome === 'authenticated'
  const [code, description] = passed ? CODES.succeeded : CODES.declined
  const settled = await ledger(c).settle(p.id, passed ? 'Y' : 'N', code, description)
  if (!settled) return c.html('<p>Payment vanished.</p>', 500)
  if (passed && settled.registrationId) await addRegistration(c, settled)
  await scheduleNotification(c, settled, 0)
  return returnToMerchant(c, settled)
})

// The hosted invoice payment page (the invoice's transactionUrl).
sandbox.get('/invoice/pay/:id', async (c) => {
  const inv = await ledger(c).invoice(c.req.param('id'))
  if (!inv) return c.html('<p>No such invoice.</p>', 404)
  return c.html(invoicePage(inv, invoiceExpired(inv), ''))
})

const invoiceExpired = (inv: InvoiceRow): boolean => Date.now() >= inv.createdMs + inv.period * 3_600_000

sandbox.post('/invoice/pay/:id', async (c) => {
  const inv = await ledger(c).invoice(c.req.param('id'))
  if (!inv) return c.html('<p>No such invoice.</p>', 404)
  if (inv.paymentId || invoiceExpired(inv)) return c.html(invoicePage(inv, invoiceExpired(inv), ''), 409)
  const form = decodeForm(await c.req.text())
  const now = new Date()
  const valid = validateRequest(
    'payment',
    {
      'card.number': form.number ?? '',
      'card.expiryMonth': form.month ?? '',
      'card.expiryYear': form.year ?? '',
      'card.cvv': form.cvv ?? '',
    },
    { rejectUnknown: false, now },
  )
  const cardErrors = valid.ok ? [] : valid.error.filter((e) => e.field.startsWith('card.'))
  if (cardErrors.length > 0) return c.html(invoicePage(inv, false, `Please check: ${cardErrors.map((e) => e.field).join(', ')}`), 400)
  const number = valid.ok ? (valid.value['card.number'] ?? '') : (form.number ?? '').replace(/[\s-]/g, '')
  const declined = behaviourOf(number) === 'decline'
  const [code, description] = declined ? CODES.declined : CODES.succeeded
  const brand = detectBrand(number)
  const p = newPayment('invoice', { merchantTransactionId: inv.merchantInvoiceId, amount: inv.amount, currency: inv.currency }, {
    status: declined ? 'N' : 'Y',
    code,
    description,
    brand: brand ? BRAND_RULES[brand].gateway : '',
    bin: number.slice(0, 6),
    last4: last4(number),
    holder: form.holder ?? '',
    email: inv.email,
    notificationUrl: inv.notificationUrl,
    redirectUrl: inv.redirectUrl,
    redirectMethod: 'GET',
  })
  await ledger(c).begin(p, false)
  if (!declined) await ledger(c).payInvoice(inv.id, p.id)
  await scheduleNotification(c, p, 0)
  return returnToMerchant(c, p)
})

// Test controls (not part of the gateway): fault injection and charge counts.
sandbox.post('/sandbox/faults', async (c) => {
  const rule: unknown = await c.req.json().catch(() => undefined)
  const r = rule as Partial<FaultRule> | undefined
  if (!r || typeof r.op !== 'string' || !['timeout', 'http500', 'unparseable', 'token_refused', 'late_pending'].includes(r.fault ?? '')) {
    return c.json({ error: 'expected { op, fault: timeout|http500|unparseable|token_refused|late_pending, field?, value?, times? }' }, 400)
  }
  await ledger(c).addFault(r as FaultRule)
  return c.json({ ok: true }, 201)
})

sandbox.get('/sandbox/stats', async (c) => c.json(await ledger(c).stats(c.req.query('mtid'), c.req.query('parent'))))

sandbox.get('/sandbox/payments/:id', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  return p ? c.json(p) : c.json({ error: 'not found' }, 404)
})

sandbox.notFound((c) => c.json(result(CODES.notFound), 404))

export default sandbox
