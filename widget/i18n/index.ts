/**
 * @module
 * Messages and formatting. English is built in; each other locale is a chunk of its own
 * (`shared/i18n/messages/<locale>.ts`), loaded only when used. A tag falls back from region to
 * language to English (`de-AT` -> `de`, `es-MX` -> `es-419`, `xx` -> `en`: see `shared/locales.ts`).
 * Amounts, dates and country names come from `Intl`, never from tables of our own.
 */
import { formatMessage } from '../../shared/i18n/icu.ts'
import { direction, LOCALES, resolveLocale, type Locale } from '../../shared/locales.ts'
import { en, type MessageKey, type Messages } from '../../shared/i18n/messages/en.ts'

export type { Locale, MessageKey, Messages }
export { direction, en, resolveLocale }
export { formatMoney } from '../../shared/money.ts'

/**
 * A locale's module: from source, the translator's object; as built, the card flow's strings
 * alone, one a line in English's key order, and `more()` for the other methods' strings
 * (vite.config.ts, `packLocales`; `shared/i18n/parts.ts`).
 */
type Chunk = { messages?: Messages; default?: string; more?: () => Promise<{ default: string }> }

/**
 * A locale's module: a literal import each, so that any bundler makes them chunks (the npm
 * package). Our own build emits the locales as chunks itself and puts one import in place of this
 * table (vite.config.ts, `packLocales`), so the card flow carries no table of 47 imports.
 */
// <locale-loaders>
const LOADERS: Readonly<Record<Exclude<Locale, 'en'>, () => Promise<Chunk>>> = {
  ar: () => import('../../shared/i18n/messages/ar.ts'),
  bg: () => import('../../shared/i18n/messages/bg.ts'),
  ca: () => import('../../shared/i18n/messages/ca.ts'),
  cs: () => import('../../shared/i18n/messages/cs.ts'),
  da: () => import('../../shared/i18n/messages/da.ts'),
  de: () => import('../../shared/i18n/messages/de.ts'),
  el: () => import('../../shared/i18n/messages/el.ts'),
  'en-GB': () => import('../../shared/i18n/messages/en-GB.ts'),
  es: () => import('../../shared/i18n/messages/es.ts'),
  'es-419': () => import('../../shared/i18n/messages/es-419.ts'),
  et: () => import('../../shared/i18n/messages/et.ts'),
  fa: () => import('../../shared/i18n/messages/fa.ts'),
  fi: () => import('../../shared/i18n/messages/fi.ts'),
  fil: () => import('../../shared/i18n/messages/fil.ts'),
  fr: () => import('../../shared/i18n/messages/fr.ts'),
  'fr-CA': () => import('../../shared/i18n/messages/fr-CA.ts'),
  he: () => import('../../shared/i18n/messages/he.ts'),
  hi: () => import('../../shared/i18n/messages/hi.ts'),
  hr: () => import('../../shared/i18n/messages/hr.ts'),
  hu: () => import('../../shared/i18n/messages/hu.ts'),
  id: () => import('../../shared/i18n/messages/id.ts'),
  is: () => import('../../shared/i18n/messages/is.ts'),
  it: () => import('../../shared/i18n/messages/it.ts'),
  ja: () => import('../../shared/i18n/messages/ja.ts'),
  ko: () => import('../../shared/i18n/messages/ko.ts'),
  lt: () => import('../../shared/i18n/messages/lt.ts'),
  lv: () => import('../../shared/i18n/messages/lv.ts'),
  ms: () => import('../../shared/i18n/messages/ms.ts'),
  mt: () => import('../../shared/i18n/messages/mt.ts'),
  nb: () => import('../../shared/i18n/messages/nb.ts'),
  nl: () => import('../../shared/i18n/messages/nl.ts'),
  pl: () => import('../../shared/i18n/messages/pl.ts'),
  pt: () => import('../../shared/i18n/messages/pt.ts'),
  'pt-BR': () => import('../../shared/i18n/messages/pt-BR.ts'),
  ro: () => import('../../shared/i18n/messages/ro.ts'),
  ru: () => import('../../shared/i18n/messages/ru.ts'),
  sk: () => import('../../shared/i18n/messages/sk.ts'),
  sl: () => import('../../shared/i18n/messages/sl.ts'),
  sr: () => import('../../shared/i18n/messages/sr.ts'),
  sv: () => import('../../shared/i18n/messages/sv.ts'),
  th: () => import('../../shared/i18n/messages/th.ts'),
  tr: () => import('../../shared/i18n/messages/tr.ts'),
  uk: () => import('../../shared/i18n/messages/uk.ts'),
  vi: () => import('../../shared/i18n/messages/vi.ts'),
  zh: () => import('../../shared/i18n/messages/zh.ts'),
  'zh-HK': () => import('../../shared/i18n/messages/zh-HK.ts'),
  'zh-TW': () => import('../../shared/i18n/messages/zh-TW.ts'),
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
