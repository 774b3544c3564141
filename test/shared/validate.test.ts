import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OPERATIONS, REQUEST_FIELDS, type RequestField } from '../../shared/fields.ts'
import { fieldsOf, flatten, validateRequest } from '../../shared/validate.ts'
import { wirePayment } from '../../tools/wire-payment.ts'

const NOW = new Date('2026-11-22T12:00:00Z')

/** A valid initial card payment on the wire. */
const PAYMENT = wirePayment({
  'authentication.checksum': '0d8f7f6df8c288bcccd7a3bf580a8776',
  'card.number': '4111 1111 1111 1111',
})

describe('the field table', () => {
  it('gives each operation unique wire names', () => {
    for (const op of OPERATIONS) {
      const wires = fieldsOf(op).map((f) => f.field.wire)
      expect(new Set(wires).size, op).toBe(wires.length)
    }
  })

  it('spells the names the gateway uses: givenName for cards, givenname for QR', () => {
    expect(fieldsOf('payment').map((f) => f.field.wire)).toContain('customer.givenName')
    expect(fieldsOf('qrVerify').map((f) => f.field.wire)).toContain('customer.givenname')
    expect(fieldsOf('payment').map((f) => f.field.wire)).toEqual(
      expect.arrayContaining(['notificationUrl', 'merchantRedirectUrl']),
    )
  })

  it('keeps fixed values among the allowed values', () => {
    for (const field of Object.values(REQUEST_FIELDS) as RequestField[]) {
      for (const value of Object.values(field.fixed ?? {})) {
        if (field.values) expect(field.values).toContain(value)
      }
    }
  })

  it('lets the browser supply only shopper fields, and marks card data sensitive', () => {
    const fields = Object.values(REQUEST_FIELDS) as RequestField[]
    for (const f of fields.filter((f) => f.sensitive === 'pan' || f.sensitive === 'cvv'))
      expect(f.source).toBe('shopper')
    for (const f of fields.filter((f) => f.checksum)) expect(f.source).not.toBe('shopper')
    for (const wire of ['amount', 'currency', 'merchantTransactionId', 'paymentType']) {
      expect(fields.find((f) => f.wire === wire)?.source).toBe('session')
    }
  })

  it('says which fields each operation requires (repeat by payment id has no card or CVV)', () => {
    const required = (op: (typeof OPERATIONS)[number]) =>
      fieldsOf(op)
        .filter((f) => f.use === 'R')
        .map((f) => f.field.wire)
    expect(required('repeat')).toEqual(
      expect.arrayContaining([
        'authentication.memberId',
        'authentication.checksum',
        'authentication.terminalId',
        'amount',
        'currency',
        'paymentType',
        'recurringType',
      ]),
    )
    expect(fieldsOf('repeat').map((f) => f.field.wire)).not.toContain('card.cvv')
    expect(required('tokenRepeat')).toContain('card.cvv')
    expect(required('invoiceRegenerate')).toEqual(
      expect.arrayContaining(['invoiceId', 'merchantRedirectUrl', 'merchantInvoiceId', 'authentication.checksum']),
    )
    expect(required('qrComplete')).toEqual(expect.arrayContaining(['paymentId', 'amount', 'currency']))
  })
})

describe('validateRequest', () => {
  it('accepts a valid initial card payment and normalises the card number', () => {
    const r = validateRequest('payment', PAYMENT, { now: NOW })
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.value['card.number']).toBe('4111111111111111')
  })

  it.each(
    fieldsOf('payment')
      .filter((f) => f.use === 'R')
      .map((f) => f.field.wire),
  )('reports a missing %s as required', (wire) => {
    const input: Record<string, string> = { ...PAYMENT }
    delete input[wire]
    const r = validateRequest('payment', input, { now: NOW })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContainEqual({ field: wire, code: 'required' })
  })

  it('refuses fields the operation does not send, and non-text values', () => {
    const r = validateRequest('payment', { ...PAYMENT, 'card.pin': '1234', amount: 100 }, { now: NOW })
    expect(r.ok).toBe(false)
    if (!r.ok)
      expect(r.error).toEqual(
        expect.arrayContaining([
          { field: 'card.pin', code: 'not_allowed' },
          { field: 'amount', code: 'format' },
        ]),
      )
  })

  it('insists on the fixed value of an operation (paymentMode CC for cards)', () => {
    const r = validateRequest('payment', { ...PAYMENT, paymentMode: 'EW' }, { now: NOW })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContainEqual({ field: 'paymentMode', code: 'invalid_value' })
  })

  it.each([
    [
      'CVV length by brand (Amex needs 4)',
      { 'card.number': '378282246310005', paymentBrand: 'AMEX', 'card.cvv': '123' },
      { field: 'card.cvv', code: 'length' },
    ],
    [
      'expiry in the past',
      { 'card.expiryMonth': '10', 'card.expiryYear': '2026' },
      { field: 'card.expiryYear', code: 'expired' },
    ],
    ['expiry too far ahead', { 'card.expiryYear': '2099' }, { field: 'card.expiryYear', code: 'out_of_range' }],
    [
      'a phone without its country code',
      { 'customer.phone': '030 1234567' },
      { field: 'customer.telnocc', code: 'required' },
    ],
  ])('refuses %s', (_, change, expected) => {
    const r = validateRequest('payment', { ...PAYMENT, ...change }, { now: NOW })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContainEqual(expected)
  })

  it('accepts the current month as expiry (a card is good to the end of its month)', () => {
    expect(
      validateRequest('payment', { ...PAYMENT, 'card.expiryMonth': '11', 'card.expiryYear': '2026' }, { now: NOW }).ok,
    ).toBe(true)
  })

  it('never echoes a value in its errors', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...Object.keys(PAYMENT)), fc.string({ minLength: 6 })), (changes) => {
        const r = validateRequest('payment', { ...PAYMENT, ...changes }, { now: NOW })
        const text = JSON.stringify(r.ok ? [] : r.error)
        for (const v of Object.values(changes)) if (!/^[\w.]+$/.test(v)) expect(text).not.toContain(v)
        expect(text).not.toContain('4111111111111111')
      }),
    )
  })
})

describe('flatten', () => {
  it('turns nested JSON into dotted wire names', () => {
    expect(flatten({ card: { number: '4111', cvv: '123' }, customer: { email: 'a@b.co' }, amount: '1.00' })).toEqual({
      'card.number': '4111',
      'card.cvv': '123',
      'customer.email': 'a@b.co',
      amount: '1.00',
    })
  })
})
