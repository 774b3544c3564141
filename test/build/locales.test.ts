/**
 * The locales as a translator and a shopper meet them: every locale file has exactly English's
 * message keys (none missing, none left over), every key is read somewhere by the widget code, every
 * translation uses the same placeholders as English, and counted messages have the plural forms
 * their language needs (by `Intl.PluralRules`). A shopper's language tag falls back from region
 * to language to English, and right-to-left languages are said to be so.
 */
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it, vi } from 'vitest'
import { callingCodes, countries } from '../../widget/card-form/lists.ts'
import { argumentNames, formatCount, formatMessage, pluralArguments, pluralForms } from '../../shared/i18n/icu.ts'
import { loadMessages } from '../../widget/i18n/index.ts'
import { direction, LOCALES, resolveLocale } from '../../shared/locales.ts'
import { en, type MessageKey } from '../../shared/i18n/messages/en.ts'
import { MORE_KEYS } from '../../shared/i18n/parts.ts'
import { framePage } from '../../worker/frame/page.ts'
import { MESSAGES } from '../../worker/frame/messages.ts'
import { RESULT_WORDS } from '../../worker/result-page/words.ts'
import { root } from '../../tools/stacks.mjs'
import { COUNTRY_CODES } from '../../shared/shopper-formats.ts'

const dir = join(root, 'shared/i18n/messages')
const KEYS = Object.keys(en).sort()
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'))
const translations = await Promise.all(
  LOCALES.filter((l) => l !== 'en').map(async (locale) => ({
    locale,
    messages: (await import(join(dir, `${locale}.ts`))).messages as Record<string, string>,
  })),
)

/** Every widget source file (paths). */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
    const path = join(folder, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * The message keys the widget reads, found by the type checker (not by a key's text appearing
 * somewhere): a key is read where code takes it from the messages (`messages.key`,
 * `messages[expr]` with `expr` a key or a choice of keys), or gives it where a `MessageKey` is
 * wanted (`format(messages, 'key')`, a table of error codes or states to keys, a field's label).
 * `widget/i18n/` is left out: its lists (`MORE_KEYS`) and the message files only name the keys.
 */
function readKeys(): Set<string> {
  const files = sources(join(root, 'widget'))
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noUncheckedIndexedAccess: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    experimentalDecorators: true,
    useDefineForClassFields: false,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
  })
  const checker = program.getTypeChecker()
  const keys = new Set(KEYS)
  const read = new Set<string>()
  /** The message keys a type may be (none when it is any key at all: `MessageKey` itself). */
  const keysOf = (type: ts.Type): string[] => {
    const names = (type.isUnion() ? type.types : [type]).flatMap((t) =>
      t.isStringLiteral() && keys.has(t.value) ? [t.value] : [],
    )
    return names.length < keys.size ? names : []
  }
  const isMessages = (node: ts.Expression): boolean => {
    const type = checker.getNonNullableType(checker.getTypeAtLocation(node))
    return KEYS.every((k) => type.getProperty(k))
  }
  /** The keys an index expression evaluates to: its literal branches, else what its type narrows to. */
  const valuesOf = (node: ts.Expression): string[] => {
    if (ts.isStringLiteralLike(node)) return keys.has(node.text) ? [node.text] : []
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node))
      return valuesOf(node.expression)
    if (ts.isConditionalExpression(node)) return [...valuesOf(node.whenTrue), ...valuesOf(node.whenFalse)]
    if (
      ts.isBinaryExpression(node) &&
      [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(node.operatorToken.kind)
    )
      return [...valuesOf(node.left), ...valuesOf(node.right)]
    return keysOf(checker.getTypeAtLocation(node))
  }
  /** A string literal given where a message key is wanted (its contextual type is `MessageKey`). */
  const wantsKey = (node: ts.StringLiteralLike): boolean => {
    const type = checker.getContextualType(node)
    if (!type) return false
    const names = new Set((type.isUnion() ? type.types : [type]).flatMap((t) => (t.isStringLiteral() ? [t.value] : [])))
    return KEYS.every((k) => names.has(k))
  }
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && keys.has(node.name.text) && isMessages(node.expression))
      read.add(node.name.text)
    else if (ts.isElementAccessExpression(node) && isMessages(node.expression))
      for (const k of valuesOf(node.argumentExpression)) read.add(k)
    else if (ts.isStringLiteralLike(node) && keys.has(node.text) && wantsKey(node)) read.add(node.text)
    ts.forEachChild(node, visit)
  }
  for (const file of files) {
    if (relative(root, file).startsWith(join('widget', 'i18n'))) continue
    const source = program.getSourceFile(file)
    if (source) visit(source)
  }
  return read
}

describe('locale files', () => {
  it('there are 48 locales, one message file each, and nothing else in the folder', () => {
    expect(LOCALES).toHaveLength(48)
    expect(new Set(LOCALES).size).toBe(48)
    expect(files.map((f) => f.replace(/\.ts$/, '')).sort()).toEqual([...LOCALES].sort())
  })

  it('every locale has every message key of English and no other', () => {
    for (const { locale, messages } of translations) {
      expect(Object.keys(messages).sort(), locale).toEqual(KEYS)
      for (const key of KEYS) {
        const text = messages[key]
        expect(typeof text === 'string' && text.trim().length > 0, `${locale}.${key} is empty`).toBe(true)
        // The build ships a locale as one message a line.
        expect(text, `${locale}.${key}`).not.toMatch(/\n/)
      }
    }
  })

  it('every key is read somewhere by the widget (none is left unused)', () => {
    const read = readKeys()
    // The check sees the widget's ways of reading: a property, a choice of keys, a table, `format`.
    for (const key of [
      'cardNumber',
      'tryAgain',
      'originNotAllowed',
      'walletDeclinedFinal',
      'methodUnderWay',
      'err_luhn',
      'err_gateway',
    ])
      expect([...read], key).toContain(key)
    expect(KEYS.filter((key) => !read.has(key))).toEqual([])
  }, 60_000)

  it('a translation uses exactly the placeholders of the English message', () => {
    for (const { locale, messages } of translations) {
      for (const key of KEYS) {
        const expected = [...argumentNames(en[key as keyof typeof en])].sort()
        expect([...argumentNames(messages[key] ?? '')].sort(), `${locale}.${key}`).toEqual(expected)
      }
    }
  })

  it('plural messages have an "other" form, only forms the language has, and a form for every count from 0 to 10', () => {
    let plurals = 0
    for (const { locale, messages } of [{ locale: 'en', messages: en as Record<string, string> }, ...translations]) {
      const rules = new Intl.PluralRules(locale)
      const categories = rules.resolvedOptions().pluralCategories as string[]
      for (const key of KEYS) {
        for (const { name, forms } of pluralArguments(messages[key] ?? '')) {
          plurals++
          expect(forms.has('other'), `${locale}.${key}: {${name}} has no other form`).toBe(true)
          for (const selector of forms.keys()) {
            expect(
              categories.includes(selector) || /^=\d+$/.test(selector),
              `${locale}.${key}: ${selector} is not a plural form of ${locale} (${categories.join(', ')})`,
            ).toBe(true)
          }
          for (let n = 0; n <= 10; n++) {
            expect(
              forms.has(`=${n}`) || forms.has(rules.select(n)),
              `${locale}.${key}: no ${rules.select(n)} form for ${n}`,
            ).toBe(true)
          }
        }
      }
    }
    // The attempts left (card and wallet) in every locale.
    expect(plurals).toBeGreaterThanOrEqual(2 * 48)
  })

  it('every message of every locale formats whole: no brace left, every placeholder filled', () => {
    const values = { amount: '€1.00', n: 3, last4: '4242', time: '4:59', id: 'INV-1', method: 'qr' }
    for (const { locale, messages } of [{ locale: 'en', messages: en as Record<string, string> }, ...translations]) {
      for (const key of KEYS) {
        for (const method of ['qr', 'invoice', 'card']) {
          const text = formatMessage(messages[key] ?? '', { ...values, method }, locale)
          expect(text, `${locale}.${key}`).not.toMatch(/[{}#]/)
        }
      }
    }
  })

  it('select messages have an "other" form', () => {
    for (const { locale, messages } of [{ locale: 'en', messages: en as Record<string, string> }, ...translations]) {
      for (const key of KEYS) {
        for (const m of (messages[key] ?? '').matchAll(/\{\s*\w+\s*,\s*select\s*,/g)) {
          const forms = pluralForms((messages[key] ?? '').slice((m.index ?? 0) + m[0].length))
          expect(forms.has('other'), `${locale}.${key}`).toBe(true)
        }
      }
    }
  })

  it('counts are said with the form the language needs', () => {
    const ru = translations.find((t) => t.locale === 'ru')?.messages ?? {}
    const ar = translations.find((t) => t.locale === 'ar')?.messages ?? {}
    const pl = translations.find((t) => t.locale === 'pl')?.messages ?? {}
    expect(formatMessage(en.declinedRetry, { n: 1 }, 'en')).toMatch(/1 attempt left\.$/)
    expect(formatMessage(en.declinedRetry, { n: 2 }, 'en')).toMatch(/2 attempts left\.$/)
    expect(
      [1, 2, 5, 21].map((n) =>
        formatMessage(ru.declinedRetry ?? '', { n }, 'ru')
          .split('. ')
          .pop(),
      ),
    ).toEqual(['Осталась 1 попытка.', 'Осталось 2 попытки.', 'Осталось 5 попыток.', 'Осталась 21 попытка.'])
    expect(
      [1, 2, 5].map((n) =>
        formatMessage(pl.declinedRetry ?? '', { n }, 'pl')
          .split('. ')
          .pop(),
      ),
    ).toEqual(['Pozostała 1 próba.', 'Pozostały 2 próby.', 'Pozostało 5 prób.'])
    expect(formatMessage(ar.declinedRetry ?? '', { n: 2 }, 'ar')).toMatch(/محاولتان/)
    expect(formatMessage(en.methodUnderWay, { method: 'qr' }, 'en')).toMatch(/^Paying with a QR wallet\./)
    expect(formatMessage(en.methodUnderWay, { method: 'saved-card' }, 'en')).toMatch(/^Paying by card\./)
  })

  it('the Worker’s result page (after the bank’s step) has its words in every locale, translated', () => {
    for (const locale of LOCALES) {
      const words = RESULT_WORDS[locale]
      const all = [...Object.values(words.states).flat(), words.back, words.close]
      expect(
        all.every((t) => t.trim().length > 0),
        locale,
      ).toBe(true)
      if (locale !== 'en' && locale !== 'en-GB') expect(words.back, locale).not.toBe(RESULT_WORDS.en.back)
    }
  })

  it('a number given to a placeholder is written in the locale’s digits, as the amounts and counts beside it are', () => {
    const fa = translations.find((t) => t.locale === 'fa')?.messages ?? {}
    expect(formatMessage(fa.cvvHint ?? '', { n: 3 }, 'fa')).toContain('۳')
    expect(formatMessage(fa.cvvHint ?? '', { n: 3 }, 'fa')).not.toMatch(/\d/)
    expect(formatMessage(en.cvvHint, { n: 4 }, 'en')).toBe('The 4-digit code on your card')
    expect(formatMessage(en.savedCard, { last4: '0005' }, 'en')).toBe('Card ending in 0005')
  })

  it('a count is written as Intl.NumberFormat writes it, in every locale, without Intl where the digits are 0-9', () => {
    const counts = [...Array.from({ length: 1000 }, (_, n) => n), 1000, 1234, 12345, -1, -7, 2.5]
    for (const locale of [...LOCALES, 'en-u-nu-arab', 'ar-EG', 'fa-IR']) {
      const intl = new Intl.NumberFormat(locale)
      for (const n of counts) expect(formatCount(n, locale), `${locale} ${n}`).toBe(intl.format(n))
    }
    // The shortcut is taken: no Intl.NumberFormat for the security code's hint in English.
    const made = vi.spyOn(Intl, 'NumberFormat')
    try {
      expect(formatMessage(en.cvvHint, { n: 3 }, 'en')).toBe('The 3-digit code on your card')
      expect(made).not.toHaveBeenCalled()
      formatMessage(en.cvvHint, { n: 3 }, 'fa')
      expect(made).toHaveBeenCalled()
    } finally {
      made.mockRestore()
    }
  })

  it('country and phone-code lists are named and sorted in the shopper’s language (Intl.DisplayNames, Intl.Collator)', () => {
    const sv = countries('sv').map((c) => c.label)
    expect(sv).toContain('Tyskland')
    // Swedish sorts Ö after Z; German sorts it with O.
    expect(sv.indexOf('Österrike')).toBeGreaterThan(sv.indexOf('Zimbabwe'))
    const de = countries('de').map((c) => c.label)
    expect(de.indexOf('Österreich')).toBeLessThan(de.indexOf('Polen'))
    expect(callingCodes('ar').find((c) => c.value === 'DE+49')?.label).toBe('ألمانيا (+49)')
  })

  it('the phone-code list gives every country its own calling code, and none to the three that have none', () => {
    const codes = new Map(callingCodes('en').map((c) => [c.value.slice(0, 2), c.value.slice(2)]))
    // The codes are written in the country list's order: a country added to it without its code
    // would shift every code after it, which these pairs from both ends and the middle would catch.
    expect(codes.size).toBe(COUNTRY_CODES.length - 3)
    for (const none of ['BV', 'HM', 'TF']) expect(codes.has(none), none).toBe(false)
    expect(
      Object.fromEntries(['AD', 'AX', 'EH', 'GB', 'HK', 'MA', 'PS', 'US', 'VA', 'ZW'].map((c) => [c, codes.get(c)])),
    ).toEqual({
      AD: '+376',
      AX: '+358',
      EH: '+212',
      GB: '+44',
      HK: '+852',
      MA: '+212',
      PS: '+970',
      US: '+1',
      VA: '+39',
      ZW: '+263',
    })
  })

  it('the other methods’ messages (their own chunk) are message keys', () => {
    for (const key of MORE_KEYS) expect(KEYS, key).toContain(key)
  })

  it('loading a locale gives its messages; an unknown one gives English', async () => {
    expect((await loadMessages('de')).cardNumber).toBe('Kartennummer')
    expect((await loadMessages('he')).cardNumber).toBe('מספר כרטיס')
    expect(await loadMessages('xx')).toBe(en)
  })
})

describe('a shopper’s language tag', () => {
  it('picks the region’s own locale, else its language’s (de-AT -> de, pt-PT -> pt, fr-BE -> fr)', () => {
    expect(resolveLocale(['de-AT'])).toBe('de')
    expect(resolveLocale(['de-CH'])).toBe('de')
    expect(resolveLocale(['pt-PT'])).toBe('pt')
    expect(resolveLocale(['pt-BR'])).toBe('pt-BR')
    expect(resolveLocale(['fr-BE'])).toBe('fr')
    expect(resolveLocale(['fr-CA'])).toBe('fr-CA')
    expect(resolveLocale(['en-US'])).toBe('en')
    expect(resolveLocale(['sv-SE'])).toBe('sv')
    expect(resolveLocale(['ar-EG'])).toBe('ar')
    expect(resolveLocale(['he-IL'])).toBe('he')
  })

  it('is read case- and separator-insensitively (pt_br, EN-gb)', () => {
    expect(resolveLocale(['pt_br'])).toBe('pt-BR')
    expect(resolveLocale(['EN-gb'])).toBe('en-GB')
  })

  it('Spanish of the Americas reads Latin American Spanish; Spain’s reads Spanish', () => {
    expect(resolveLocale(['es-MX'])).toBe('es-419')
    expect(resolveLocale(['es-AR'])).toBe('es-419')
    expect(resolveLocale(['es-US'])).toBe('es-419')
    expect(resolveLocale(['es-419'])).toBe('es-419')
    expect(resolveLocale(['es-ES'])).toBe('es')
    expect(resolveLocale(['es'])).toBe('es')
  })

  it('English of Britain and its neighbours reads British English', () => {
    expect(resolveLocale(['en-AU'])).toBe('en-GB')
    expect(resolveLocale(['en-IE'])).toBe('en-GB')
    expect(resolveLocale(['en-CA'])).toBe('en')
  })

  it('Chinese by script: traditional for zh-Hant, zh-TW, zh-HK and zh-MO; simplified otherwise', () => {
    expect(resolveLocale(['zh-TW'])).toBe('zh-TW')
    expect(resolveLocale(['zh-Hant-TW'])).toBe('zh-TW')
    expect(resolveLocale(['zh-Hant'])).toBe('zh-TW')
    expect(resolveLocale(['zh-HK'])).toBe('zh-HK')
    expect(resolveLocale(['zh-MO'])).toBe('zh-HK')
    expect(resolveLocale(['zh-CN'])).toBe('zh')
    expect(resolveLocale(['zh-Hans-SG'])).toBe('zh')
    expect(resolveLocale(['zh'])).toBe('zh')
  })

  it('Norwegian and legacy codes read their supported language (no, nn -> nb; iw -> he; in -> id; tl -> fil)', () => {
    expect(resolveLocale(['no'])).toBe('nb')
    expect(resolveLocale(['nn-NO'])).toBe('nb')
    expect(resolveLocale(['iw'])).toBe('he')
    expect(resolveLocale(['in'])).toBe('id')
    expect(resolveLocale(['tl'])).toBe('fil')
  })

  it('unknown or malformed tags fall through to the next preference, then English', () => {
    expect(resolveLocale(['xx-YY', 'de-AT'])).toBe('de')
    expect(resolveLocale(['', '!!', 'fr'])).toBe('fr')
    expect(resolveLocale(['xx'])).toBe('en')
    expect(resolveLocale([])).toBe('en')
  })

  it('Arabic, Hebrew and Persian read right to left; the others left to right', () => {
    expect(['ar', 'ar-SA', 'he', 'he-IL', 'iw', 'fa', 'fa-IR'].map(direction)).toEqual(Array(7).fill('rtl'))
    expect(LOCALES.filter((l) => direction(l) === 'rtl')).toEqual(['ar', 'fa', 'he'])
  })

  it('the card frame’s page is written in the locale, in its direction, with its card flow messages and no others', () => {
    for (const [tag, lang, dir] of [
      ['ar', 'ar', 'rtl'],
      ['he', 'he', 'rtl'],
      ['de-AT', 'de', 'ltr'],
      ['pt-BR', 'pt-BR', 'ltr'],
      ['xx', 'en', 'ltr'],
    ] as const) {
      const html = framePage({ locale: tag, theme: 'light', shipping: false })
      expect(html, tag).toContain(`<html lang="${lang}" dir="${dir}"`)
      expect(html, tag).toContain(`<div class="container" part="container" lang="${lang}" dir="${dir}"`)
      expect(html, tag).toContain(`<label for="number">${MESSAGES[lang].cardNumber}</label>`)
      const words = JSON.parse(
        /<script type="application\/json" id="pay-words">([^<]*)<\/script>/.exec(html)?.[1] ?? '',
      )
      expect(words.succeeded, tag).toBe(MESSAGES[lang].succeeded)
      expect(
        Object.keys(words).some((k) => MORE_KEYS.includes(k as MessageKey)),
        tag,
      ).toBe(false)
    }
  })
})
