/**
 * @module
 * The Worker's own result page (`/v1/return/{id}` when the merchant named no `returnUrl`): what
 * happened to the money, whatever came back (a session after 3-D Secure or a hosted page, an
 * invoice regenerated through the merchant route), in the shopper's language, with a link back.
 */
import { parseAccept } from 'hono/utils/accept'
import { direction, resolveLocale } from '../../shared/locales.ts'
import type { OpStatus } from '../sessions/merchant-operation.ts'
import type { Status } from '../sessions/types.ts'
import { RESULT_WORDS, type MoneyState } from './words.ts'

/**
 * A state of the thing that returned, read as what it means for the money: a regenerated invoice
 * (`succeeded` of the operation) is not a payment, a paid one is.
 */
export const SESSION_MONEY: Readonly<Record<Status, MoneyState>> = {
  succeeded: 'paid',
  declined: 'declined',
  failed: 'failed',
  expired: 'expired',
  open: 'not_paid',
  processing: 'confirming',
  action_required: 'confirming',
  pending: 'confirming',
  unknown: 'confirming',
}

export const INVOICE_MONEY: Readonly<Record<OpStatus, MoneyState>> = {
  paid: 'paid',
  declined: 'declined',
  // Regenerated, and no payment of it heard of yet.
  succeeded: 'not_paid',
  failed: 'failed',
  expired: 'expired',
  processing: 'confirming',
  pending: 'confirming',
  unknown: 'confirming',
}

const TONE: Readonly<Record<MoneyState, 'ok' | 'bad' | 'wait'>> = {
  paid: 'ok',
  declined: 'bad',
  failed: 'bad',
  expired: 'bad',
  not_paid: 'wait',
  confirming: 'wait',
}

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/**
 * The shopper's languages from their browser's `Accept-Language`, most preferred first (the page
 * is theirs, after the bank's step; nothing else of theirs reaches this route). Hono's parser, as
 * its language middleware reads the header (stable for equal weights).
 */
export const acceptedLanguages = (header: string | undefined): string[] =>
  parseAccept(header ?? '')
    .filter((l) => l.type !== '*' && l.q > 0)
    .map((l) => l.type)

/** The page: the state's heading and sentence in the shopper's language, styled, and a way back. */
export function resultPage(status: MoneyState, back: string | undefined, languages: readonly string[]): string {
  const locale = resolveLocale(languages)
  const words = RESULT_WORDS[locale]
  const [title, text] = words.states[status]
  const tone = TONE[status]
  const link = back
    ? `<a class="back" href="${escape(back)}">${escape(words.back)}</a>`
    : `<p class="hint">${escape(words.close)}</p>`
  return `<!doctype html><html lang="${locale}" dir="${direction(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><link rel="icon" href="data:,">
<style>
:root{color-scheme:light dark;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f4f4f6;color:#1b1b1f}
main{max-width:28rem;margin:1rem;padding:2rem;border-radius:12px;background:#fff;box-shadow:0 1px 3px rgb(0 0 0/.15);display:grid;gap:1rem}
h1{margin:0;font-size:1.375rem}.ok h1{color:#146c2e}.bad h1{color:#b3261e}.wait h1{color:#0b57d0}
p{margin:0;line-height:1.5}.hint{color:#4a4a52}
.back{justify-self:start;padding:.7rem 1.1rem;border-radius:8px;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none}
.back:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
@media (prefers-color-scheme:dark){body{background:#121214;color:#e4e2e6}main{background:#1b1b1f}.ok h1{color:#6dd58c}.bad h1{color:#ffb4ab}.wait h1,.hint{color:#a8c7fa}.back{background:#a8c7fa;color:#062e6f}}
@media (forced-colors:active){.back{border:1px solid LinkText}}
</style></head>
<body><main class="${tone}" data-status="${escape(status)}"><h1>${escape(title)}</h1><p>${escape(text)}</p>${link}</main></body></html>`
}
