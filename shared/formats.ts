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
import { CURRENCIES } from './currencies.ts'
import { AMOUNT_RE, checkAmount, DEFAULT_AMOUNT_BOUNDS, type AmountBounds } from './money.ts'
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

const matches =
  (re: RegExp): Check =>
  (v) =>
    re.test(v) ? null : 'format'

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

/** Gateway ids and order references: letters, digits, `.`, `_` and `-`, at most 64. */
export const ID_RE = /^[A-Za-z0-9._-]{1,64}$/
const CHECKSUM_RE = /^[0-9a-f]{32}$/
const EXPIRATION_RE = /^\d{1,4}$/

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
  merchantTransactionId: matches(ID_RE),
  gatewayId: matches(ID_RE),
  walletId: checkWalletId,
  url: checkUrl,
  name: checkName,
  text: checkText,
  postcode: checkPostcode,
  enum: (v, o) => (o.values?.includes(v) ? null : 'invalid_value'),
  expirationPeriod: matches(EXPIRATION_RE),
  checksum: matches(CHECKSUM_RE),
  secret: (v) => (v.length >= 1 && v.length <= 256 ? null : 'length'),
}

/** Checks one value against a format: `null` when valid, else the rule that failed. */
export function checkFormat(format: Format, value: string, options: FormatOptions = {}): FieldErrorCode | null {
  if (value === '') return 'required'
  if (UNSAFE.test(value)) return 'format'
  return CHECKS[format](value, options)
}

/**
 * What each format takes, in words, for the `expected` of a field error (a merchant reading an
 * error learns the rule without reading a regex) and the API document's description of a format
 * that has no pattern (below).
 */
export const FORMAT_EXPECTED: Readonly<Record<Format, string>> = {
  amount: 'a decimal with a point and two decimals, such as "49.00" (up to 12 digits before the point)',
  currency: 'an ISO 4217 currency code (EUR)',
  cardNumber: '12 to 19 digits of a supported brand, passing the Luhn check',
  expiryMonth: 'two digits, 01 to 12',
  expiryYear: 'four digits, 20YY, not in the past',
  cvv: '3 digits (4 for American Express)',
  email: 'an email address',
  phone: '4 to 14 digits, spaces, dashes and brackets allowed',
  telnocc: '+ and a country calling code (+49)',
  ip: 'an IPv4 or IPv6 address',
  country: 'an ISO 3166-1 alpha-2 country code (DE)',
  merchantTransactionId: '1 to 64 letters, digits, dots, underscores or dashes',
  gatewayId: '1 to 64 letters, digits, dots, underscores or dashes',
  walletId: '3 to 64 letters, digits or ._@+-',
  url: 'an https URL (http only for localhost), at most 2048 characters',
  name: "letters, spaces and .'’-, at most 64 characters",
  text: 'at most 100 characters, no < or >, no leading or trailing spaces',
  postcode: '2 to 10 letters, digits, spaces or dashes',
  enum: 'one of the listed values',
  expirationPeriod: 'whole hours as a string of 1 to 4 digits',
  checksum: '32 lowercase hexadecimal digits (an MD5 digest)',
  secret: '1 to 256 characters',
}

/** The checker's own pattern, where one regex is the whole rule: the API document's `pattern`. */
export const FORMAT_PATTERN: Readonly<Partial<Record<Format, string>>> = {
  amount: AMOUNT_RE.source,
  merchantTransactionId: ID_RE.source,
  gatewayId: ID_RE.source,
  expirationPeriod: EXPIRATION_RE.source,
  checksum: CHECKSUM_RE.source,
}

/** The `expected` of one failed rule of a format (bounds and value lists where they apply). */
export function expectedOf(format: Format, code: FieldErrorCode, options: FormatOptions = {}): string {
  if (format === 'amount' && code === 'out_of_range') {
    const b = options.amountBounds ?? DEFAULT_AMOUNT_BOUNDS
    return `from ${b.min} to ${b.max}`
  }
  if (options.values && (format === 'enum' || code === 'invalid_value')) return `one of: ${options.values.join(', ')}`
  return FORMAT_EXPECTED[format]
}
