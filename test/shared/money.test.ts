/**
 * What the shopper is shown is what is charged, for every currency accepted: amounts may not be
 * finer than the currency's minor unit, and `<pay-checkout>` formats exactly those decimals.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CURRENCIES } from '../../shared/currencies.ts'
import { fitsMinorUnits, formatAmount, minorUnits } from '../../shared/money.ts'
import { formatMoney } from '../../widget/i18n/index.ts'

/** A valid amount for the currency: whole units for zero-decimal currencies. */
const amountFor = (currency: string) =>
  fc.integer({ min: 1, max: 99_999_999 }).map((n) => formatAmount(minorUnits(currency) === 0 ? n * 100 : n))

describe('amounts and currencies', () => {
  it('yen, won and CFA francs take whole amounts only; cents and fils fit their currencies', () => {
    expect(fitsMinorUnits('1000.50', 'JPY')).toBe(false)
    expect(fitsMinorUnits('1000.00', 'JPY')).toBe(true)
    expect(fitsMinorUnits('10.01', 'KRW')).toBe(false)
    expect(fitsMinorUnits('10.01', 'XOF')).toBe(false)
    expect(fitsMinorUnits('10.01', 'EUR')).toBe(true)
    expect(fitsMinorUnits('10.01', 'KWD')).toBe(true)
  })

  it('for every accepted currency, the amount the widget shows is the amount charged, with the currency’s decimals', () => {
    const currencies = [...CURRENCIES]
    fc.assert(
      fc.property(
        fc.constantFrom(...currencies).chain((currency) => fc.tuple(fc.constant(currency), amountFor(currency))),
        ([currency, amount]) => {
          const shown = formatMoney(amount, currency, 'en-US')
          // en-US: "," groups, "." separates decimals; the currency sign or code is around the digits.
          const number = shown.replace(/[^\d.]/g, '').replace(/^\.+|\.+$/g, '')
          expect(Number(number), `${amount} ${currency} shown as ${shown}`).toBe(Number(amount))
          expect(number.split('.')[1]?.length ?? 0, `${currency} decimals in ${shown}`).toBe(minorUnits(currency))
        },
      ),
      { numRuns: 2000 },
    )
  })
})
