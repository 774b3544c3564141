/**
 * @module
 * Messages and formatting. English is built in; other locales are separate chunks, loaded only
 * when used. A locale falls back from region to language to English (`de-AT` -> `de` -> `en`).
 */
import { minorUnits } from '../../shared/money.ts'
import { en, type MessageKey, type Messages } from './en.ts'

export type { MessageKey, Messages }

const LOADERS: Readonly<Record<string, () => Promise<{ messages: Messages }>>> = {
  de: () => import('./de.ts'),
  fr: () => import('./fr.ts'),
  es: () => import('./es.ts'),
  it: () => import('./it.ts'),
  nl: () => import('./nl.ts'),
  pt: () => import('./pt.ts'),
  ja: () => import('./ja.ts'),
}

export const SUPPORTED_LOCALES: readonly string[] = ['en', ...Object.keys(LOADERS)]

/** The supported language for a list of preferences (`de-AT` -> `de`), else `en`. */
export function resolveLocale(preferences: readonly string[]): string {
  for (const tag of preferences) {
    const lang = tag.toLowerCase().split(/[-_]/)[0] ?? ''
    if (SUPPORTED_LOCALES.includes(lang)) return lang
  }
  return 'en'
}

export async function loadMessages(locale: string): Promise<Messages> {
  const loader = LOADERS[locale]
  if (!loader) return en
  try {
    return (await loader()).messages
  } catch {
    return en
  }
}

/** `{name}` placeholders filled from `values`. */
export function format(messages: Messages, key: MessageKey, values: Record<string, string | number> = {}): string {
  return (messages[key] ?? en[key]).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''))
}

/**
 * The amount text ("1000.00") formatted for the locale and currency, with exactly the currency's
 * ISO 4217 decimals (JPY none, KWD three), so the shopper sees what is charged: `Intl` alone
 * would show some currencies (RSD, IDR) without the decimals they are charged in.
 */
export function formatMoney(amount: string, currency: string, locale: string): string {
  try {
    const digits = minorUnits(currency)
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(Number(amount))
  } catch {
    return `${amount} ${currency}`
  }
}

export { en }
