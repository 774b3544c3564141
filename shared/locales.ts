/**
 * @module
 * The locales the widget speaks and how a shopper's language tag picks one: no imports, so the
 * Worker (the card frame's page preloads the chosen locale's chunk) resolves a tag exactly as the
 * element does.
 */

/** One message file each in `shared/i18n/messages/` (English is the source of every key). */
export const LOCALES = [
  'en',
  'ar',
  'bg',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'en-GB',
  'es',
  'es-419',
  'et',
  'fa',
  'fi',
  'fil',
  'fr',
  'fr-CA',
  'he',
  'hi',
  'hr',
  'hu',
  'id',
  'is',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'ms',
  'mt',
  'nb',
  'nl',
  'pl',
  'pt',
  'pt-BR',
  'ro',
  'ru',
  'sk',
  'sl',
  'sr',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
  'zh-HK',
  'zh-TW',
] as const

export type Locale = (typeof LOCALES)[number]

/** Written right to left: the checkout mirrors its layout (card numbers and amounts stay left to right). */
const RTL: readonly string[] = ['ar', 'fa', 'he']

/** Languages read in another supported one: Norwegian and Nynorsk in Bokmål, legacy codes. */
const ALIASES: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id', tl: 'fil' }

/** Spanish of the Americas reads Latin American Spanish (CLDR's parent of `es-MX` is `es-419`). */
const LATIN_AMERICA = [
  'AR',
  'BO',
  'CL',
  'CO',
  'CR',
  'CU',
  'DO',
  'EC',
  'GT',
  'HN',
  'MX',
  'NI',
  'PA',
  'PE',
  'PR',
  'PY',
  'SV',
  'US',
  'UY',
  'VE',
]

/** English of these regions spells as in Britain ("Postcode", "Expiry date"). */
const BRITISH_ENGLISH = ['AU', 'GB', 'IE', 'IN', 'MT', 'NZ', 'SG', 'ZA']

const BY_LOWER = new Map<string, Locale>(LOCALES.map((l) => [l.toLowerCase(), l]))

/** The supported locales a tag may read, most specific first. */
function candidates(tag: string): string[] {
  let locale: Intl.Locale
  try {
    locale = new Intl.Locale(tag.trim().replace(/_/g, '-'))
  } catch {
    return []
  }
  const language = ALIASES[locale.language] ?? locale.language
  const region = locale.region
  const out = region ? [`${language}-${region}`] : []
  if (language === 'zh') {
    // Script decides (zh-Hant, zh-TW, zh-MO read traditional characters; zh-SG simplified).
    const max = locale.maximize()
    out.push(max.script === 'Hant' ? (max.region === 'HK' || max.region === 'MO' ? 'zh-HK' : 'zh-TW') : 'zh')
  }
  if (language === 'es' && region && (region === '419' || LATIN_AMERICA.includes(region))) out.push('es-419')
  if (language === 'en' && region && BRITISH_ENGLISH.includes(region)) out.push('en-GB')
  out.push(language)
  return out
}

/**
 * The supported locale for a list of preferences (the `locale` attribute, else the browser's
 * languages): the region's own locale, else its language's (`de-AT` -> `de`, `pt-PT` -> `pt`,
 * `es-MX` -> `es-419`, `zh-Hant` -> `zh-TW`), else the next preference, else `en`.
 */
export function resolveLocale(preferences: readonly string[]): Locale {
  for (const tag of preferences) {
    for (const c of candidates(tag)) {
      const hit = BY_LOWER.get(c.toLowerCase())
      if (hit) return hit
    }
  }
  return 'en'
}

/** `rtl` for locales written right to left, else `ltr`. */
export function direction(locale: string): 'ltr' | 'rtl' {
  return RTL.includes(resolveLocale([locale])) ? 'rtl' : 'ltr'
}
