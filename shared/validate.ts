/**
 * @module
 * Validation of whole gateway requests from the field table. The Worker runs it before anything
 * goes upstream, the sandbox runs it on what arrives, and the widget runs the shopper fields of it
 * in the browser. It returns typed results, never throws on bad input and never echoes a value.
 */
import { detectBrand, normalizeCardNumber } from './card.ts'
import type { FieldError } from './errors.ts'
import { REQUEST_FIELDS, type Operation, type RequestField, type RequestFieldName } from './fields.ts'
import { checkFormat, type FormatOptions } from './formats.ts'
import { cvvLengthError, expiryError, expiryInPast, telnoccError } from './shopper-formats.ts'
import type { AmountBounds } from './money.ts'
import { err, ok, type Result } from './result.ts'
import type { WireRequest } from './types.ts'

export interface ValidateOptions {
  readonly amountBounds?: AmountBounds
  /** The clock used for "expiry not in the past"; injectable for tests. */
  readonly now?: Date
  /** Refuse wire names the operation does not send (the sandbox is strict; default true). */
  readonly rejectUnknown?: boolean
}

/** The fields an operation uses, each with its wire name and rule. */
export function fieldsOf(op: Operation): { name: RequestFieldName; field: RequestField; use: 'R' | 'O' }[] {
  const out: { name: RequestFieldName; field: RequestField; use: 'R' | 'O' }[] = []
  for (const name of Object.keys(REQUEST_FIELDS) as RequestFieldName[]) {
    const field: RequestField = REQUEST_FIELDS[name]
    const use = field.use[op]
    if (use) out.push({ name, field, use })
  }
  return out
}

/** Normalises what shoppers type that the gateway wants bare (card numbers without spaces). */
function normalize(field: RequestField, value: string): string {
  return field.format === 'cardNumber' ? normalizeCardNumber(value) : value.trim()
}

export { expiryInPast }

/** Checks that belong to no single field: CVV length by brand, expiry date, phone with its code. */
export function crossFieldErrors(values: Readonly<Record<string, string>>, now: Date): FieldError[] {
  const errors: FieldError[] = []
  const number = values['card.number']
  const cvv = values['card.cvv']
  const cvvCode = number !== undefined && cvv !== undefined ? cvvLengthError(cvv, detectBrand(number)) : null
  if (cvvCode) errors.push({ field: 'card.cvv', code: cvvCode })
  const month = values['card.expiryMonth']
  const year = values['card.expiryYear']
  const expiryCode = month !== undefined && year !== undefined ? expiryError(month, year, now) : null
  if (expiryCode) errors.push({ field: 'card.expiryYear', code: expiryCode })
  const phoneCode = telnoccError(values['customer.phone'], values['customer.telnocc'])
  if (phoneCode) errors.push({ field: 'customer.telnocc', code: phoneCode })
  return errors
}

/**
 * Validates the wire fields of one operation. Input keys are wire names; values must be strings
 * (numbers and booleans are refused, so `amount: 100` cannot slip in as "100").
 * Returns the normalised fields, or every field error at once.
 */
export function validateRequest(
  op: Operation,
  input: Readonly<Record<string, unknown>>,
  options: ValidateOptions = {},
): Result<WireRequest, FieldError[]> {
  const errors: FieldError[] = []
  const values: Record<string, string> = {}
  const known = new Set<string>()
  for (const { field, use } of fieldsOf(op)) {
    known.add(field.wire)
    const raw = input[field.wire]
    if (raw === undefined || raw === null || raw === '') {
      if (use === 'R') errors.push({ field: field.wire, code: 'required' })
      continue
    }
    if (typeof raw !== 'string') {
      errors.push({ field: field.wire, code: 'format' })
      continue
    }
    const value = normalize(field, raw)
    const formatOptions: FormatOptions = { amountBounds: options.amountBounds, values: field.values }
    const code = checkFormat(field.format, value, formatOptions)
    if (code) {
      errors.push({ field: field.wire, code })
      continue
    }
    const fixed = field.fixed?.[op]
    if (fixed !== undefined && value !== fixed) {
      errors.push({ field: field.wire, code: 'invalid_value' })
      continue
    }
    values[field.wire] = value
  }
  if (options.rejectUnknown ?? true) {
    for (const key of Object.keys(input)) {
      if (!known.has(key)) errors.push({ field: key, code: 'not_allowed' })
    }
  }
  errors.push(...crossFieldErrors(values, options.now ?? new Date()))
  return errors.length > 0 ? err(errors) : ok(values)
}

/**
 * Flattens nested JSON (`{ card: { number } }`) into wire names (`card.number`). Arrays are kept
 * as values. The result has no prototype: a key named `__proto__` cannot reach one.
 */
export function flatten(
  input: unknown,
  prefix = '',
  out: Record<string, unknown> = Object.create(null) as Record<string, unknown>,
): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    if (prefix) out[prefix] = input
    return out
  }
  for (const [key, value] of Object.entries(input)) {
    const name = prefix ? `${prefix}.${key}` : key
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) flatten(value, name, out)
    else out[name] = value
  }
  return out
}
