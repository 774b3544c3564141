/**
 * @module
 * The value formats of the fields a shopper types, one exported checker each, so a browser bundle
 * holds only the checkers it uses (the full map, with amounts, IP addresses and gateway ids, is
 * `shared/formats.ts`, which builds on these). Each answers `null` (valid) or the rule that failed;
 * none throws and none repeats the value back.
 */
import { BRAND_RULES, cvvLength, detectBrand, luhnValid, normalizeCardNumber, type CardBrand } from './card.ts'
import type { ShopperCheck } from './check.ts'

export { checkUrl, checkWith, UNSAFE, type ShopperCheck } from './check.ts'

const matches =
  (re: RegExp): ShopperCheck =>
  (v) =>
    re.test(v) ? null : 'format'

/** ISO 3166-1 alpha-2, officially assigned codes. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ')

export const COUNTRIES: ReadonlySet<string> = new Set(COUNTRY_CODES)

export const checkCardNumber: ShopperCheck = (v) => {
  const digits = normalizeCardNumber(v)
  if (!/^\d+$/.test(digits)) return 'format'
  if (digits.length < 12 || digits.length > 19) return 'length'
  if (!luhnValid(digits)) return 'luhn'
  const brand = detectBrand(digits)
  if (!brand) return 'unsupported_brand'
  return BRAND_RULES[brand].lengths.includes(digits.length) ? null : 'length'
}
export const checkExpiryMonth = matches(/^(0[1-9]|1[0-2])$/)
export const checkExpiryYear = matches(/^20\d{2}$/)
export const checkCvv = matches(/^\d{3,4}$/)
export const checkEmail: ShopperCheck = (v) => {
  if (v.length > 254) return 'length'
  const at = v.lastIndexOf('@')
  if (at < 1 || at > 64) return 'format'
  return /^[A-Za-z0-9.!#$%&'*+/=?^_`{}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(
    v,
  )
    ? null
    : 'format'
}
// National number: 4-14 digits, optional single spaces, dashes or parentheses between them.
export const checkPhone: ShopperCheck = (v) =>
  /^\(?\d[\d ()-]{2,20}\d$/.test(v) && /^(\D*\d){4,14}\D*$/.test(v) ? null : 'format'
export const checkTelnocc = matches(/^\+[1-9]\d{0,3}$/)
export const checkCountry: ShopperCheck = (v) =>
  COUNTRIES.has(v) ? null : /^[A-Z]{2}$/.test(v) ? 'invalid_value' : 'format'
export const checkWalletId = matches(/^[A-Za-z0-9._@+-]{3,64}$/)
// Letters of any script, marks, spaces, apostrophes, dots and hyphens: what names are made of.
export const checkName: ShopperCheck = (v) =>
  v.length > 64 ? 'length' : /^[\p{L}\p{M}][\p{L}\p{M} .'’-]*$/u.test(v) ? null : 'format'
export const checkText: ShopperCheck = (v) =>
  v.length > 100 ? 'length' : /^[^<>]+$/.test(v) && v.trim() === v ? null : 'format'
export const checkPostcode = matches(/^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$/)

/** Expiry is the end of its month: a card expiring 11/2026 is good through 30 Nov 2026. */
export function expiryInPast(month: string, year: string, now: Date): boolean {
  const m = Number(month)
  const y = Number(year)
  return y < now.getUTCFullYear() || (y === now.getUTCFullYear() && m < now.getUTCMonth() + 1)
}

/** How far ahead an expiry may be: no card is issued for longer. */
export const EXPIRY_MAX_YEARS = 20

/**
 * The expiry rule of a well-formed month and year, one for the Worker and the card form: in the
 * past, or more than EXPIRY_MAX_YEARS ahead (a typo such as 12/49), or null.
 */
export function expiryError(month: string, year: string, now: Date): 'expired' | 'out_of_range' | null {
  return expiryInPast(month, year, now)
    ? 'expired'
    : Number(year) > now.getUTCFullYear() + EXPIRY_MAX_YEARS
      ? 'out_of_range'
      : null
}

// The rules that belong to no single field, one each, for the Worker (validate.ts
// `crossFieldErrors`) and the card form alike: expiry above, CVV length and phone code below.

/** A CVV of digits is as long as its card's brand says (4 for American Express, else 3). */
export function cvvLengthError(cvv: string, brand: CardBrand | undefined): 'length' | null {
  return /^\d+$/.test(cvv) && cvv.length !== cvvLength(brand) ? 'length' : null
}

/** A phone number needs its country calling code. */
export function telnoccError(phone: string | undefined, telnocc: string | undefined): 'required' | null {
  return (phone ?? '').trim() !== '' && (telnocc ?? '').trim() === '' ? 'required' : null
}
