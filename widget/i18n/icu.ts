/**
 * @module
 * The part of ICU MessageFormat the messages use: `{name}` placeholders; plurals,
 * `{count, plural, =0 {…} one {# attempt left} other {# attempts left}}`, where `#` is the count
 * formatted for the locale and the form is chosen by `Intl.PluralRules` (Polish, Russian or Arabic
 * need more forms than English's two); and `{method, select, qr {…} other {…}}`, so a sentence
 * about a value is translated whole instead of a translated word being put into it.
 * No apostrophe quoting: message text never holds braces.
 */

/** Index of the brace closing the one at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++
    else if (text[i] === '}' && --depth === 0) return i
  }
  return -1
}

/** The forms of a plural or select argument: selector (`one`, `=0`, `qr`...) -> text. */
export function pluralForms(options: string): Map<string, string> {
  const forms = new Map<string, string>()
  const selector = /\s*(=\d+|[\w-]+)\s*\{/y
  let i = 0
  for (;;) {
    selector.lastIndex = i
    const m = selector.exec(options)
    if (!m?.[1]) break
    const open = i + m[0].length - 1
    const close = closing(options, open)
    if (close < 0) break
    forms.set(m[1], options.slice(open + 1, close))
    i = close + 1
  }
  return forms
}

const ARGUMENT = /^\s*(\w+)\s*(?:,\s*(plural|select)\s*,([\s\S]*))?$/

/** Every plural argument of a message with its forms (for the locale tests). */
export function pluralArguments(pattern: string): { name: string; forms: Map<string, string> }[] {
  const out: { name: string; forms: Map<string, string> }[] = []
  for (let i = pattern.indexOf('{'); i >= 0; ) {
    const close = closing(pattern, i)
    if (close < 0) break
    const m = ARGUMENT.exec(pattern.slice(i + 1, close))
    if (m?.[1] && m[2] === 'plural' && m[3] !== undefined) out.push({ name: m[1], forms: pluralForms(m[3]) })
    i = pattern.indexOf('{', close)
  }
  return out
}

/** The names of every argument a message uses, in its plural and select forms too (for the locale tests). */
export function argumentNames(pattern: string): Set<string> {
  const names = new Set<string>()
  for (let i = pattern.indexOf('{'); i >= 0; ) {
    const close = closing(pattern, i)
    if (close < 0) break
    const m = ARGUMENT.exec(pattern.slice(i + 1, close))
    if (m?.[1]) names.add(m[1])
    if (m?.[3] !== undefined) for (const form of pluralForms(m[3]).values()) for (const n of argumentNames(form)) names.add(n)
    i = pattern.indexOf('{', close)
  }
  return names
}

/** The message with its placeholders and plurals filled for `locale`. */
export function formatMessage(pattern: string, values: Readonly<Record<string, string | number>>, locale: string): string {
  let out = ''
  let i = 0
  while (i < pattern.length) {
    const open = pattern.indexOf('{', i)
    const close = open < 0 ? -1 : closing(pattern, open)
    if (close < 0) return out + pattern.slice(i)
    out += pattern.slice(i, open)
    const m = ARGUMENT.exec(pattern.slice(open + 1, close))
    const value = values[m?.[1] ?? ''] ?? ''
    if (m?.[3] === undefined) {
      out += String(value)
    } else if (m[2] === 'select') {
      const forms = pluralForms(m[3])
      out += formatMessage(forms.get(String(value)) ?? forms.get('other') ?? '', values, locale)
    } else {
      const n = Number(value)
      const forms = pluralForms(m[3])
      const form = forms.get(`=${n}`) ?? forms.get(new Intl.PluralRules(locale).select(n)) ?? forms.get('other') ?? ''
      out += formatMessage(form.replace(/#/g, new Intl.NumberFormat(locale).format(n)), values, locale)
    }
    i = close + 1
  }
  return out
}
