import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import vectors from '../fixtures/checksum-vectors.json' with { type: 'json' }

// The vectors the Worker's checksum tests use must themselves be right: recompute each with
// node:crypto from the inputs, in the order the spec gives for its rule.
const ORDER: Record<string, string[]> = {
  payment: ['memberId', 'secureKey', 'merchantTransactionId', 'amount'],
  registration: ['memberId', 'secureKey', 'registrationId', 'amount'],
  paymentId: ['memberId', 'secureKey', 'paymentId', 'amount'],
  invoice: ['invoiceId', 'memberId', 'secureKey', 'merchantRedirectUrl'],
  inquiry: ['memberId', 'secureKey', 'id'],
  notification: ['paymentId', 'merchantTransactionId', 'amount', 'transactionStatus', 'secureKey'],
  invoiceGenerate: ['memberId', 'secureKey', 'merchantInvoiceId', 'amount'],
}

describe('checksum known-answer vectors (fixture)', () => {
  it.each(vectors.vectors.map((v) => [v.rule, v.note, v] as const))('%s: %s', (rule, _note, v) => {
    const inputs = v.inputs as unknown as Record<string, string>
    const input = (ORDER[rule] ?? []).map((k) => inputs[k]).join('|')
    expect(input).toBe(v.input)
    expect(createHash('md5').update(input, 'utf8').digest('hex')).toBe(v.md5)
  })

  it('covers every rule, a JPY amount, an amount like 1000.00 and a digest with leading zeros', () => {
    expect(new Set(vectors.vectors.map((v) => v.rule))).toEqual(new Set(Object.keys(ORDER)))
    expect(vectors.vectors.some((v) => v.input.endsWith('|1000.00'))).toBe(true)
    expect(vectors.vectors.some((v) => v.note.includes('JPY'))).toBe(true)
    expect(vectors.vectors.some((v) => v.md5.startsWith('00'))).toBe(true)
  })
})
