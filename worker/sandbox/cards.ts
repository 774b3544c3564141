/**
 * @module
 * The sandbox's test cards and wallet ids: what each one makes the sandbox do.
 * Any future expiry and any CVV of the brand's length work with every card.
 */

export type Behaviour = 'succeed' | 'decline' | 'three_ds' | 'pending' | 'http500' | 'slow'

export const TEST_CARDS: Readonly<Record<string, Behaviour>> = {
  '4111111111111111': 'succeed',
  '5555555555554444': 'succeed',
  '378282246310005': 'succeed',
  '4000000000000002': 'decline',
  '4000000000003220': 'three_ds',
  '4000000000000259': 'pending',
  '4000000000000119': 'http500',
  '4000000000009995': 'slow',
}

/** Any other valid card number succeeds, as in most gateway sandboxes. */
export function behaviourOf(cardNumber: string): Behaviour {
  return TEST_CARDS[cardNumber] ?? 'succeed'
}

export const WALLETS = { ok: 'wallet-ok', declined: 'wallet-declined' } as const
