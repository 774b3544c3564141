/**
 * @module
 * The part of ICU MessageFormat the messages use: `{name}` placeholders; plurals,
 * `{count, plural, =0 {…} one {# attempt left} other {# attempts left}}`, where `#` is the count
 * formatted for the locale (as a number given to a placeholder is) and the form is chosen by `Intl.PluralRules` (Polish, Russian or Arabic
 * need more forms than English's two); and `{method, select, qr {…} other {…}}`, so a sentence
 * about a value is translated whole instead of a translated word being put into it.
 * Small on purpose (it is in the card flow's download): a form's text holds no other argument
 * (only `#`), and there is no apostrophe quoting, since message text never holds braces. The
 * locale test formats every message of every locale and checks that no brace is left.
 */

/** One argument: name, and for plural or select the forms. */
const ARGUMENT = /\{\s*(\w+)\s*(?:,\s*(plural|select)\s*,((?:[^{}]|\{[^{}]*\})*))?\}/g
/** One form of a plural or select: selector (`one`, `=0`, `qr`...) and its text. */
const FORM = /([=\w-]+)\s*\{([^{}]*)\}/g

/** The forms of a plural or select argument's options: selector -> text. */
export function pluralForms(options: string): Map<string, string> {
  return new Map([...options.matchAll(FORM)].map((m) => [m[1] ?? '', m[2] ?? '']))
}

/** Every plural argument of a message with its forms (for the locale tests). */
export function pluralArguments(pattern: string): { name: string; forms: Map<string, string> }[] {
  return [...pattern.matchAll(ARGUMENT)]
    .filter((m) => m[2] === 'plural')
    .map((m) => ({ name: m[1] ?? '', forms: pluralForms(m[3] ?? '') }))
}

/** The names of every argument a message uses (for the locale tests). */
export function argumentNames(pattern: string): Set<string> {
  return new Set([...pattern.matchAll(ARGUMENT)].map((m) => m[1] ?? ''))
}

// Arabic and Persian are written in their own digits by some browsers and regions (CLDR's defaults
// are arab and arabext), and a tag may name its digits (`-u-nu-`); every other locale of ours in 0-9.
const OWN_DIGITS = /^(?:ar|fa)(?:-|$)|-u-/i

/**
 * A count in the locale's digits, as `Intl.NumberFormat` writes it. A whole number below 1,000 has
 * no grouping, sign or decimal point, so where the digits are 0-9 it is written as it is: a page's
 * first `Intl.NumberFormat` costs 35 to 55 ms of its main thread (ICU's number data), and the
 * security code's hint ("The 3-digit code") is drawn before the card form is ready. The locale test
 * compares this with Intl for every locale and every such count.
 */
export function formatCount(n: number, locale: string): string {
  return Number.isInteger(n) && n >= 0 && n < 1000 && !OWN_DIGITS.test(locale)
    ? String(n)
    : new Intl.NumberFormat(locale).format(n)
}

/** The message with its placeholders, plurals and selects filled for `locale`. */
export function formatMessage(
  pattern: string,
  values: Readonly<Record<string, string | number>>,
  locale: string,
): string {
  return pattern.replace(ARGUMENT, (_, name: string, kind?: string, options?: string) => {
    const value = values[name] ?? ''
    // A number in the locale's digits, as a plural's `#` is (Persian wrote "کد 3 رقمی" beside ۴۹٫۰۰).
    if (!kind) return typeof value === 'number' ? formatCount(value, locale) : value
    const forms = pluralForms(options ?? '')
    if (kind === 'select') return forms.get(String(value)) ?? forms.get('other') ?? ''
    const n = Number(value)
    const form = forms.get(`=${n}`) ?? forms.get(new Intl.PluralRules(locale).select(n)) ?? forms.get('other') ?? ''
    return form.replace(/#/g, formatCount(n, locale))
  })
}
