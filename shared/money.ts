/**
 * @module
 * Amounts. The gateway takes decimal text with exactly two decimals for every currency, JPY
 * included ("1000.00"), so amounts stay text on the wire and in the session; arithmetic and
 * bounds use integer hundredths, never floating point. An amount may not be finer than its
 * currency's minor unit (ISO 4217): a yen amount is whole ("1000.00", never "1000.50"), so what
 * the shopper is shown is exactly what is charged.
 */

/** Exactly two decimals, no sign, no exponent, no leading zeros (but "0.50" is fine). */
export const AMOUNT_RE = /^(0|[1-9]\d{0,11})\.\d{2}$/

export interface AmountBounds {
  /** Smallest accepted amount, as amount text. */
  readonly min: string
  /** Largest accepted amount, as amount text. */
  readonly max: string
}

/** Default bounds: one cent up to one billion less a cent. The Worker can narrow them per deployment. */
export const DEFAULT_AMOUNT_BOUNDS: AmountBounds = { min: '0.01', max: '999999999.99' }

/** Amount text to integer hundredths, or undefined when the text is not a canonical amount. */
export function parseAmount(text: string): number | undefined {
  if (!AMOUNT_RE.test(text)) return undefined
  const [whole, frac] = text.split('.') as [string, string]
  return Number(whole) * 100 + Number(frac)
}

/** Integer hundredths to canonical amount text; `formatAmount(parseAmount(a)) === a` for every valid `a`. */
export function formatAmount(hundredths: number): string {
  if (!Number.isSafeInteger(hundredths) || hundredths < 0)
    throw new RangeError('amount must be a non-negative safe integer')
  const whole = Math.floor(hundredths / 100)
  const frac = hundredths % 100
  return `${whole}.${frac < 10 ? '0' : ''}${frac}`
}

export type AmountCheck = 'ok' | 'format' | 'out_of_range'

/** Checks amount text against the grammar and the bounds. */
export function checkAmount(text: string, bounds: AmountBounds = DEFAULT_AMOUNT_BOUNDS): AmountCheck {
  const value = parseAmount(text)
  if (value === undefined) return 'format'
  const min = parseAmount(bounds.min) ?? 1
  const max = parseAmount(bounds.max) ?? Number.MAX_SAFE_INTEGER
  return value < min || value > max ? 'out_of_range' : 'ok'
}

/** ISO 4217 currencies without a minor unit: their amounts are whole numbers. */
const ZERO_DECIMAL: ReadonlySet<string> = new Set(
  'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF'.split(' '),
)
/** ISO 4217 currencies with three decimals: the wire's two are a coarser subset of theirs. */
const THREE_DECIMAL: ReadonlySet<string> = new Set('BHD IQD JOD KWD LYD OMR TND'.split(' '))

/** The number of decimals of the currency's minor unit (ISO 4217). */
export function minorUnits(currency: string): 0 | 2 | 3 {
  return ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2
}

/** Whether amount text (two decimals) is a whole number of the currency's minor units. */
export function fitsMinorUnits(amount: string, currency: string): boolean {
  return minorUnits(currency) > 0 || amount.endsWith('.00')
}

/**
 * The amount text ("1000.00") formatted for the locale and currency, with exactly the currency's
 * ISO 4217 decimals (JPY none, KWD three), so the shopper sees what is charged: `Intl` alone
 * would show some currencies (RSD, IDR) without the decimals they are charged in.
 */
export function formatMoney(amount: string, currency: string, locale: string): string {
  try {
    const digits = minorUnits(currency)
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(Number(amount))
  } catch {
    return `${amount} ${currency}`
  }
}
