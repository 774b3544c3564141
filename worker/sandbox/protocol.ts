/**
 * @module
 * The sandbox gateway's protocol, as every route speaks it: its settings, result codes, the form
 * body and its checksum, the AuthToken check, the answer envelope, and the payment records and
 * notifications the routes (index.ts) build from them.
 */
import type { Context } from 'hono'
import type { Operation } from '../../shared/fields.ts'
import type { FieldError } from '../../shared/errors.ts'
import { validateRequest } from '../../shared/validate.ts'
import { timingSafeEqual } from 'hono/utils/buffer'
import { checksum, type ChecksumInputs, type ChecksumRule } from '../../shared/gateway/checksum.ts'
import { decodeForm } from '../../shared/gateway/form.ts'
import { verifyToken } from './jwt.ts'
import { returnPage } from './pages.ts'
import type { PaymentKind, PaymentRow, SandboxLedger } from './ledger.ts'
import { mainMember, memberById, type Member } from './members.ts'
import { numberVar } from '../../shared/settings.ts'

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
  /** How many extra gateway members the sandbox has (members.ts): 0 unless set. */
  SANDBOX_EXTRA_MEMBERS?: string
  /** Lifetime of generated tokens in seconds (the real gateway: 3600). */
  SANDBOX_TOKEN_TTL_S?: string
  /** How long a pending card waits before its notification settles it. */
  SANDBOX_PENDING_DELAY_MS?: string
  /** How late a `late` fault's answer comes, and a `late_pending` one's (after its notification). */
  SANDBOX_LATE_ANSWER_MS?: string
  /** How long the slow card (and the injected timeout) takes to answer. */
  SANDBOX_SLOW_MS?: string
  /** How long a 3-D Secure authentication waits for the shopper before it fails (default 15 min). */
  SANDBOX_3DS_TTL_MS?: string
}

/** The member a request acts for: set by `admit` (API), the AuthToken route, or a page's `member` query. */
export type SandboxVars = { member?: Member }
export type Ctx = Context<{ Bindings: SandboxEnv; Variables: SandboxVars }>

/** The request's member (the main one until a request names another). */
export const memberOf = (c: Ctx): Member => c.get('member') ?? mainMember(c.env)

/** `?member=` on the pages the sandbox links to (the ACS, the invoice page) for a member other than the main one. */
export const memberQuery = (c: Ctx): string => {
  const m = memberOf(c)
  return m.main ? '' : `?member=${m.memberId}`
}

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

export const num = numberVar
/** The request's member's ledger: each member keeps its own (members.ts). */
export const ledger = (c: Ctx): DurableObjectStub<SandboxLedger> => {
  const m = memberOf(c)
  return c.env.LEDGER.get(c.env.LEDGER.idFromName(m.main ? 'ledger' : `ledger:${m.memberId}`))
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
export const rand = (n: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => (b % 10).toString()).join('')

/** The gateway's timestamp format: `YYYY-MM-DD HH:MM:SS` (UTC). */
export function gatewayTimestamp(d = new Date()): string {
  return d.toISOString().slice(0, 19).replace('T', ' ')
}

export function result(
  [code, description]: readonly [string, string],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...extra, result: { code, description }, timestamp: gatewayTimestamp() }
}

/** Several validation errors in one result, joined like the gateway does: "c1 | c2". */
export function validationResult(errors: readonly FieldError[]): Record<string, unknown> {
  const parts = errors.map((e) => {
    const [code, text] =
      e.code === 'required' ? CODES.required : e.code === 'not_allowed' ? CODES.notAllowed : CODES.invalid
    return { code, description: `${text}: ${e.field}` }
  })
  return {
    result: { code: parts.map((p) => p.code).join(' | '), description: parts.map((p) => p.description).join(' | ') },
    timestamp: gatewayTimestamp(),
  }
}

/** Reads a form (or JSON) body; refuses parameters in the query string, like the gateway. */
export async function readBody(c: Ctx): Promise<Record<string, string> | Response> {
  if (new URL(c.req.url).search !== '') return c.json(result(CODES.queryString))
  const type = c.req.header('Content-Type') ?? ''
  const text = await c.req.text()
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed !== 'object' || parsed === null) return c.json(result(CODES.invalid))
      return Object.fromEntries(
        Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      )
    } catch {
      return c.json(result(CODES.invalid))
    }
  }
  return decodeForm(text)
}

/** The AuthToken against the member the request names: one issued for that member, or (main member) a fixed one. */
async function tokenAccepted(c: Ctx, op: Operation, member: Member): Promise<boolean> {
  const token = c.req.header('AuthToken')
  if (!token) return false
  if (member.main && (await timingSafeEqual(token, c.env.SANDBOX_AUTH_TOKEN))) return true
  if (
    member.main &&
    (op === 'qrVerify' || op === 'qrComplete') &&
    (await timingSafeEqual(token, c.env.SANDBOX_QR_AUTH_TOKEN))
  )
    return true
  const claims = await verifyToken(member.secureKey, token)
  return claims !== undefined && claims.memberId === member.memberId
}

/**
 * The checks every API request goes through, in the gateway's order: query string, AuthToken,
 * fields, merchant identity, checksum. Answers the refusal, or the validated fields.
 */
export async function admit(
  c: Ctx,
  op: Operation,
  rule: ChecksumRule | undefined,
  inputs: (f: Record<string, string>) => Partial<ChecksumInputs<ChecksumRule>>,
): Promise<Record<string, string> | Response> {
  const body = await readBody(c)
  if (body instanceof Response) return body
  // The member the request names (none: the main one); an unknown member is refused below.
  const named = body['authentication.memberId']
  const member = memberById(c.env, named)
  if (!(await tokenAccepted(c, op, member ?? mainMember(c.env)))) return c.json(result(CODES.tokenFailed))
  const valid = validateRequest(op, body)
  if (!valid.ok) return c.json(validationResult(valid.error))
  const f = valid.value
  const terminal = f['authentication.terminalId']
  if (!member || (terminal !== undefined && terminal !== member.terminalId)) return c.json(result(CODES.login))
  c.set('member', member)
  if (rule) {
    const expected = await checksum(rule, {
      memberId: member.memberId,
      secureKey: member.secureKey,
      ...inputs(f),
    } as ChecksumInputs<ChecksumRule>)
    const given = f['authentication.checksum'] ?? ''
    if (!expected.ok || !(await timingSafeEqual(given, expected.value))) return c.json(result(CODES.checksum))
  }
  return f
}

/** Answers a processed request, unless a fault is injected for it: then the answer is lost or mangled. */
export async function answer(
  c: Ctx,
  op: string,
  fields: Record<string, string>,
  body: Record<string, unknown>,
  forced?: 'http500' | 'slow',
): Promise<Response> {
  const fault = forced === 'slow' ? 'timeout' : (forced ?? (await ledger(c).takeFault(op, fields)))
  if (fault === 'timeout') await sleep(num(c.env.SANDBOX_SLOW_MS, 30_000))
  if (fault === 'http500') return c.html('<html><body><h1>500 Internal Server Error</h1></body></html>', 500)
  if (fault === 'unparseable')
    return c.body(JSON.stringify(body).slice(0, 40), 200, { 'Content-Type': 'application/json' })
  // Something between us and the Worker (a proxy, a rotated key) refuses the token after the
  // charge went through: the Worker must not take the refusal for "nothing happened".
  if (fault === 'token_refused') return c.json(result(CODES.tokenFailed))
  // An answer without a field it should carry (a QR code's merchantWalletId, a regenerated
  // invoice's sum).
  if (fault === 'incomplete') {
    const { merchantWalletId: _, invoiceDetails, ...rest } = body
    if (invoiceDetails === null || typeof invoiceDetails !== 'object') return c.json(rest)
    const { amount: _amount, currency: _currency, ...details } = invoiceDetails as Record<string, unknown>
    return c.json({ ...rest, invoiceDetails: details })
  }
  // The gateway's own answer, late but within the Worker's timeout: what the Worker does meanwhile
  // (another request, the retention sweep) must not be undone when it comes.
  if (fault === 'late') {
    await sleep(num(c.env.SANDBOX_LATE_ANSWER_MS, 1_000))
    return c.json(body)
  }
  // The gateway's own answer is late and still says "pending" (P, 00002) although the payment has
  // settled and its notification went out first: a notification may overtake the answer.
  if (fault === 'late_pending') {
    await sleep(num(c.env.SANDBOX_LATE_ANSWER_MS, 1_000))
    return c.json({
      ...body,
      transactionStatus: 'P',
      result: { code: CODES.pending[0], description: CODES.pending[1] },
    })
  }
  return c.json(body)
}

/** The notification body for a payment (facts sheet), with its checksum. */
async function notificationBody(
  p: PaymentRow,
  secureKey: string,
  terminalId: string,
): Promise<Record<string, unknown>> {
  const sum = await checksum('notification', {
    paymentId: p.id,
    merchantTransactionId: p.mtid,
    amount: p.amount,
    transactionStatus: p.status,
    secureKey,
  })
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
    card: {
      bin: p.bin,
      lastFourDigits: p.last4,
      last4Digits: p.last4,
      expiryMonth: p.expiryMonth,
      expiryYear: p.expiryYear,
    },
    timestamp: gatewayTimestamp(),
    bankReferenceId: `BR${p.id}`,
    terminalId,
  }
}

/** Notifies `p` as it stands (now, or after `delayMs`); with `settle`, first moves it to that state. */
export async function scheduleNotification(c: Ctx, p: PaymentRow, delayMs: number, settle = false): Promise<void> {
  if (!p.notificationUrl && !settle) return
  const member = memberOf(c)
  const body = await notificationBody(p, member.secureKey, member.terminalId)
  await ledger(c).later(
    delayMs,
    p.notificationUrl,
    JSON.stringify(body),
    settle ? { id: p.id, status: p.status, code: p.code, description: p.description } : undefined,
  )
}

/** The payment response: full for a card payment, short for token and repeat payments (spec). */
export function paymentBody(
  p: PaymentRow,
  full: boolean,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const base: Record<string, unknown> = {
    paymentId: p.id,
    paymentType: p.paymentType,
    result: { code: p.code, description: p.description },
    timestamp: gatewayTimestamp(),
  }
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

export function newPayment(kind: PaymentKind, f: Record<string, string>, over: Partial<PaymentRow>): PaymentRow {
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

/** The browser's way back to the merchant, with the facts sheet's return fields and checksum. */
export async function returnToMerchant(c: Ctx, p: PaymentRow): Promise<Response> {
  const sum = await checksum('notification', {
    paymentId: p.id,
    merchantTransactionId: p.mtid,
    amount: p.amount,
    transactionStatus: p.status,
    secureKey: memberOf(c).secureKey,
  })
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
