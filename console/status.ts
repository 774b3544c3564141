/**
 * @module
 * A status (of a payment, an operation, an attempt or a webhook delivery) as a badge whose colour
 * says good, waiting or bad, and whose words say the same.
 */
import { html } from 'lit'

const TONE: Record<string, 'ok' | 'warn' | 'error'> = {
  captured: 'ok',
  succeeded: 'ok',
  delivered: 'ok',
  authorized: 'warn',
  processing: 'warn',
  pending: 'warn',
  partially_refunded: 'warn',
  action_required: 'warn',
  unknown: 'warn',
  refunded: 'error',
  voided: 'error',
  declined: 'error',
  failed: 'error',
  failing: 'error',
  refused: 'error',
}

export const statusBadge = (status: string) =>
  html`<span class="badge ${TONE[status] ?? ''}">${status.replaceAll('_', ' ')}</span>`
