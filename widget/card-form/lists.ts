/**
 * @module
 * What the country and phone-code lists offer: ISO 3166-1 countries (names from the browser's
 * `Intl.DisplayNames`, in the shopper's language) and each country's calling code (ITU-T E.164).
 */
import { COUNTRY_CODES } from '../../shared/shopper-formats.ts'

// Each country's calling code (ITU-T E.164), in COUNTRY_CODES' order; empty for the countries with
// no code of their own (BV, HM, TF). Shorter than listing each code's countries, and the country
// codes are not written twice.
const CALLING =
  '376 971 93 1 1 355 374 244 672 54 1 43 61 297 358 994 387 1 880 32 226 359 973 257 229 590 1 673 591 599 55 1 975  267 375 501 1 61 243 236 242 41 225 ' +
  '682 56 237 86 57 506 53 238 599 61 357 420 49 253 45 1 1 213 593 372 20 212 291 34 251 358 679 500 691 298 33 241 44 1 995 594 44 233 350 299 220 224 ' +
  '590 240 30 500 502 1 245 592 852  504 385 509 36 62 353 972 44 91 246 964 98 354 39 44 1 962 81 254 996 855 686 269 1 850 82 965 1 7 856 961 1 423 94 ' +
  '231 266 370 352 371 218 212 377 373 382 590 261 692 389 223 95 976 853 1 596 222 1 356 230 960 265 52 60 258 264 687 227 672 234 505 31 47 977 674 683 ' +
  '64 968 507 51 689 675 63 92 48 508 64 1 970 351 680 595 974 262 40 381 7 250 966 677 248 249 46 65 290 386 47 421 232 378 221 252 597 211 239 503 1 ' +
  '963 268 1 235  228 66 992 690 670 993 216 676 90 1 688 886 255 380 256 1 1 598 998 39 1 58 1 1 84 678 681 685 967 262 27 260 263'

export interface Choice {
  readonly value: string
  readonly label: string
}

function names(locale: string): (code: string) => string {
  try {
    const dn = new Intl.DisplayNames([locale, 'en'], { type: 'region' })
    return (code) => dn.of(code) ?? code
  } catch {
    return (code) => code
  }
}

/** Sorted as the shopper's language sorts (Swedish puts Ö after Z, Czech Ch after H). */
function byLabel(locale: string): (a: Choice, b: Choice) => number {
  let collator: Intl.Collator
  try {
    collator = new Intl.Collator(locale)
  } catch {
    collator = new Intl.Collator()
  }
  return (a, b) => collator.compare(a.label, b.label)
}
const cache = new Map<string, readonly Choice[]>()

/** Every country, by its name in `locale`; the value is the ISO code. */
export function countries(locale: string): readonly Choice[] {
  const key = `c:${locale}`
  let list = cache.get(key)
  if (!list) {
    const name = names(locale)
    list = COUNTRY_CODES.map((code) => ({ value: code, label: name(code) })).sort(byLabel(locale))
    cache.set(key, list)
  }
  return list
}

/** Every country with its calling code, by country name in `locale`; the value is `DE+49` (unique per country). */
export function callingCodes(locale: string): readonly Choice[] {
  const key = `p:${locale}`
  let list = cache.get(key)
  if (!list) {
    const name = names(locale)
    const codes = CALLING.split(' ')
    const out: Choice[] = []
    for (const [i, country] of COUNTRY_CODES.entries()) {
      const code = codes[i]
      if (code) out.push({ value: `${country}+${code}`, label: `${name(country)} (+${code})` })
    }
    list = out.sort(byLabel(locale))
    cache.set(key, list)
  }
  return list
}

/**
 * A phone number typed with its country code (`+49 30 1234567`, `0049 30 1234567`), as shoppers
 * type and paste it: the phone-code list's choice (of `choices`' values, `DE+49`) and the number
 * without the code; null when it has no code, or one of no country. Calling codes are prefix-free
 * (E.164), so one code fits; a code many countries share (+1, +7, +44) takes the first of `prefer`
 * (ISO country codes: the code chosen before, the address's country, the locale's region) that
 * has it, then the country usually meant.
 */
export function splitPhone(
  phone: string,
  choices: readonly string[],
  prefer: readonly (string | undefined)[],
): { readonly code: string; readonly phone: string } | null {
  // `00` is the international prefix of most countries; `001`, `0011` are other countries' own
  // prefixes (Hong Kong, Korea, Singapore, Australia), never +1: not read as a code.
  const typed = /^\s*(?:\+|00(?!1))([\d\s()-]+)$/.exec(phone)?.[1] ?? ''
  const fits = choices.filter((c) => c && typed.replace(/\D/g, '').startsWith(c.slice(3)))
  const code = fits[0]?.slice(3)
  if (!code) return null
  const country = [...prefer, ...'US RU GB AU NO FI IT'.split(' ')].find((p) => fits.includes(`${p}+${code}`))
  return {
    code: country ? `${country}+${code}` : (fits[0] as string),
    phone: typed.replace(new RegExp(`^[\\s(]*${[...code].join('\\D*')}[\\s)-]*`), ''),
  }
}
