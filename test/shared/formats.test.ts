import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FieldErrorCode } from '../../shared/errors.ts'
import { REQUEST_FIELDS } from '../../shared/fields.ts'
import { checkFormat, type Format } from '../../shared/formats.ts'
import { checkAmount, formatAmount, parseAmount } from '../../shared/money.ts'
import { decodeForm, encodeForm } from '../../shared/gateway/form.ts'

const TABLE: [Format, string, FieldErrorCode | null][] = [
  ['amount', '100.00', null],
  ['amount', '0.01', null],
  ['amount', '1000.00', null],
  ['amount', '100', 'format'],
  ['amount', '100.0', 'format'],
  ['amount', '100.000', 'format'],
  ['amount', '-1.00', 'format'],
  ['amount', '+1.00', 'format'],
  ['amount', '1e2', 'format'],
  ['amount', '01.00', 'format'],
  ['amount', '1,00', 'format'],
  ['amount', '0.00', 'out_of_range'],
  ['amount', '1000000000.00', 'out_of_range'],
  ['currency', 'EUR', null],
  ['currency', 'JPY', null],
  ['currency', 'USD', null],
  ['currency', 'eur', 'format'],
  ['currency', 'XYZ', 'invalid_value'],
  ['expiryMonth', '01', null],
  ['expiryMonth', '12', null],
  ['expiryMonth', '1', 'format'],
  ['expiryMonth', '13', 'format'],
  ['expiryYear', '2030', null],
  ['expiryYear', '30', 'format'],
  ['cvv', '123', null],
  ['cvv', '1234', null],
  ['cvv', '12', 'format'],
  ['cvv', '12a', 'format'],
  ['email', 'ada@example.com', null],
  ['email', 'a.b+tag@mail.example.co.uk', null],
  ['email', 'ada@localhost', 'format'],
  ['email', 'ada example.com', 'format'],
  ['email', '@example.com', 'format'],
  ['phone', '030 1234567', null],
  ['phone', '(030) 123-4567', null],
  ['phone', '12', 'format'],
  ['phone', '+49 30 1234567', 'format'],
  ['telnocc', '+49', null],
  ['telnocc', '+1', null],
  ['telnocc', '+1264', null],
  ['telnocc', '49', 'format'],
  ['telnocc', '+12345', 'format'],
  ['telnocc', '+0', 'format'],
  ['ip', '127.0.0.1', null],
  ['ip', '255.255.255.255', null],
  ['ip', '256.1.1.1', 'format'],
  ['ip', '01.2.3.4', 'format'],
  ['ip', '::1', null],
  ['ip', '2001:db8::8a2e:370:7334', null],
  ['ip', '::ffff:192.0.2.1', null],
  ['ip', '2001:db8:0:0:0:0:0:1', null],
  ['ip', '2001:db8::1::1', 'format'],
  ['ip', '2001:db8:0:0:0:0:0:0:1', 'format'],
  ['country', 'DE', null],
  ['country', 'de', 'format'],
  ['country', 'XX', 'invalid_value'],
  ['merchantTransactionId', 'order-1_A.b', null],
  ['merchantTransactionId', 'a'.repeat(64), null],
  ['merchantTransactionId', 'a'.repeat(65), 'format'],
  ['merchantTransactionId', 'order|1', 'format'],
  ['merchantTransactionId', 'order 1', 'format'],
  ['url', 'https://shop.example/return', null],
  ['url', 'http://127.0.0.1:8787/v1/return/cs_1', null],
  ['url', 'http://localhost:8787/x', null],
  ['url', 'http://shop.example/return', 'format'],
  ['url', 'javascript:alert(1)', 'format'],
  ['url', 'https://user:pw@shop.example/', 'format'],
  ['url', 'not a url', 'format'],
  ['name', 'Zoë O’Brien-Smith', null],
  ['name', '山田', null],
  ['name', '<script>', 'format'],
  ['name', 'Ada\nLovelace', 'format'],
  ['postcode', '10115', null],
  ['postcode', 'SW1A 1AA', null],
  ['text', 'Main Street 1', null],
  ['text', ' padded', 'format'],
]

describe('formats', () => {
  it.each(TABLE)('%s %j -> %s', (format, value, expected) => {
    expect(checkFormat(format, value)).toBe(expected)
  })

  it('an empty value is "required", whatever the format', () => {
    for (const f of ['amount', 'email', 'text', 'url'] as const) expect(checkFormat(f, '')).toBe('required')
  })

  it('no value containing "|" passes the format of any checksum input', () => {
    const checksumFields = Object.values(REQUEST_FIELDS).filter((f) => 'checksum' in f && f.checksum)
    expect(checksumFields.length).toBeGreaterThanOrEqual(5)
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.constantFrom(...checksumFields), (before, after, field) => {
        expect(checkFormat(field.format, `${before}|${after}`)).not.toBeNull()
      }),
      { numRuns: 2000 },
    )
  })

  it('no value with a control character passes any format', () => {
    const formats = [...new Set(Object.values(REQUEST_FIELDS).map((f) => f.format))]
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 31 }), fc.constantFrom(...formats), (s, ch, format) => {
        expect(checkFormat(format, s + String.fromCharCode(ch))).not.toBeNull()
      }),
    )
  })
})

describe('amounts', () => {
  it('format(parse(a)) === a for every valid amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (hundredths) => {
        const text = formatAmount(hundredths)
        expect(parseAmount(text)).toBe(hundredths)
        expect(formatAmount(parseAmount(text) ?? -1)).toBe(text)
      }),
    )
  })

  it('bounds are configurable', () => {
    expect(checkAmount('5.00', { min: '10.00', max: '20.00' })).toBe('out_of_range')
    expect(checkAmount('15.00', { min: '10.00', max: '20.00' })).toBe('ok')
    expect(checkAmount('25.00', { min: '10.00', max: '20.00' })).toBe('out_of_range')
  })
})

describe('form encoding', () => {
  it('round-trips any set of dotted names and values', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string()), (fields) => {
        expect(decodeForm(encodeForm(fields))).toEqual(fields)
      }),
    )
  })

  it('keeps dotted names literal and encodes the URL of merchantRedirectUrl', () => {
    const body = encodeForm({ 'card.cvv': '123', merchantRedirectUrl: 'https://shop.example/r?a=1&b=2' })
    expect(body).toBe('card.cvv=123&merchantRedirectUrl=https%3A%2F%2Fshop.example%2Fr%3Fa%3D1%26b%3D2')
  })
})
