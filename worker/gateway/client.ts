/**
 * @module
 * The gateway client: builds each upstream request from the field table (form body, `AuthToken`
 * header, `authentication.*`, checksum), refuses what would not validate before anything is sent,
 * times out every call, and parses the answer into a typed outcome.
 *
 * It never retries a charge on its own. A charge whose answer never came is `unknown`, and only a
 * status inquiry may settle it (SECURITY.md R17-R19). That includes a charge the gateway answered
 * with a token refusal: only calls that move no money are sent again with a fresh token.
 */
import {
  INVOICE_RESPONSE,
  OPERATION_PATHS,
  QR_RESPONSE,
  REQUEST_FIELDS,
  type Operation,
  type RequestFieldName,
} from '../../shared/fields.ts'
import { checkFormat } from '../../shared/formats.ts'
import type { AmountBounds } from '../../shared/money.ts'
import { readFields } from '../../shared/read.ts'
import type { InvoiceResponse, QrResponse, RequestOf, WireRequest } from '../../shared/types.ts'
import { validateRequest } from '../../shared/validate.ts'
import {
  getAuthToken,
  invalidateAuthToken,
  type TokenKeeping,
  type TokenService,
  type TokenSource,
} from './auth-token.ts'
import { checksum, type ChecksumRule } from '../../shared/gateway/checksum.ts'
import { encodeForm } from '../../shared/gateway/form.ts'
import {
  classifyByCode,
  classifyPayment,
  TOKEN_FAILURE_CODES,
  type Outcome,
  type PaymentOutcome,
  type UnknownReason,
  type UnsentReason,
} from './outcome.ts'

export interface GatewayConfig {
  readonly baseUrl: string
  readonly memberId: string
  readonly terminalId: string
  readonly secureKey: string
  /** A fixed AuthToken; when absent, one is generated from partnerId + merchantUsername + secureKey. */
  readonly authToken?: string
  /** Where a generated token comes from across isolates (./token-keeper.ts); without one, the gateway. */
  readonly keeper?: TokenKeeping
  /** The partner's own token for QR requests (QR rule 1); falls back to the AuthToken. */
  readonly qrAuthToken?: string
  readonly partnerId?: string
  readonly merchantUsername?: string
  /** Per-call timeout in milliseconds. */
  readonly timeoutMs: number
  readonly amountBounds?: AmountBounds
  /** Injected for tests that must see or fault the wire; defaults to the global fetch. */
  readonly fetch?: typeof fetch
}

/** Fields the client fills from configuration, the checksum rule or the operation itself. */
type Auto =
  | 'memberId'
  | 'terminalId'
  | 'checksum'
  | 'partnerId'
  | 'merchantUsername'
  | 'secureKey'
  | 'paymentMode'
  | 'inquiryType'
  | 'operationType'
type Fixed = 'recurringType' | 'paymentBrand'
/** What a caller passes for an operation: the request less what the client fills in. */
export type CallFields<Op extends Operation> = Omit<RequestOf<Op>, Auto | Fixed> &
  Partial<Pick<RequestOf<Op>, Extract<keyof RequestOf<Op>, Fixed>>>

const CHECKSUM_OF: Partial<Record<Operation, ChecksumRule>> = {
  payment: 'payment',
  tokenInitial: 'registration',
  tokenRepeat: 'registration',
  repeat: 'paymentId',
  inquiry: 'inquiry',
  invoiceRegenerate: 'invoice',
  invoiceGenerate: 'invoiceGenerate',
  capture: 'paymentId',
  refund: 'paymentId',
  reversal: 'reversal',
  deleteRegistration: 'deregistration',
}

/**
 * Operations that move money: never sent twice, whatever the first answer was. A capture, refund
 * or reversal moves money too (or releases it); deleting a registration does not, and is sent
 * again with a fresh token like an inquiry.
 */
export const MOVES_MONEY: ReadonlySet<Operation> = new Set<Operation>([
  'payment',
  'tokenInitial',
  'tokenRepeat',
  'repeat',
  'qrComplete',
  'capture',
  'refund',
  'reversal',
])

/** What one HTTP exchange produced before classification. */
type Exchange =
  | { kind: 'body'; body: unknown }
  | { kind: 'unknown'; reason: UnknownReason; status?: number }
  /** No token could be had: nothing was sent. */
  | { kind: 'unsent'; reason: UnsentReason }
  /** The gateway refused the token it was sent; `body` is its refusal when it sent one. */
  | { kind: 'token_refused'; body?: unknown }

export class GatewayClient {
  readonly #config: GatewayConfig
  readonly #fetch: typeof fetch

  constructor(config: GatewayConfig) {
    this.#config = config
    // Wrapped so workerd never sees fetch called with a foreign `this`.
    this.#fetch = config.fetch ?? ((input, init) => fetch(input, init))
  }

  /** Initial card payment, customer present (`payments`). */
  payment(fields: CallFields<'payment'>): Promise<PaymentOutcome> {
    return this.#paymentCall('payment', fields)
  }

  /** Pay with a stored registration; `recurringType` INITIAL or REPEATED picks the rule. */
  payWithToken(
    registrationId: string,
    recurring: 'INITIAL' | 'REPEATED',
    fields: CallFields<'tokenRepeat'>,
  ): Promise<PaymentOutcome> {
    return this.#paymentCall(recurring === 'INITIAL' ? 'tokenInitial' : 'tokenRepeat', fields, registrationId)
  }

  /** Repeat by an earlier payment's id, customer absent (`payments/{id}`). */
  repeat(paymentId: string, fields: CallFields<'repeat'>): Promise<PaymentOutcome> {
    return this.#paymentCall('repeat', fields, paymentId)
  }

  /** Status inquiry by payment id (PID) or merchantTransactionId (MID). */
  inquiry(id: string, idType: 'PID' | 'MID'): Promise<PaymentOutcome> {
    return this.#paymentCall('inquiry', { idType }, id)
  }

  /** Captures an authorisation (PA), in full or in part (`payments/{id}`, paymentType CP). */
  capture(paymentId: string, fields: CallFields<'capture'>): Promise<PaymentOutcome> {
    return this.#paymentCall('capture', fields, paymentId)
  }

  /** Refunds a captured payment, in full or in part (`payments/{id}`, paymentType RF). */
  refund(paymentId: string, fields: CallFields<'refund'>): Promise<PaymentOutcome> {
    return this.#paymentCall('refund', fields, paymentId)
  }

  /** Voids an authorisation that is not captured (`payments/{id}`, paymentType RV). */
  reverse(paymentId: string, fields: CallFields<'reversal'>): Promise<PaymentOutcome> {
    return this.#paymentCall('reversal', fields, paymentId)
  }

  /** Deletes a stored card (`paywithtoken/{id}`, paymentType DL). */
  deleteRegistration(registrationId: string): Promise<PaymentOutcome> {
    return this.#paymentCall('deleteRegistration', {}, registrationId)
  }

  /** QR step 1: validates the order and answers paymentId + merchantWalletId. */
  async qrVerify(fields: CallFields<'qrVerify'>): Promise<Outcome<QrResponse>> {
    return this.#codedCall('qrVerify', fields, QR_RESPONSE)
  }

  /** QR step 2: completes the payment verified in step 1. */
  async qrComplete(fields: CallFields<'qrComplete'>): Promise<Outcome<QrResponse>> {
    return this.#codedCall('qrComplete', fields, QR_RESPONSE)
  }

  /** Creates a new invoice from an existing one. */
  async regenerateInvoice(fields: CallFields<'invoiceRegenerate'>): Promise<Outcome<InvoiceResponse>> {
    return this.#codedCall('invoiceRegenerate', fields, INVOICE_RESPONSE)
  }

  /** Creates an invoice (the sandbox's endpoint; the real gateway does this in its dashboard). */
  async generateInvoice(fields: CallFields<'invoiceGenerate'>): Promise<Outcome<InvoiceResponse>> {
    return this.#codedCall('invoiceGenerate', fields, INVOICE_RESPONSE)
  }

  async #paymentCall(op: Operation, fields: object, id?: string): Promise<PaymentOutcome> {
    const built = await this.#build(op, fields as Partial<Record<RequestFieldName, string>>, id)
    if (!built.ok) return { kind: 'invalid', fields: built.fields }
    const exchange = await this.#exchange(op, built.path, built.wire)
    return exchange.kind === 'body' ? classifyPayment(exchange.body) : this.#unsettled(exchange)
  }

  async #codedCall<T extends typeof QR_RESPONSE | typeof INVOICE_RESPONSE>(
    op: Operation,
    fields: object,
    table: T,
  ): Promise<Outcome<T extends typeof QR_RESPONSE ? QrResponse : InvoiceResponse>> {
    type R = T extends typeof QR_RESPONSE ? QrResponse : InvoiceResponse
    const built = await this.#build(op, fields as Partial<Record<RequestFieldName, string>>)
    if (!built.ok) return { kind: 'invalid', fields: built.fields }
    const exchange = await this.#exchange(op, built.path, built.wire)
    if (exchange.kind !== 'body') return this.#unsettled(exchange)
    const read = readFields(table, exchange.body)
    if (!read.ok) return { kind: 'unknown', reason: 'unparseable' }
    const response = read.value as unknown as R & {
      resultCode: string
      resultDescription?: string
      transactionStatus?: string
    }
    // Only a completion's status says anything of money (a verification takes none).
    const status = op === 'qrComplete' ? response.transactionStatus : undefined
    return classifyByCode<R>(response, response.resultCode, response.resultDescription, status)
  }

  /** An exchange that produced no gateway body: nothing sent, a refused token, or unknown. */
  #unsettled(
    exchange: Exclude<Exchange, { kind: 'body' }>,
  ):
    | { kind: 'unknown'; reason: UnknownReason; status?: number }
    | { kind: 'unsent'; reason: UnsentReason }
    | { kind: 'rejected'; reason: 'auth'; code: string; description: string } {
    if (exchange.kind === 'unsent') return exchange
    if (exchange.kind === 'token_refused')
      return { kind: 'rejected', reason: 'auth', code: '401', description: 'AuthToken refused' }
    return exchange.status === undefined
      ? { kind: 'unknown', reason: exchange.reason }
      : { kind: 'unknown', reason: exchange.reason, status: exchange.status }
  }

  /** Fills configuration, fixed values and the checksum, maps to wire names and validates. */
  async #build(
    op: Operation,
    given: Partial<Record<RequestFieldName, string>>,
    id?: string,
  ): Promise<
    | { ok: true; path: string; wire: WireRequest }
    | { ok: false; fields: { field: string; code: 'required' | 'format' }[] }
  > {
    const c = this.#config
    const logical: Partial<Record<RequestFieldName, string>> = {
      memberId: c.memberId,
      terminalId: c.terminalId,
      ...given,
    }
    for (const name of Object.keys(REQUEST_FIELDS) as RequestFieldName[]) {
      const field = REQUEST_FIELDS[name]
      const fixed = 'fixed' in field ? (field.fixed as Partial<Record<Operation, string>>)[op] : undefined
      if (fixed !== undefined && field.use[op as keyof typeof field.use] === 'R' && logical[name] === undefined)
        logical[name] = fixed
    }
    let path: string = OPERATION_PATHS[op]
    if (path.includes('{id}')) {
      // MID inquiries look up by merchantTransactionId, which has its own (wider) grammar.
      const format = op === 'inquiry' && given.idType === 'MID' ? 'merchantTransactionId' : 'gatewayId'
      if (id === undefined || checkFormat(format, id) !== null)
        return { ok: false, fields: [{ field: 'id', code: id ? 'format' : 'required' }] }
      path = path.replace('{id}', encodeURIComponent(id))
    }
    const rule = CHECKSUM_OF[op]
    if (rule) {
      const sum = await checksum(rule, {
        memberId: c.memberId,
        secureKey: c.secureKey,
        merchantTransactionId: logical.merchantTransactionId ?? '',
        amount: logical.amount ?? '',
        registrationId: id ?? '',
        paymentId: id ?? '',
        id: id ?? '',
        invoiceId: logical.invoiceId ?? '',
        merchantRedirectUrl: logical.merchantRedirectUrl ?? '',
        merchantInvoiceId: logical.merchantInvoiceId ?? '',
        transactionStatus: '',
      })
      if (!sum.ok) return { ok: false, fields: [{ field: sum.error.input, code: sum.error.code }] }
      logical.checksum = sum.value
    }
    const wire: Record<string, string> = {}
    for (const [name, value] of Object.entries(logical)) {
      const field = REQUEST_FIELDS[name as RequestFieldName]
      if (value !== undefined && field && field.use[op as keyof typeof field.use]) wire[field.wire] = value
      else if (value !== undefined && !field) wire[name] = value // unknown name: validation below refuses it
    }
    const valid = validateRequest(op, wire, c.amountBounds ? { amountBounds: c.amountBounds } : {})
    if (!valid.ok)
      return {
        ok: false,
        fields: valid.error.map((e) => ({ field: e.field, code: e.code === 'required' ? 'required' : 'format' })),
      }
    return { ok: true, path, wire: valid.value }
  }

  /**
   * One request. A refused token is dropped from the cache either way; a call that moves no money
   * is then sent once more with a fresh one, while a charge becomes `unknown`: the refusal may have
   * come from something in between, so only an inquiry may say whether money moved.
   */
  async #exchange(op: Operation, path: string, wire: WireRequest): Promise<Exchange> {
    const service: TokenService = op.startsWith('invoice') ? 'invoice' : 'transaction'
    const first = await this.#send(op, service, path, wire)
    if (first.kind !== 'token_refused') return first
    const renewable = invalidateAuthToken(this.#tokenSource(), service)
    if (MOVES_MONEY.has(op)) return { kind: 'unknown', reason: 'token_refused' }
    const final = renewable ? await this.#send(op, service, path, wire) : first
    // Still refused: let the gateway's own answer (code and description) speak where there is one.
    return final.kind === 'token_refused' && final.body !== undefined ? { kind: 'body', body: final.body } : final
  }

  #tokenSource(): TokenSource {
    const c = this.#config
    return {
      baseUrl: c.baseUrl,
      secureKey: c.secureKey,
      timeoutMs: c.timeoutMs,
      fetch: this.#fetch,
      ...(c.authToken ? { authToken: c.authToken } : {}),
      ...(c.partnerId ? { partnerId: c.partnerId } : {}),
      ...(c.merchantUsername ? { merchantUsername: c.merchantUsername } : {}),
      ...(c.keeper ? { keeper: c.keeper } : {}),
    }
  }

  async #send(op: Operation, service: TokenService, path: string, wire: WireRequest): Promise<Exchange> {
    const qr = op === 'qrVerify' || op === 'qrComplete'
    const fixed = qr ? this.#config.qrAuthToken : undefined
    const got = fixed ? { ok: true as const, token: fixed } : await getAuthToken(this.#tokenSource(), service)
    if (!got.ok) return { kind: 'unsent', reason: got.reason === 'refused' ? 'token_refused' : 'unreachable' }
    const token = got.token
    let res: Response
    try {
      res = await this.#fetch(new URL(path, this.#config.baseUrl), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', AuthToken: token },
        body: encodeForm(wire),
        signal: AbortSignal.timeout(this.#config.timeoutMs),
        // Never followed: a redirect would send the AuthToken and the signed fields to another
        // address. A 3xx is no answer (unknown: the request may have been processed).
        redirect: 'manual',
      })
    } catch (e) {
      const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
      return { kind: 'unknown', reason: timeout ? 'timeout' : 'transport' }
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel()
      return { kind: 'token_refused' }
    }
    if (!res.ok) {
      await res.body?.cancel()
      return { kind: 'unknown', reason: 'http_status', status: res.status }
    }
    let body: unknown
    try {
      body = JSON.parse(await res.text())
    } catch (e) {
      const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')
      return { kind: 'unknown', reason: timeout ? 'timeout' : 'unparseable' }
    }
    const code = typeof body === 'object' && body !== null ? readCode(body) : undefined
    if (code !== undefined && TOKEN_FAILURE_CODES.has(code)) return { kind: 'token_refused', body }
    return { kind: 'body', body }
  }
}

function readCode(body: object): string | undefined {
  const result =
    (body as { result?: { code?: unknown }; statusInvoiceResult?: { code?: unknown } }).result ??
    (body as { statusInvoiceResult?: { code?: unknown } }).statusInvoiceResult
  return typeof result?.code === 'string' ? result.code : undefined
}
