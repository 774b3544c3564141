/**
 * @module
 * One checker per value format of the field table. Each takes the text and answers `null` (valid)
 * or the rule that failed. None throws and none repeats the value back.
 *
 * Every format refuses `|` and control characters: `|` joins checksum inputs, so a value holding
 * one could shift the boundaries of what gets signed, and control characters have no business in
 * any gateway field.
 */
import type { FieldErrorCode } from './errors.ts'
import { checkAmount, CURRENCIES, DEFAULT_AMOUNT_BOUNDS, type AmountBounds } from './money.ts'
import {
  checkCardNumber,
  checkCountry,
  checkCvv,
  checkEmail,
  checkExpiryMonth,
  checkExpiryYear,
  checkName,
  checkPhone,
  checkPostcode,
  checkTelnocc,
  checkText,
  checkUrl,
  checkWalletId,
  COUNTRIES,
  UNSAFE,
} from './shopper-formats.ts'

export const FORMATS = [
  'amount',
  'currency',
  'cardNumber',
  'expiryMonth',
  'expiryYear',
  'cvv',
  'email',
  'phone',
  'telnocc',
  'ip',
  'country',
  'merchantTransactionId',
  'gatewayId',
  'walletId',
  'url',
  'name',
  'text',
  'postcode',
  'enum',
  'expirationPeriod',
  'checksum',
  'secret',
] as const
export type Format = (typeof FORMATS)[number]

export interface FormatOptions {
  readonly amountBounds?: AmountBounds
  /** Allowed values of an `enum` field. */
  readonly values?: readonly string[]
}

type Check = (value: string, options: FormatOptions) => FieldErrorCode | null

const matches = (re: RegExp): Check => (v) => (re.test(v) ? null : 'format')

export { COUNTRIES }

/** A dotted quad with each part 0-255 and no leading zeros (which some parsers read as octal). */
export function isIPv4(v: string): boolean {
  const parts = v.split('.')
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
}

/** RFC 4291 text form: eight groups, one `::` at most, an IPv4 tail allowed. No zone ids. */
export function isIPv6(v: string): boolean {
  if (v.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(v)) return false
  const halves = v.split('::')
  if (halves.length > 2) return false
  const groupsOf = (s: string): string[] | null => {
    if (s === '') return []
    const g = s.split(':')
    return g.every((x) => x.length > 0) ? g : null
  }
  const head = groupsOf(halves[0] ?? '')
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : []
  if (!head || !tail) return false
  const all = [...head, ...tail]
  let count = 0
  for (let i = 0; i < all.length; i++) {
    const g = all[i] ?? ''
    if (i === all.length - 1 && g.includes('.')) {
      if (!isIPv4(g)) return false
      count += 2
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) {
      count += 1
    } else {
      return false
    }
  }
  return halves.length === 2 ? count < 8 : count === 8
}

const CHECKS: Readonly<Record<Format, Check>> = {
  amount: (v, o) => {
    const r = checkAmount(v, o.amountBounds ?? DEFAULT_AMOUNT_BOUNDS)
    return r === 'ok' ? null : r
  },
  currency: (v) => (CURRENCIES.has(v) ? null : /^[A-Z]{3}$/.test(v) ? 'invalid_value' : 'format'),
  cardNumber: checkCardNumber,
  expiryMonth: checkExpiryMonth,
  expiryYear: checkExpiryYear,
  cvv: checkCvv,
  email: checkEmail,
  phone: checkPhone,
  telnocc: checkTelnocc,
  ip: (v) => (isIPv4(v) || isIPv6(v) ? null : 'format'),
  country: checkCountry,
  merchantTransactionId: matches(/^[A-Za-z0-9._-]{1,64}$/),
  gatewayId: matches(/^[A-Za-z0-9._-]{1,64}$/),
  walletId: checkWalletId,
  url: checkUrl,
  name: checkName,
  text: checkText,
  postcode: checkPostcode,
  enum: (v, o) => (o.values?.includes(v) ? null : 'invalid_value'),
  expirationPeriod: (v) => (/^\d{1,4}$/.test(v) ? null : 'format'),
  checksum: matches(/^[0-9a-f]{32}$/),
  secret: (v) => (v.length >= 1 && v.length <= 256 ? null : 'length'),
}

/** Checks one value against a format: `null` when valid, else the rule that failed. */
export function checkFormat(format: Format, value: string, options: FormatOptions = {}): FieldErrorCode | null {
  if (value === '') return 'required'
  if (UNSAFE.test(value)) return 'format'
  return CHECKS[format](value, options)
}
