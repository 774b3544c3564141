import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BRAND_RULES,
  brandFromGateway,
  cvvLength,
  detectBrand,
  formatCardNumber,
  GATEWAY_BRANDS,
  luhnCheckDigit,
  luhnValid,
  normalizeCardNumber,
  type CardBrand,
} from '../../shared/card.ts'
import { checkFormat } from '../../shared/formats.ts'

/** A Luhn-valid number of `length` digits starting with `prefix`. */
const cardArb = (prefix: string, length: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), {
      minLength: length - prefix.length - 1,
      maxLength: length - prefix.length - 1,
    })
    .map((digits) => {
      const partial = prefix + digits.join('')
      return partial + luhnCheckDigit(partial)
    })

const BRAND_SAMPLES: [CardBrand, string, number][] = [
  ['visa', '4', 16],
  ['visa', '4', 13],
  ['visa', '4', 19],
  ['mastercard', '51', 16],
  ['mastercard', '55', 16],
  ['mastercard', '2221', 16],
  ['mastercard', '2720', 16],
  ['amex', '34', 15],
  ['amex', '37', 15],
  ['discover', '6011', 16],
  ['discover', '644', 16],
  ['discover', '65', 19],
  ['discover', '622126', 16],
  ['jcb', '3528', 16],
  ['jcb', '3589', 19],
  ['diners', '300', 14],
  ['diners', '36', 14],
  ['diners', '3095', 16],
  ['unionpay', '621', 16],
  ['unionpay', '6240', 16],
  ['unionpay', '81', 19],
  ['maestro', '6759', 12],
  ['maestro', '50', 16],
  ['maestro', '57', 19],
]

describe('card brand by IIN range', () => {
  it.each(BRAND_SAMPLES)('detects %s for prefix %s (%i digits) and accepts valid numbers', (brand, prefix, length) => {
    fc.assert(
      fc.property(cardArb(prefix, length), (number) => {
        expect(detectBrand(number)).toBe(brand)
        expect(checkFormat('cardNumber', number)).toBeNull()
      }),
      { numRuns: 50 },
    )
  })

  it.each([
    ['2220', undefined],
    ['2721', undefined],
    ['622125', 'unionpay'],
    ['622926', 'unionpay'],
    ['3527', undefined],
    ['306', undefined],
  ])('prefix %s is %s (range edges)', (prefix, brand) => {
    expect(detectBrand(prefix + '0000000000')).toBe(brand)
  })

  it('maps every brand to a gateway paymentBrand value and a CVV length (Amex 4, others 3)', () => {
    for (const brand of Object.keys(BRAND_RULES) as CardBrand[]) {
      expect(GATEWAY_BRANDS[brand]).toMatch(/^[A-Z]+$/)
      expect(brandFromGateway(GATEWAY_BRANDS[brand])).toBe(brand)
      expect(cvvLength(brand)).toBe(brand === 'amex' ? 4 : 3)
    }
  })

  it('groups digits by brand: 4-4-4-4 and Amex 4-6-5', () => {
    expect(formatCardNumber('4111111111111111')).toBe('4111 1111 1111 1111')
    expect(formatCardNumber('378282246310005')).toBe('3782 822463 10005')
    expect(formatCardNumber('4111 11')).toBe('4111 11')
  })
})

describe('Luhn', () => {
  it('every generated valid card passes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 12, max: 19 }), fc.integer({ min: 0, max: 2 ** 31 }), (length, seed) => {
        const digits = String(seed)
          .padStart(length - 1, '7')
          .slice(0, length - 1)
        expect(luhnValid(digits + luhnCheckDigit(digits))).toBe(true)
      }),
    )
  })

  it('every single-digit change of a valid card fails', () => {
    fc.assert(
      fc.property(
        cardArb('4', 16),
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 1, max: 9 }),
        (number, position, delta) => {
          const changed =
            number.slice(0, position) + ((Number(number[position]) + delta) % 10) + number.slice(position + 1)
          expect(luhnValid(changed)).toBe(false)
          expect(checkFormat('cardNumber', changed)).toBe('luhn')
        },
      ),
    )
  })

  it('spaces and dashes are stripped, other characters are refused', () => {
    expect(normalizeCardNumber('4111 1111-1111 1111')).toBe('4111111111111111')
    expect(checkFormat('cardNumber', '4111 1111 1111 1111')).toBeNull()
    expect(checkFormat('cardNumber', '4111x1111111111111')).toBe('format')
    expect(checkFormat('cardNumber', '41111111111')).toBe('length')
    expect(checkFormat('cardNumber', '9111111111111111')).not.toBeNull()
  })
})
