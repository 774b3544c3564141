/**
 * @module
 * A locale ships as two chunks: the card flow's messages, and those only the other ways to pay
 * show (QR wallet, invoice, the method picker), loaded only for sessions that offer them. So a
 * card checkout downloads only what it shows, and each chunk stays within 1.2 KB brotli
 * (test/build/locales.test.ts). The translator still writes one file per locale. English is
 * split the same way, and the built English's keys name the lines of each locale's chunks: this
 * list is read by the build and the tests, not downloaded.
 */
import type { MessageKey } from './messages/en.ts'

export const MORE_KEYS: readonly MessageKey[] = [
  'walletId',
  'continue',
  'scanQr',
  'merchantWalletId',
  'copy',
  'copied',
  'timeLeft',
  'confirmQr',
  'walletDeclined',
  'walletDeclinedRetry',
  'walletDeclinedFinal',
  'qrWithdrawn',
  'qrExpired',
  'invoiceTitle',
  'amount',
  'created',
  'expires',
  'invoiceExpired',
  'regenerate',
  'payInvoice',
  'invoiceReady',
  'invoiceDeclined',
  'methodsLabel',
  'methodCard',
  'methodSavedCard',
  'methodQr',
  'methodInvoice',
  'methodUnderWay',
  'err_method_in_progress',
]
