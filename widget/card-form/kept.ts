/**
 * @module
 * What the shopper typed besides the card, kept over the bank's step. 3-D Secure takes the top
 * window to the bank's page; a failed step comes back to the shop's page, which loads the checkout
 * again, and the shopper would type their name, email, phone and address once more. So they are
 * kept just before the bank's step and put back once, into the inputs still empty, when the same
 * session shows its form again.
 *
 * Never the card's inputs (`CARD`: number, expiry, CVV), nor a value holding a card number typed
 * where it does not belong (`holdsCard`), and only in the tab's `sessionStorage`: in frame mode
 * the Worker's origin (the browser partitions it by the shop's site), inline the page's, where the
 * shopper typed them (every script of that origin in the tab can read it there). It is taken out
 * when the session is next read in a state not waiting for the bank (put back if its card form is
 * shown, else dropped), and an hour after it was kept it is dropped unread. Browsers keep
 * `sessionStorage` with the tab, also across a session restore or a duplicated tab.
 */
import { CARD } from '../../shared/card-inputs.ts'
import { luhnValid } from '../../shared/card.ts'

const KEY = 'pay-checkout/typed'
/** A bank's step takes minutes: what is older than an hour is dropped unread. */
const KEPT_FOR_MS = 3_600_000

const isCard = (id: string): boolean => CARD.some((s) => s.id === id)
/**
 * A card number in another input (pasted or autofilled there): 12 to 19 digits, spaces and dashes
 * aside, that pass Luhn. The Worker refused free text holding one before any pay reached a bank's
 * step (`containsCardNumber`, which folds every script's digits: 0.3 KB more in these bundles);
 * this keeps what the shopper typed meanwhile, or a phone's digits, out of storage too.
 */
const holdsCard = (value: string): boolean => (value.replace(/[\s().-]/g, '').match(/\d{12,19}/g) ?? []).some(luhnValid)

/** Keeps `values` (by input id) but the card's, for `session`; nothing kept when none is typed. */
export function keepTyped(session: string, values: Readonly<Record<string, string>>): void {
  const kept = Object.entries(values).filter(([id, value]) => value && !isCard(id) && !holdsCard(value))
  try {
    if (kept.length) sessionStorage.setItem(KEY, JSON.stringify([session, Object.fromEntries(kept), Date.now()]))
  } catch {
    // Storage refused (a browser's privacy setting, a full quota): the shopper types them again.
  }
}

/**
 * What was kept for `session`, taken out; else nothing (another session's stays, for an hour).
 * Only this origin's scripts write there (inline, the page's, which has the inputs anyway); the
 * card's inputs are never read from it.
 */
export function takeTyped(session: string): Record<string, string> {
  try {
    const [id, values, at] = JSON.parse(sessionStorage.getItem(KEY) ?? '[]') as [unknown, object, unknown]
    const fresh = typeof at === 'number' && Date.now() - at < KEPT_FOR_MS
    if (id !== session && fresh) return {}
    sessionStorage.removeItem(KEY)
    if (id !== session || !fresh) return {}
    return Object.fromEntries(
      Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string' && !isCard(e[0])),
    )
  } catch {
    return {}
  }
}
