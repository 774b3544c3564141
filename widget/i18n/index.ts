/**
 * @module
 * Messages and formatting. English is built in; each other locale is a chunk of its own
 * (`widget/i18n/messages/<locale>.ts`), loaded only when used. A tag falls back from region to
 * language to English (`de-AT` -> `de`, `es-MX` -> `es-419`, `xx` -> `en`: see `shared/locales.ts`).
 * Amounts, dates and country names come from `Intl`, never from tables of our own.
 */
import { minorUnits } from '../../shared/money.ts'
import { formatMessage } from './icu.ts'
import { direction, LOCALES, resolveLocale, type Locale } from '../../shared/locales.ts'
import { en, type MessageKey, type Messages } from './messages/en.ts'

export type { Locale, MessageKey, Messages }
export { direction, en, resolveLocale }

/**
 * A locale's module: from source, the translator's object; as built, the card flow's strings
 * alone, one a line in English's key order, and `more()` for the other methods' strings
 * (vite.config.ts, `packLocales`; `./parts.ts`).
 */
type Chunk = { messages?: Messages; default?: string; more?: () => Promise<{ default: string }> }

/**
 * A locale's module: a literal import each, so that any bundler makes them chunks (the npm
 * package). Our own build emits the locales as chunks itself and puts one import in place of this
 * table (vite.config.ts, `packLocales`), so the card flow carries no table of 47 imports.
 */
// <locale-loaders>
const LOADERS: Readonly<Record<Exclude<Locale, 'en'>, () => Promise<Chunk>>> = {
  ar: () => import('./messages/ar.ts'),
  bg: () => import('./messages/bg.ts'),
  ca: () => import('./messages/ca.ts'),
  cs: () => import('./messages/cs.ts'),
  da: () => import('./messages/da.ts'),
  de: () => import('./messages/de.ts'),
  el: () => import('./messages/el.ts'),
  'en-GB': () => import('./messages/en-GB.ts'),
  es: () => import('./messages/es.ts'),
  'es-419': () => import('./messages/es-419.ts'),
  et: () => import('./messages/et.ts'),
  fa: () => import('./messages/fa.ts'),
  fi: () => import('./messages/fi.ts'),
  fil: () => import('./messages/fil.ts'),
  fr: () => import('./messages/fr.ts'),
  'fr-CA': () => import('./messages/fr-CA.ts'),
  he: () => import('./messages/he.ts'),
  hi: () => import('./messages/hi.ts'),
  hr: () => import('./messages/hr.ts'),
  hu: () => import('./messages/hu.ts'),
  id: () => import('./messages/id.ts'),
  is: () => import('./messages/is.ts'),
  it: () => import('./messages/it.ts'),
  ja: () => import('./messages/ja.ts'),
  ko: () => import('./messages/ko.ts'),
  lt: () => import('./messages/lt.ts'),
  lv: () => import('./messages/lv.ts'),
  ms: () => import('./messages/ms.ts'),
  mt: () => import('./messages/mt.ts'),
  nb: () => import('./messages/nb.ts'),
  nl: () => import('./messages/nl.ts'),
  pl: () => import('./messages/pl.ts'),
  pt: () => import('./messages/pt.ts'),
  'pt-BR': () => import('./messages/pt-BR.ts'),
  ro: () => import('./messages/ro.ts'),
  ru: () => import('./messages/ru.ts'),
  sk: () => import('./messages/sk.ts'),
  sl: () => import('./messages/sl.ts'),
  sr: () => import('./messages/sr.ts'),
  sv: () => import('./messages/sv.ts'),
  th: () => import('./messages/th.ts'),
  tr: () => import('./messages/tr.ts'),
  uk: () => import('./messages/uk.ts'),
  vi: () => import('./messages/vi.ts'),
  zh: () => import('./messages/zh.ts'),
  'zh-HK': () => import('./messages/zh-HK.ts'),
  'zh-TW': () => import('./messages/zh-TW.ts'),
}
const load = (locale: string): Promise<Chunk> => LOADERS[locale as Exclude<Locale, 'en'>]()
/**
 * English's messages of the other methods. From source `en` is whole; our build keeps only the
 * card flow's in `en` and makes these a chunk of their own (`chunks/en.more.js`): its keys, in
 * order, are also those of every locale's other-methods chunk.
 */
const englishMore = async (): Promise<Partial<Messages>> => ({})
// </locale-loaders>

export const SUPPORTED_LOCALES: readonly Locale[] = LOCALES

/** The keys of `part` (built English) paired with the lines of a built chunk, in that order. */
const unpack = (part: object, text: string): [string, string][] => {
  const lines = text.split('\n')
  return Object.keys(part).flatMap((k, i) => (lines[i] ? [[k, lines[i]] as [string, string]] : []))
}

/**
 * The messages of a supported locale (as `resolveLocale` gives), English for what cannot load.
 * `more`: also those of the QR wallet, the invoice and the method picker (a chunk of their own,
 * for sessions that offer them).
 */
export async function loadMessages(locale: string, more = false): Promise<Messages> {
  // Only the supported tags (as `resolveLocale` gives) name a module.
  const english = (): Promise<Messages> =>
    more
      ? englishMore().then(
          (m) => ({ ...en, ...m }),
          () => en,
        )
      : Promise.resolve(en)
  if (locale === 'en' || !SUPPORTED_LOCALES.includes(locale as Locale)) return english()
  try {
    const [chunk, base] = await Promise.all([load(locale), english()])
    if (chunk.messages) return chunk.messages
    // English's other-methods part names the lines of the locale's (both loaded at once).
    const rest = more && chunk.more ? unpack(await englishMore(), (await chunk.more()).default) : []
    return { ...base, ...Object.fromEntries([...unpack(en, chunk.default ?? ''), ...rest]) }
  } catch {
    return english()
  }
}

/**
 * The message with `{name}` placeholders and ICU plurals filled; `locale` chooses the plural form
 * and formats `#` (give it whenever the message counts something).
 */
export function format(
  messages: Messages,
  key: MessageKey,
  values: Record<string, string | number> = {},
  locale = 'en',
): string {
  return formatMessage(messages[key] ?? en[key], values, locale)
}

/**
 * Text that must read left to right (an amount inside a sentence) kept so in a right-to-left
 * locale: between Unicode isolates (LRI ... PDI), as `<bdi dir="ltr">` would in markup. Unchanged
 * in left-to-right locales.
 */
export function isolateLtr(text: string, locale: string): string {
  return direction(locale) === 'rtl' ? `\u2066${text}\u2069` : text
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
