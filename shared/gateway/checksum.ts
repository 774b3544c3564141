/**
 * @module
 * The gateway's MD5 checksums. MD5 is weak and is used here only because the gateway requires it
 * (SECURITY.md R8): this module, and the sandbox that checks it, are the only places that name it.
 *
 * Each rule lists its inputs in the gateway's order; they are joined with `|`. A part containing
 * `|` would shift the boundaries (a forged `merchantTransactionId` of `a|9.99` could stand for
 * another amount), so building refuses it rather than signing it.
 */
import { toHex } from '../hex.ts'
import { err, ok, type Result } from '../result.ts'

/** Which values go into each checksum, in order (spec table + facts sheet). */
export const CHECKSUM_RULES = {
  /** Initial card payment: memberId|secureKey|merchantTransactionId|amount. */
  payment: ['memberId', 'secureKey', 'merchantTransactionId', 'amount'],
  /** Pay with a registration (initial or repeat): memberId|secureKey|registrationId|amount. */
  registration: ['memberId', 'secureKey', 'registrationId', 'amount'],
  /** Repeat by an earlier payment's id (also capture and refund): memberId|secureKey|paymentId|amount. */
  paymentId: ['memberId', 'secureKey', 'paymentId', 'amount'],
  /** Regenerate an invoice: invoiceId|memberId|secureKey|merchantRedirectUrl (the plain URL). */
  invoice: ['invoiceId', 'memberId', 'secureKey', 'merchantRedirectUrl'],
  /** Reversal (void) of an authorisation: memberId|secureKey|paymentId. */
  reversal: ['memberId', 'secureKey', 'paymentId'],
  /** Deletion of a registration (stored card): memberId|secureKey|registrationId. */
  deregistration: ['memberId', 'secureKey', 'registrationId'],
  /** Status inquiry: memberId|secureKey|id (paymentId or merchantTransactionId). */
  inquiry: ['memberId', 'secureKey', 'id'],
  /** Notification and browser return: paymentId|merchantTransactionId|amount|transactionStatus|secureKey. */
  notification: ['paymentId', 'merchantTransactionId', 'amount', 'transactionStatus', 'secureKey'],
  /** Sandbox-only invoice creation, by analogy with the initial payment: memberId|secureKey|merchantInvoiceId|amount. */
  invoiceGenerate: ['memberId', 'secureKey', 'merchantInvoiceId', 'amount'],
} as const

export type ChecksumRule = keyof typeof CHECKSUM_RULES
export type ChecksumInputs<R extends ChecksumRule> = Record<(typeof CHECKSUM_RULES)[R][number], string>

export type ChecksumError = { readonly input: string; readonly code: 'required' | 'format' }

/** The `|`-joined input string of a rule, or which input is missing or holds a `|`. */
export function checksumInput<R extends ChecksumRule>(
  rule: R,
  inputs: ChecksumInputs<R>,
): Result<string, ChecksumError> {
  const parts: string[] = []
  for (const name of CHECKSUM_RULES[rule]) {
    const value = (inputs as Record<string, string | undefined>)[name]
    if (value === undefined || value === '') return err({ input: name, code: 'required' })
    if (value.includes('|')) return err({ input: name, code: 'format' })
    parts.push(value)
  }
  return ok(parts.join('|'))
}

/** Lowercase hex MD5 of a UTF-8 string, left-padded to 32 characters (the digest always is 16 bytes). */
export async function md5Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('MD5', new TextEncoder().encode(text))).padStart(32, '0')
}

/** The checksum of a rule, or why its inputs cannot be signed. */
export async function checksum<R extends ChecksumRule>(
  rule: R,
  inputs: ChecksumInputs<R>,
): Promise<Result<string, ChecksumError>> {
  const input = checksumInput(rule, inputs)
  return input.ok ? ok(await md5Hex(input.value)) : input
}
