/**
 * @module
 * What the merchant's server sends to create a session, and what a browser may send to pay, as
 * typed input: checked by the routes' schemas (worker/schemas/), whose formats come from the
 * field table.
 */
import type { CardBrand } from '../../shared/card.ts'
import type { FieldError } from '../../shared/errors.ts'
import { REQUEST_FIELDS, type RequestField, type RequestFieldName } from '../../shared/fields.ts'
import { err, ok, type Result } from '../../shared/result.ts'
import { fieldsOf, flatten } from '../../shared/validate.ts'
import { check } from './build.ts'
import { cardPayBody, qrVerifyBody, savedCardPayBody } from './checkout.ts'
import { methodsOf, type SessionBody } from './sessions.ts'
import { setupAmount } from '../sessions/setup.ts'
import type { Flow, SessionInput } from '../sessions/types.ts'

const DEFAULT_EXPIRES_S = 30 * 60

/** A checked session body (worker/schemas/sessions.ts) as the session's input. */
export function sessionInputOf(b: SessionBody, now = Date.now()): SessionInput {
  // A setup runs as a card session that authorises the smallest amount, asks for a registration
  // and voids the authorisation (setup.ts); the schema lets it come alone, without an amount.
  const setup = (methodsOf(b) ?? [b.flow]).includes('setup')
  const methods = (setup ? ['card'] : (methodsOf(b) ?? [b.flow ?? 'card'])) as Flow[]
  const customer =
    b.customer && Object.values(b.customer).some(Boolean)
      ? {
          givenName: b.customer.givenName,
          surname: b.customer.surname,
          email: b.customer.email,
          phone: b.customer.phone,
          telnocc: b.customer.telnocc,
        }
      : undefined
  const brand = b.savedCard?.brand as CardBrand | undefined
  const last4 = b.savedCard?.last4
  return {
    flow: methods[0] as Flow,
    methods,
    amount: setup ? setupAmount(b.currency) : (b.amount ?? ''),
    currency: b.currency,
    merchantTransactionId: b.merchantTransactionId,
    paymentType: setup || b.paymentType === 'PA' ? 'PA' : 'DB',
    ...(setup ? { setup: true as const } : {}),
    ...(b.recurring === 'INITIAL' ? { recurring: 'INITIAL' as const } : {}),
    ...(setup || b.createRegistration === true ? { createRegistration: true } : {}),
    ...(b.registrationId ? { registrationId: b.registrationId } : {}),
    ...(b.recurringType ? { recurringType: b.recurringType as 'INITIAL' | 'REPEATED' } : {}),
    ...(brand && last4 ? { savedCard: { brand, last4 } } : {}),
    ...(b.invoiceId ? { invoiceId: b.invoiceId } : {}),
    ...(b.merchantInvoiceId ? { merchantInvoiceId: b.merchantInvoiceId } : {}),
    ...(b.invoiceExpirationPeriod ? { invoiceExpirationPeriod: b.invoiceExpirationPeriod } : {}),
    ...(customer ? { customer } : {}),
    ...(b.returnUrl ? { returnUrl: b.returnUrl } : {}),
    allowedOrigins: b.allowedOrigins ?? [],
    expiresAt: now + (b.expiresIn ?? DEFAULT_EXPIRES_S) * 1000,
    maxAttempts: b.maxAttempts ?? 3,
    ...(b.metadata && Object.keys(b.metadata).length > 0 ? { metadata: b.metadata } : {}),
  }
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

export type ShopperFields = Partial<Record<RequestFieldName, string>>

/** The shopper fields of a card payment, from the field table. */
const CARD_SHOPPER_FIELDS = fieldsOf('payment')
  .filter((f) => f.field.source === 'shopper')
  .map((f) => f.name)

/** The fields a browser body may not name because the session fixed them (amount, currency, order...). */
function fixedByTheSession(
  body: Record<string, unknown>,
): { code: 'param_mismatch'; fields: FieldError[] } | undefined {
  const fixed = Object.keys(body).filter((k) => SESSION_FIXED_KEYS.has(k))
  if (fixed.length === 0) return undefined
  const expected = 'set by the checkout session, not the browser'
  return { code: 'param_mismatch', fields: fixed.map((field) => ({ field, code: 'mismatch' as const, expected })) }
}

/**
 * Validates a pay body (worker/schemas/checkout.ts). Card flow: card and customer fields
 * (prefilled from the session where missing); saved-card flow: the CVV only. Anything the session
 * fixed is refused as a mismatch, before anything else is looked at.
 */
export function parsePayBody(
  raw: Record<string, unknown>,
  flow: 'card' | 'saved-card',
  prefill: Partial<Record<'givenName' | 'surname' | 'email' | 'phone' | 'telnocc', string | undefined>> | undefined,
  savedBrand: CardBrand | undefined,
): Result<
  { shopper: ShopperFields; returnPage?: string },
  { code: 'param_mismatch' | 'invalid_request'; fields: FieldError[] }
> {
  const body = flatten(raw)
  const fixed = fixedByTheSession(body)
  if (fixed) return err(fixed)
  if (flow === 'card' && prefill) {
    const map = {
      givenName: 'customer.givenName',
      surname: 'customer.surname',
      email: 'customer.email',
      phone: 'customer.phone',
      telnocc: 'customer.telnocc',
    } as const
    for (const [k, wire] of Object.entries(map))
      if ((body[wire] === undefined || body[wire] === '') && prefill[k as keyof typeof map])
        body[wire] = prefill[k as keyof typeof map]
  }
  const valid = check(flow === 'card' ? cardPayBody : savedCardPayBody(savedBrand), body)
  if (!valid.ok) return err({ code: 'invalid_request', fields: valid.error })
  const values = valid.value as Record<string, string | undefined>
  const out: ShopperFields = {}
  for (const n of flow === 'card' ? CARD_SHOPPER_FIELDS : (['cvv'] as const)) {
    const value = values[REQUEST_FIELDS[n].wire]
    if (value !== undefined) out[n] = value
  }
  return ok({ shopper: out, ...(values.returnPage ? { returnPage: values.returnPage } : {}) })
}

/** QR step 1 (worker/schemas/checkout.ts): the wallet id, and the name and email the session does not have. */
export function parseQrVerifyBody(
  raw: Record<string, unknown>,
  prefill: Partial<Record<'givenName' | 'surname' | 'email', string | undefined>>,
): Result<
  { walletId: string; givenName: string; surname: string; email: string },
  { code: 'param_mismatch' | 'invalid_request'; fields: FieldError[] }
> {
  const body = flatten(raw)
  const fixed = fixedByTheSession(body)
  if (fixed) return err(fixed)
  const map = { givenName: 'customer.givenName', surname: 'customer.surname', email: 'customer.email' } as const
  for (const [k, wire] of Object.entries(map))
    if ((body[wire] === undefined || body[wire] === '') && prefill[k as keyof typeof map])
      body[wire] = prefill[k as keyof typeof map]
  const valid = check(qrVerifyBody, body)
  if (!valid.ok) return err({ code: 'invalid_request', fields: valid.error })
  const b = valid.value
  return ok({
    walletId: b.walletId,
    givenName: b['customer.givenName'],
    surname: b['customer.surname'],
    email: b['customer.email'],
  })
}
