/**
 * What the component tests give the components instead of a session: a checkout view as the
 * Worker would send it (no Worker runs), and every English message (the card flow's and the
 * others', as the checkout loads them for a session with QR, invoice or several methods).
 */
import type { CheckoutView } from '../../../shared/checkout.ts'
import { loadMessages, type Messages } from '../../../widget/i18n/index.ts'

export const messages = (): Promise<Messages> => loadMessages('en', true)

export function view(over: Partial<CheckoutView> = {}): CheckoutView {
  return {
    id: 'cs_000000000000000000000000',
    flow: 'card',
    methods: ['card'],
    method: null,
    status: 'open',
    amount: '49.00',
    currency: 'EUR',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    attemptsRemaining: 3,
    savedCard: null,
    invoice: null,
    qr: null,
    customer: null,
    result: null,
    redirect: null,
    ...over,
  }
}
