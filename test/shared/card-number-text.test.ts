/**
 * A card number hidden in free text, however it is written, is found (and so refused in metadata,
 * refund reasons and text fields, and redacted in logs); ordinary text is not. Property-based:
 * fast-check writes real card numbers in every digit script and with every kind of separator.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { containsCardNumber, luhnValid, redactCardNumbers } from '../../shared/card.ts'
import { redact } from '../../worker/log.ts'

/** Zero of each script's digits: ASCII, full-width, Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, Thai, mathematical bold and monospace. */
const ZEROS = [0x30, 0xff10, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0x1d7ce, 0x1d7f6]
/** What may stand between digits: spaces of every width, zero-width and format characters, punctuation. */
const SEPARATORS = [
  ' ',
  '-',
  '.',
  '/',
  '_',
  '\u00a0',
  '\u2009',
  '\u202f',
  '\u200b',
  '\u2060',
  '\u2007',
  ' - ',
  '\u3000',
  '·',
]

/**
 * A card number: a brand's prefix (or an issuer in no brand's range: the first digit 0, 1, 7 or 9),
 * random digits, and the Luhn check digit; 13 to 19 digits.
 */
const cardNumber = fc
  .oneof(
    fc.constantFrom(
      { prefix: '4', length: 16 },
      { prefix: '4', length: 13 },
      { prefix: '51', length: 16 },
      { prefix: '2221', length: 16 },
      { prefix: '37', length: 15 },
      { prefix: '6011', length: 16 },
      { prefix: '3530', length: 16 },
    ),
    fc.record({ prefix: fc.constantFrom('0', '1', '7', '9'), length: fc.integer({ min: 13, max: 19 }) }),
  )
  .chain(({ prefix, length }) =>
    fc
      .array(fc.integer({ min: 0, max: 9 }), {
        minLength: length - prefix.length - 1,
        maxLength: length - prefix.length - 1,
      })
      .map((body) => {
        const partial = prefix + body.join('')
        const check = [...Array(10).keys()].find((d) => luhnValid(partial + d)) ?? 0
        return partial + check
      }),
  )

/** The number written in one script, with separators of the writer's choice between some digits. */
const disguised = fc
  .tuple(
    cardNumber,
    fc.constantFrom(...ZEROS),
    fc.array(fc.constantFrom('', ...SEPARATORS), { minLength: 19, maxLength: 19 }),
  )
  .map(([digits, zero, seps]) =>
    [...digits]
      .map((d, i) => String.fromCodePoint(zero + Number(d)) + (i < digits.length - 1 ? (seps[i] ?? '') : ''))
      .join(''),
  )

const around = fc.tuple(
  fc.constantFrom('', 'card: ', 'Order A-1001 paid with ', 'ref=', '«'),
  fc.constantFrom('', ' thanks', '.', ' (exp 12/30)', '»'),
)

describe('a card number hidden in free text', () => {
  it('is found in any digit script with any separators, and redacted', () => {
    fc.assert(
      fc.property(disguised, around, (card, [before, after]) => {
        const text = `${before}${card}${after}`
        expect(containsCardNumber(text), JSON.stringify(text)).toBe(true)
        expect(containsCardNumber(redactCardNumbers(text)), JSON.stringify(redactCardNumbers(text))).toBe(false)
        expect(JSON.stringify(redact({ note: text }))).toContain('[card]')
      }),
      { numRuns: 2000 },
    )
  })

  it('ordinary text is not taken for one: order references, dates, times, phone numbers, amounts, UUIDs', () => {
    const ordinary = fc.oneof(
      fc.integer({ min: 1, max: 99999999 }).map((n) => `A-${n}`),
      fc
        .date({ min: new Date(2000, 0, 1), max: new Date(2099, 0, 1), noInvalidDate: true })
        .map((d) => d.toISOString()),
      fc
        .tuple(
          fc.integer({ min: 1, max: 99 }),
          fc.integer({ min: 100, max: 999 }),
          fc.integer({ min: 1000, max: 9999 }),
        )
        .map(([cc, a, b]) => `+${cc} ${a} ${b}`),
      fc
        .tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99 }))
        .map(([a, b]) => `${a}.${String(b).padStart(2, '0')} EUR`),
      fc.uuid(),
      fc.string({ maxLength: 40 }).filter((s) => !/\d/u.test(s)),
    )
    fc.assert(
      fc.property(ordinary, (text) => {
        expect(containsCardNumber(text), text).toBe(false)
      }),
      { numRuns: 2000 },
    )
  })
})
