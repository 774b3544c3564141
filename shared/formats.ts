/**
 * @module
 * One checker per value format of the field table. Each takes the text and answers `null` (valid)
 * or the rule that failed. None throws and none repeats the value back.
 *
 * Every format refuses `|` and control characters: `|` joins checksum inputs, so a value holding
 * one could shift the boundaries of what gets signed, and control characters have no business in
 * any gateway field.
 */
import { detectBrand, luhnValid, normalizeCardNumber, BRAND_RULES } from './card.ts'
import type { FieldErrorCode } from './errors.ts'
import { checkAmount, CURRENCIES, DEFAULT_AMOUNT_BOUNDS, type AmountBounds } from './money.ts'

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

// Forbids `|`, ASCII control characters and the Unicode line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[|\u0000-\u001f\u007f\u2028\u2029]/

const matches = (re: RegExp): Check => (v) => (re.test(v) ? null : 'format')

/** ISO 3166-1 alpha-2, officially assigned codes. */
export const COUNTRIES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
)

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

function checkUrl(v: string): FieldErrorCode | null {
  if (v.length > 2048) return 'length'
  let url: URL
  try {
    url = new URL(v)
  } catch {
    return 'format'
  }
  if (url.username || url.password) return 'format'
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]'
  // https everywhere; plain http only for a developer's own machine (the sandbox and wrangler dev).
  if (url.protocol === 'https:' || (url.protocol === 'http:' && local)) return null
  return 'format'
}

const CHECKS: Readonly<Record<Format, Check>> = {
  amount: (v, o) => {
    const r = checkAmount(v, o.amountBounds ?? DEFAULT_AMOUNT_BOUNDS)
    return r === 'ok' ? null : r
  },
  currency: (v) => (CURRENCIES.has(v) ? null : /^[A-Z]{3}$/.test(v) ? 'invalid_value' : 'format'),
  cardNumber: (v) => {
    const digits = normalizeCardNumber(v)
    if (!/^\d+$/.test(digits)) return 'format'
    if (digits.length < 12 || digits.length > 19) return 'length'
    if (!luhnValid(digits)) return 'luhn'
    const brand = detectBrand(digits)
    if (!brand) return 'unsupported_brand'
    return BRAND_RULES[brand].lengths.includes(digits.length) ? null : 'length'
  },
  expiryMonth: matches(/^(0[1-9]|1[0-2])$/),
  expiryYear: matches(/^20\d{2}$/),
  cvv: matches(/^\d{3,4}$/),
  email: (v) => {
    if (v.length > 254) return 'length'
    const at = v.lastIndexOf('@')
    if (at < 1 || at > 64) return 'format'
    return /^[A-Za-z0-9.!#$%&'*+/=?^_`{}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(v)
      ? null
      : 'format'
  },
  // National number: 4-14 digits, optional single spaces, dashes or parentheses between them.
  phone: (v) => (/^\(?\d[\d ()-]{2,20}\d$/.test(v) && /^(\D*\d){4,14}\D*$/.test(v) ? null : 'format'),
  telnocc: matches(/^\+[1-9]\d{0,3}$/),
  ip: (v) => (isIPv4(v) || isIPv6(v) ? null : 'format'),
  country: (v) => (COUNTRIES.has(v) ? null : /^[A-Z]{2}$/.test(v) ? 'invalid_value' : 'format'),
  merchantTransactionId: matches(/^[A-Za-z0-9._-]{1,64}$/),
  gatewayId: matches(/^[A-Za-z0-9._-]{1,64}$/),
  walletId: matches(/^[A-Za-z0-9._@+-]{3,64}$/),
  url: checkUrl,
  // Letters of any script, marks, spaces, apostrophes, dots and hyphens: what names are made of.
  name: (v) => (v.length > 64 ? 'length' : /^[\p{L}\p{M}][\p{L}\p{M} .'’-]*$/u.test(v) ? null : 'format'),
  text: (v) => (v.length > 100 ? 'length' : /^[^<>]+$/.test(v) && v.trim() === v ? null : 'format'),
  postcode: matches(/^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$/),
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
