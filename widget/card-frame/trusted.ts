/**
 * @module
 * Markup of our own (the card form's template, a brand's mark), as a Trusted Types value where the
 * page enforces them: a merchant page whose CSP has `require-trusted-types-for 'script'` allows the
 * policy `pay-checkout` (README, "Embedding"), and `innerHTML` then takes only what this policy
 * made. Without Trusted Types the text goes as it is. The light inline form uses it (the card frame's
 * CSP does not ask for them, so the frame's script does not carry it).
 */

interface Policy {
  createHTML(text: string): unknown
}
interface TrustedTypes {
  createPolicy(name: string, rules: { createHTML(text: string): string }): Policy
}

let policy: Policy | null | undefined

/** The markup for `innerHTML`: never text the shopper typed or the page sent. */
export function trustedHtml(markup: string): string {
  if (policy === undefined) {
    try {
      const tt = (globalThis as { trustedTypes?: TrustedTypes }).trustedTypes
      policy = tt ? tt.createPolicy('pay-checkout', { createHTML: (text) => text }) : null
    } catch {
      // The page's CSP does not allow the policy: the assignment will say so in its console.
      policy = null
    }
  }
  return (policy ? policy.createHTML(markup) : markup) as string
}
