/**
 * @module
 * Numbers, money and dates in the console's locale (any of the checkout's 48), through `Intl`:
 * amounts stay the API's decimal text until shown.
 */
import { BRAND_NAMES } from '../shared/card-inputs.ts'
import { LOCALES, resolveLocale, type Locale } from '../shared/locales.ts'
import { formatAmount, formatMoney } from '../shared/money.ts'
import type { Payment } from './api.ts'

export { LOCALES, type Locale }

/** The locale from `?locale=`, else the browser's languages. */
export function initialLocale(): Locale {
  const asked = new URLSearchParams(location.search).get('locale')
  return resolveLocale(asked ? [asked] : navigator.languages)
}

/** Money as the checkout shows it: the currency's own decimals (JPY none, KWD three). */
export { formatMoney as money } from '../shared/money.ts'

/**
 * A payment's amount as a support agent must read it: an authorisation captured in part shows what
 * was taken of what was authorised (`€20.00 of €49.00`: the rest was released), not the whole.
 */
export function paymentAmount(p: Payment, locale: string): string {
  const whole = formatMoney(p.amount, p.currency, locale)
  const taken = Number(p.amountCaptured)
  return taken > 0 && taken < Number(p.amount)
    ? `${formatMoney(p.amountCaptured, p.currency, locale)} of ${whole}`
    : whole
}

/** A card as the console names it: its brand as the checkout names it and last four (`Visa •••• 4242`), or a dash. */
export const cardText = (card: Payment['card']): string =>
  card ? `${card.brand ? (BRAND_NAMES[card.brand] ?? card.brand) : ''} •••• ${card.last4 ?? ''}`.trim() : '—'

/** A date and time; `seconds` where events a moment apart must read apart (a payment's timeline). */
export function dateTime(iso: string | number, locale: string, seconds = false): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' }).format(
    new Date(iso),
  )
}

export function day(isoDate: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${isoDate}T00:00:00Z`),
  )
}

export function percent(ratio: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio)
}

export function count(n: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(n)
}

/** The locale's name in itself ("Deutsch"), for the picker. */
export function localeName(locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale
  } catch {
    return locale
  }
}

/**
 * What an agent types as the API's amount text (two decimals): `10`, `10.5`, `10,50` (a decimal
 * comma, as many locales write it) and `1 234.50` read as the same kind of number; anything else
 * (two separators, three decimals, letters) is undefined.
 */
export function decimalAmount(typed: string): string | undefined {
  const text = typed.replace(/[\s\u00a0\u202f]/g, '')
  const m = /^(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text)
  if (!m) return undefined
  return formatAmount(Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')))
}
