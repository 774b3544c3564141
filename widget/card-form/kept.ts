/**
 * @module
 * What the shopper typed besides the card, kept over the bank's step. 3-D Secure takes the top
 * window to the bank's page; a failed step comes back to the shop's page, which loads the checkout
 * again, and the shopper would type their name, email, phone and address once more. So they are
 * kept just before the bank's step and put back once, into the inputs still empty, when the same
 * session shows its form again.
 *
 * Never the card's inputs (`CARD`: number, expiry, CVV), and only in the tab's `sessionStorage`:
 * in frame mode the Worker's origin (the browser partitions it by the shop's site), inline the
 * page's, where the shopper typed them. It is taken out when the session is next read in a state
 * not waiting for the bank (paid, declined, over), and the browser drops it with the tab.
 */
import { CARD } from '../../shared/card-inputs.ts'

const KEY = 'pay-checkout/typed'

/** Keeps `values` (by input id) but the card's, for `session`; nothing kept when none is typed. */
export function keepTyped(session: string, values: Readonly<Record<string, string>>): void {
  const kept = Object.entries(values).filter(([id, value]) => value && !CARD.some((s) => s.id === id))
  try {
    if (kept.length) sessionStorage.setItem(KEY, JSON.stringify([session, Object.fromEntries(kept)]))
  } catch {
    // Storage refused (a browser's privacy setting, a full quota): the shopper types them again.
  }
}

/**
 * What was kept for `session`, taken out; else nothing (another session's stays). Only this
 * origin's scripts write there (inline, the page's, which has the inputs anyway): a value is put
 * into the input of its id, as typing would.
 */
export function takeTyped(session: string): Record<string, string> {
  try {
    const [id, values] = JSON.parse(sessionStorage.getItem(KEY) ?? '[]') as [unknown, Record<string, unknown>]
    if (id !== session) return {}
    sessionStorage.removeItem(KEY)
    return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'))
  } catch {
    return {}
  }
}
