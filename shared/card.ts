/**
 * @module
 * Card number rules: normalisation, Luhn, brand by IIN range, lengths, CVV length, and the
 * gateway's `paymentBrand` for each brand. Pure functions, shared by the widget and the Worker.
 */

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners', 'unionpay', 'maestro'] as const
export type CardBrand = (typeof CARD_BRANDS)[number]

interface BrandRule {
  /** IIN prefixes as inclusive ranges of equal-length numeric prefixes: [from, to]. */
  readonly ranges: readonly (readonly [string, string])[]
  readonly lengths: readonly number[]
  readonly cvv: number
  /** Digit groups for display (4-4-4-4, Amex 4-6-5). */
  readonly groups: readonly number[]
}

const range = (from: string, to = from): readonly [string, string] => [from, to]
const lengths = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/**
 * Brand rules. Order matters where ranges overlap: Discover's co-branded 622126-622925 and
 * 644-649/65 are matched before UnionPay's 62 and Maestro's 6x ranges, the longest prefix first.
 * Sources: the card schemes' published IIN tables as collected in ISO/IEC 7812 summaries.
 */
export const BRAND_RULES: Readonly<Record<CardBrand, BrandRule>> = {
  visa: { ranges: [range('4')], lengths: [13, 16, 19], cvv: 3, groups: [4, 4, 4, 4, 3] },
  mastercard: {
    ranges: [range('51', '55'), range('2221', '2720')],
    lengths: [16],
    cvv: 3,
    groups: [4, 4, 4, 4],
  },
  amex: { ranges: [range('34'), range('37')], lengths: [15], cvv: 4, groups: [4, 6, 5] },
  discover: {
    ranges: [range('6011'), range('622126', '622925'), range('644', '649'), range('65')],
    lengths: lengths(16, 19),
    cvv: 3,
    groups: [4, 4, 4, 4, 3],
  },
  jcb: { ranges: [range('3528', '3589')], lengths: lengths(16, 19), cvv: 3, groups: [4, 4, 4, 4, 3] },
  diners: {
    ranges: [range('300', '305'), range('3095'), range('36'), range('38', '39')],
    lengths: lengths(14, 19),
    cvv: 3,
    groups: [4, 6, 4],
  },
  unionpay: {
    ranges: [range('62'), range('81')],
    lengths: lengths(16, 19),
    cvv: 3,
    groups: [4, 4, 4, 4, 3],
  },
  maestro: {
    ranges: [
      range('50'),
      range('56', '58'),
      range('639'),
      range('6304'),
      range('6759'),
      range('676770'),
      range('676774'),
    ],
    lengths: lengths(12, 19),
    cvv: 3,
    groups: [4, 4, 4, 4, 3],
  },
}

/**
 * The gateway's `paymentBrand` for each brand: its wire name, which the Worker sends and reads.
 * Apart from the rules, which the browser's card forms read too, so their bundles leave it out.
 */
export const GATEWAY_BRANDS: Readonly<Record<CardBrand, string>> = {
  visa: 'VISA',
  mastercard: 'MC',
  amex: 'AMEX',
  discover: 'DISC',
  jcb: 'JCB',
  diners: 'DINER',
  unionpay: 'UNIONPAY',
  maestro: 'MAESTRO',
}

/** Brands in match order: most specific prefixes first so overlapping ranges resolve correctly. */
const MATCH_ORDER: readonly CardBrand[] = [
  'discover',
  'jcb',
  'diners',
  'amex',
  'mastercard',
  'maestro',
  'unionpay',
  'visa',
]

/** Strips the spaces and dashes shoppers type or paste; anything else is left for validation to refuse. */
export function normalizeCardNumber(input: string): string {
  return input.replace(/[\s-]/g, '')
}

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

/** The digit to append to `partial` so that the whole passes Luhn (used by tests and the sandbox). */
export function luhnCheckDigit(partial: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(partial + d)) return String(d)
  throw new Error('unreachable: one check digit always exists')
}

function inRange(digits: string, [from, to]: readonly [string, string]): boolean {
  const prefix = digits.slice(0, from.length)
  return prefix.length === from.length && prefix >= from && prefix <= to
}

/**
 * The brand of a (possibly partial) number by its IIN, or undefined when no rule matches yet.
 * Works on partial input so the widget can show the brand while the shopper types.
 */
export function detectBrand(input: string): CardBrand | undefined {
  const digits = normalizeCardNumber(input)
  if (!/^\d+$/.test(digits)) return undefined
  for (const brand of MATCH_ORDER) {
    if (BRAND_RULES[brand].ranges.some((r) => inRange(digits, r))) return brand
  }
  return undefined
}

/** The CVV length the brand uses (Amex 4, others 3). */
export function cvvLength(brand: CardBrand | undefined): number {
  return brand ? BRAND_RULES[brand].cvv : 3
}

/** The longest number the brand allows (19 while unknown), for the input's max length. */
export function maxCardLength(brand: CardBrand | undefined): number {
  return brand ? Math.max(...BRAND_RULES[brand].lengths) : 19
}

/** Groups digits for display by the brand's pattern: `4111 1111 1111 1111`, `3782 822463 10005`. */
export function formatCardNumber(input: string): string {
  const digits = normalizeCardNumber(input).replace(/\D/g, '')
  const groups = BRAND_RULES[detectBrand(digits) ?? 'visa'].groups
  const out: string[] = []
  let at = 0
  for (const size of groups) {
    if (at >= digits.length) break
    out.push(digits.slice(at, at + size))
    at += size
  }
  if (at < digits.length) out.push(digits.slice(at))
  return out.join(' ')
}

/** Brand from the gateway's `paymentBrand` value, for saved cards and responses. */
export function brandFromGateway(paymentBrand: string | undefined): CardBrand | undefined {
  return CARD_BRANDS.find((b) => GATEWAY_BRANDS[b] === paymentBrand)
}

/** Last four digits, the only part of a number that may be shown or stored. */
export function last4(input: string): string {
  return normalizeCardNumber(input).slice(-4)
}

// ---- card numbers hidden in free text ------------------------------------------------------

/**
 * The value of any Unicode decimal digit (`\p{Nd}`: Arabic-Indic, Devanagari, full-width,
 * mathematical, ...). Unicode gives every script its digits as runs of ten, zero first, so a
 * digit's value is its distance from the start of its run, modulo ten.
 */
function digitValue(ch: string): number | undefined {
  const nd = /^\p{Nd}$/u
  if (!nd.test(ch)) return undefined
  const cp = ch.codePointAt(0) as number
  let zero = cp
  while (nd.test(String.fromCodePoint(zero - 1))) zero--
  return (cp - zero) % 10
}

/**
 * The text with every decimal digit of any script (`\p{Nd}`) as its ASCII digit: shoppers'
 * keyboards type them in Arabic (٤١١١), Persian (۴۱۱۱), Hindi (४१११) or through a Japanese IME
 * (４１１１), and the gateway takes card numbers, expiries and phone numbers in ASCII.
 */
export const asciiDigits = (text: string): string => text.replace(/\p{Nd}/gu, (d) => String(digitValue(d)))

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** How many characters that are neither letters nor digits may stand between two digits of one number. */
const MAX_SEPARATOR = 4

/**
 * Runs of digits in `text` (any script, after NFKC folding) that may be one number: digits with at
 * most MAX_SEPARATOR characters between them that are neither letters nor digits (spaces of any
 * width, dots, slashes, dashes, underscores, zero-width and other format characters). Each run is
 * its ASCII digits and where it stands in the folded text.
 */
function digitRuns(text: string): { digits: string; start: number; end: number }[] {
  // A UUID's groups are hex written with dashes: an all-digit stretch of one is no card number
  // (each character is blanked in place, so positions in the text stay the same).
  const folded = text.normalize('NFKC').replace(UUID, (u) => 'x'.repeat(u.length))
  const chars = [...folded]
  const runs: { digits: string; start: number; end: number }[] = []
  let run: { digits: string; start: number; end: number } | undefined
  let gap = 0
  let offset = 0
  for (const ch of chars) {
    const value = digitValue(ch)
    if (value !== undefined) {
      if (!run) run = { digits: '', start: offset, end: offset }
      run.digits += String(value)
      run.end = offset + ch.length
      gap = 0
    } else if (run && !/^[\p{L}\p{N}]$/u.test(ch) && ++gap <= MAX_SEPARATOR) {
      // a separator inside a number, so far
    } else if (run) {
      runs.push(run)
      run = undefined
      gap = 0
    }
    offset += ch.length
  }
  if (run) runs.push(run)
  return runs
}

/**
 * Whether a run of digits holds a card number: the whole run, of 13 to 19 digits, passes Luhn (any
 * issuer: a private-label card or a range not in BRAND_RULES is still a card number, so the run's
 * prefix is no part of this rule), or a stretch of it of a brand's length in its IIN range passes
 * Luhn (a card number written against other digits, as in a longer run).
 */
function holdsCardNumber(digits: string): boolean {
  if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return true
  for (let len = 12; len <= 19; len++) {
    for (let i = 0; i + len <= digits.length; i++) {
      const candidate = digits.slice(i, i + len)
      const brand = detectBrand(candidate)
      if (brand && BRAND_RULES[brand].lengths.includes(len) && luhnValid(candidate)) return true
    }
  }
  return false
}

/**
 * Whether free text holds what is a card number, however it is written: digits of any script
 * (full-width, Arabic-Indic, ...), separated by anything that is not a letter or digit (dots,
 * slashes, underscores, no-break, thin or zero-width spaces). A card number is a run of 13 to 19
 * digits that passes Luhn, or inside a run a stretch of a brand's length in its IIN range that does.
 * A run of 13 to 19 digits that is no card (a long order reference) is refused one time in ten: the
 * price of missing no issuer. Dates, times and most phone numbers are shorter runs, or split by letters.
 */
export function containsCardNumber(text: string): boolean {
  return digitRuns(text).some((r) => r.digits.length >= 12 && holdsCardNumber(r.digits))
}

/**
 * Whether an identifier is, in one of its runs of digits, a card number of a brand we know (the
 * whole run: its IIN range, its length, Luhn), written as `containsCardNumber` reads it: for values
 * that are long digit runs by nature (a wallet id that is a phone number, a page's path with an
 * order number), where refusing any run of 13 to 19 digits that passes Luhn, or any stretch of a
 * longer run that does, would refuse one in ten of them or more. A card typed into such a field by
 * mistake is a whole run with a brand (about 2 to 3% of random runs of a card's length are too).
 */
export function containsBrandCardNumber(text: string): boolean {
  return digitRuns(text).some((r) => {
    const brand = detectBrand(r.digits)
    return brand !== undefined && BRAND_RULES[brand].lengths.includes(r.digits.length) && luhnValid(r.digits)
  })
}

/** The text (NFKC-folded) with every run that holds a card number replaced by `[card]`. */
export function redactCardNumbers(text: string): string {
  const folded = text.normalize('NFKC')
  const found = digitRuns(folded).filter((r) => r.digits.length >= 12 && holdsCardNumber(r.digits))
  let out = folded
  for (const r of found.reverse()) out = `${out.slice(0, r.start)}[card]${out.slice(r.end)}`
  return out
}
