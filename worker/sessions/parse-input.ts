/**
 * @module
 * Validation of what the merchant's server sends to create a session, and of what a browser may
 * send to pay. Field formats come from the shared field table; only the session's own options
 * (flow, origins, lifetimes) are checked here.
 */
import { CARD_BRANDS, cvvLength, type CardBrand } from '../../shared/card.ts'
import type { FieldError } from '../../shared/errors.ts'
import { REQUEST_FIELDS, type RequestField, type RequestFieldName } from '../../shared/fields.ts'
import { checkFormat } from '../../shared/formats.ts'
import { fitsMinorUnits, type AmountBounds } from '../../shared/money.ts'
import { err, ok, type Result } from '../../shared/result.ts'
import { fieldsOf, flatten, validateFields } from '../../shared/validate.ts'
import { parseMetadata } from './metadata.ts'
import { FLOWS, type Flow, type SessionInput } from './types.ts'

/** Session body keys that map to a gateway field of the table. */
const TABLE_KEYS = {
  amount: 'amount',
  currency: 'currency',
  merchantTransactionId: 'merchantTransactionId',
  paymentType: 'paymentType',
  invoiceId: 'invoiceId',
  merchantInvoiceId: 'merchantInvoiceId',
  invoiceExpirationPeriod: 'invoiceExpirationPeriod',
  'customer.givenName': 'givenName',
  'customer.surname': 'surname',
  'customer.email': 'email',
  'customer.phone': 'phone',
  'customer.telnocc': 'telnocc',
} as const satisfies Record<string, RequestFieldName>

const OTHER_KEYS = new Set(['flow', 'methods', 'recurring', 'createRegistration', 'registrationId', 'recurringType', 'savedCard.brand', 'savedCard.last4', 'returnUrl', 'allowedOrigins', 'expiresIn', 'maxAttempts'])

const DEFAULT_EXPIRES_S = 30 * 60
const int = (v: unknown, min: number, max: number): number | 'bad' | undefined => (v === undefined ? undefined : Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? (v as number) : 'bad')

/** An exact origin: scheme, host and port, https (or http on a developer's own machine). */
export function isOrigin(v: unknown): v is string {
  if (typeof v !== 'string') return false
  try {
    const u = new URL(v)
    return u.origin === v && checkFormat('url', v) === null
  } catch {
    return false
  }
}

/** Validates `POST /v1/sessions`; every problem is reported at once, by field name. */
export function parseSessionInput(raw: Record<string, unknown>, bounds: AmountBounds, now = Date.now()): Result<SessionInput, FieldError[]> {
  // Metadata is a map of the merchant's own keys: validated as a whole, never flattened.
  const { metadata: rawMetadata, ...rest } = raw
  const metadata = parseMetadata(rawMetadata)
  const body = flatten(rest)
  const errors: FieldError[] = metadata.ok ? [] : [...metadata.error]
  for (const key of Object.keys(body)) {
    if (!(key in TABLE_KEYS) && !OTHER_KEYS.has(key)) errors.push({ field: key, code: 'not_allowed' })
  }
  const wire: Record<string, unknown> = {}
  for (const [key, name] of Object.entries(TABLE_KEYS)) if (body[key] !== undefined) wire[REQUEST_FIELDS[name].wire] = body[key]
  const fields = validateFields(Object.values(TABLE_KEYS), wire, { amountBounds: bounds })
  if (!fields.ok) errors.push(...fields.error.map((e) => ({ field: Object.entries(TABLE_KEYS).find(([, n]) => REQUEST_FIELDS[n].wire === e.field)?.[0] ?? e.field, code: e.code })))
  const v = fields.ok ? fields.value : {}

  // `flow` names one method, `methods` several (the first is shown first); both may be sent when
  // they agree (`flow` is one of `methods` and is then shown first).
  const methods = parseMethods(body.flow, body.methods, errors)
  const flow = methods?.[0]
  for (const required of ['amount', 'currency', 'merchantTransactionId'] as const) {
    if (body[required] === undefined) errors.push({ field: required, code: 'required' })
  }
  if (typeof v.amount === 'string' && typeof v.currency === 'string' && !fitsMinorUnits(v.amount, v.currency)) errors.push({ field: 'amount', code: 'minor_units' })
  if (body.recurring !== undefined && body.recurring !== 'INITIAL') errors.push({ field: 'recurring', code: 'invalid_value' })
  if (body.createRegistration !== undefined && typeof body.createRegistration !== 'boolean') errors.push({ field: 'createRegistration', code: 'format' })
  if (body.recurringType !== undefined && body.recurringType !== 'INITIAL' && body.recurringType !== 'REPEATED') errors.push({ field: 'recurringType', code: 'invalid_value' })
  if (body.registrationId !== undefined && (typeof body.registrationId !== 'string' || checkFormat('gatewayId', body.registrationId) !== null)) errors.push({ field: 'registrationId', code: 'format' })
  if (body.returnUrl !== undefined && (typeof body.returnUrl !== 'string' || checkFormat('url', body.returnUrl) !== null)) errors.push({ field: 'returnUrl', code: 'format' })
  const origins = body.allowedOrigins
  if (origins !== undefined && (!Array.isArray(origins) || origins.length > 10 || !origins.every(isOrigin))) errors.push({ field: 'allowedOrigins', code: 'format' })
  const expiresIn = int(body.expiresIn, 60, 24 * 60 * 60)
  if (expiresIn === 'bad') errors.push({ field: 'expiresIn', code: 'out_of_range' })
  const maxAttempts = int(body.maxAttempts, 1, 10)
  if (maxAttempts === 'bad') errors.push({ field: 'maxAttempts', code: 'out_of_range' })
  const brand = body['savedCard.brand']
  const last4 = body['savedCard.last4']
  if (brand !== undefined && !CARD_BRANDS.includes(brand as CardBrand)) errors.push({ field: 'savedCard.brand', code: 'invalid_value' })
  if (last4 !== undefined && (typeof last4 !== 'string' || !/^\d{4}$/.test(last4))) errors.push({ field: 'savedCard.last4', code: 'format' })

  // What each flow needs, and what it may not carry.
  const needs: Record<Flow, string[]> = {
    card: [],
    'saved-card': ['registrationId'],
    qr: [],
    invoice: ['invoiceId', 'merchantInvoiceId', 'invoiceExpirationPeriod'],
  }
  const onlyFor: Record<string, Flow> = {
    createRegistration: 'card',
    recurring: 'card',
    registrationId: 'saved-card',
    recurringType: 'saved-card',
    'savedCard.brand': 'saved-card',
    'savedCard.last4': 'saved-card',
    invoiceId: 'invoice',
    merchantInvoiceId: 'invoice',
    invoiceExpirationPeriod: 'invoice',
  }
  if (methods) {
    for (const m of methods) for (const key of needs[m]) if (body[key] === undefined) errors.push({ field: key, code: 'required' })
    for (const [key, f] of Object.entries(onlyFor)) if (body[key] !== undefined && !methods.includes(f)) errors.push({ field: key, code: 'not_allowed' })
  }
  if (errors.length > 0) return err(dedupe(errors))

  const customer = {
    givenName: v['customer.givenName'],
    surname: v['customer.surname'],
    email: v['customer.email'],
    phone: v['customer.phone'],
    telnocc: v['customer.telnocc'],
  }
  return ok({
    flow: flow as Flow,
    methods: methods as Flow[],
    amount: v.amount ?? '',
    currency: v.currency ?? '',
    merchantTransactionId: v.merchantTransactionId ?? '',
    paymentType: (v.paymentType ?? 'DB') as 'DB' | 'PA',
    ...(body.recurring === 'INITIAL' ? { recurring: 'INITIAL' as const } : {}),
    ...(body.createRegistration === true ? { createRegistration: true } : {}),
    ...(typeof body.registrationId === 'string' ? { registrationId: body.registrationId } : {}),
    ...(body.recurringType ? { recurringType: body.recurringType as 'INITIAL' | 'REPEATED' } : {}),
    ...(brand && last4 ? { savedCard: { brand: brand as CardBrand, last4: last4 as string } } : {}),
    ...(v.invoiceId ? { invoiceId: v.invoiceId } : {}),
    ...(v.merchantInvoiceId ? { merchantInvoiceId: v.merchantInvoiceId } : {}),
    ...(v.invoiceExpirationPeriod ? { invoiceExpirationPeriod: v.invoiceExpirationPeriod } : {}),
    ...(Object.values(customer).some(Boolean) ? { customer } : {}),
    ...(typeof body.returnUrl === 'string' ? { returnUrl: body.returnUrl } : {}),
    allowedOrigins: (origins as string[] | undefined) ?? [],
    expiresAt: now + ((expiresIn as number | undefined) ?? DEFAULT_EXPIRES_S) * 1000,
    maxAttempts: (maxAttempts as number | undefined) ?? 3,
    ...(metadata.ok && Object.keys(metadata.value).length > 0 ? { metadata: metadata.value } : {}),
  })
}

/**
 * The methods a session offers, from `flow` (one) and `methods` (several, distinct, non-empty).
 * Sent together they must agree: `flow` is one of `methods`, and goes first. Undefined when refused
 * (the reasons are pushed to `errors`, named by field).
 */
function parseMethods(flow: unknown, methods: unknown, errors: FieldError[]): Flow[] | undefined {
  const isFlow = (m: unknown): m is Flow => FLOWS.includes(m as Flow)
  if (flow !== undefined && !isFlow(flow)) errors.push({ field: 'flow', code: 'invalid_value' })
  if (methods === undefined) {
    if (flow === undefined) errors.push({ field: 'flow', code: 'required' })
    return isFlow(flow) ? [flow] : undefined
  }
  if (!Array.isArray(methods) || methods.length === 0 || methods.length > FLOWS.length) {
    errors.push({ field: 'methods', code: Array.isArray(methods) && methods.length === 0 ? 'required' : 'format' })
    return undefined
  }
  if (!methods.every(isFlow) || new Set(methods).size !== methods.length) {
    errors.push({ field: 'methods', code: 'invalid_value' })
    return undefined
  }
  if (flow === undefined) return methods
  if (!isFlow(flow)) return undefined
  if (!methods.includes(flow)) {
    errors.push({ field: 'flow', code: 'mismatch' })
    return undefined
  }
  return [flow, ...methods.filter((m) => m !== flow)]
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>()
  return errors.filter((e) => {
    const k = `${e.field}:${e.code}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/**
 * Body keys a browser may never set (SECURITY.md R1): every field of the table that the shopper
 * does not supply (the session, the configuration or the Worker does), plus the session's options.
 */
export const SESSION_FIXED_KEYS: ReadonlySet<string> = new Set([
  ...(Object.values(REQUEST_FIELDS) as RequestField[]).filter((f) => f.source !== 'shopper').map((f) => f.wire),
  'flow',
  'methods',
  'recurring',
  'registrationId',
])

/** The shopper fields of a card payment, from the field table. */
const CARD_SHOPPER_FIELDS = fieldsOf('payment').filter((f) => f.field.source === 'shopper').map((f) => f.name)

export type ShopperFields = Partial<Record<RequestFieldName, string>>

/**
 * Validates a pay body. Card flow: card and customer fields (prefilled from the session where
 * missing); saved-card flow: the CVV only. Anything the session fixed is refused as a mismatch.
 */
export function parsePayBody(
  raw: Record<string, unknown>,
  flow: 'card' | 'saved-card',
  prefill: Partial<Record<'givenName' | 'surname' | 'email' | 'phone' | 'telnocc', string | undefined>> | undefined,
  savedBrand: CardBrand | undefined,
): Result<ShopperFields, { code: 'param_mismatch' | 'invalid_request'; fields: FieldError[] }> {
  const body = flatten(raw)
  delete body.turnstileToken
  const fixed = Object.keys(body).filter((k) => SESSION_FIXED_KEYS.has(k))
  if (fixed.length > 0) return err({ code: 'param_mismatch', fields: fixed.map((field) => ({ field, code: 'mismatch' as const })) })
  const names: RequestFieldName[] = flow === 'card' ? CARD_SHOPPER_FIELDS : ['cvv']
  const allowed = new Set<string>(names.map((n) => REQUEST_FIELDS[n].wire))
  const unknown = Object.keys(body).filter((k) => !allowed.has(k))
  if (unknown.length > 0) return err({ code: 'invalid_request', fields: unknown.map((field) => ({ field, code: 'not_allowed' as const })) })
  if (flow === 'card' && prefill) {
    const map = { givenName: 'customer.givenName', surname: 'customer.surname', email: 'customer.email', phone: 'customer.phone', telnocc: 'customer.telnocc' } as const
    for (const [k, wire] of Object.entries(map)) if (body[wire] === undefined && prefill[k as keyof typeof map]) body[wire] = prefill[k as keyof typeof map]
  }
  const valid = validateFields(names, body, { requireFor: flow === 'card' ? 'payment' : 'tokenRepeat' })
  if (!valid.ok) return err({ code: 'invalid_request', fields: valid.error })
  if (flow === 'saved-card' && savedBrand && valid.value['card.cvv']?.length !== cvvLength(savedBrand)) {
    return err({ code: 'invalid_request', fields: [{ field: 'card.cvv', code: 'length' }] })
  }
  const out: ShopperFields = {}
  for (const n of names) {
    const value = valid.value[REQUEST_FIELDS[n].wire]
    if (value !== undefined) out[n] = value
  }
  return ok(out)
}
