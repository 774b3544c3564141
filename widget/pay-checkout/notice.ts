/**
 * @module
 * What `<pay-checkout>` shows itself, outside the checkout: its few styles (the frame, the picker's
 * place) and the notice when the frame cannot be shown, in the shopper's language when its
 * messages can be loaded (they come from the Worker's origin, which may be the very thing that
 * cannot be reached), else in English.
 */
const DARK = '--pay-bg:#1b1b1f;--pay-text:#e4e2e6;--pay-border:#918f9a;--pay-error:#ffb4ab;--pay-accent:#a8c7fa'
const STYLES = `:host{display:block;max-width:32rem}
:host([hidden]){display:none}
:host([theme=dark]){${DARK}}
@media (prefers-color-scheme:dark){:host([theme=auto]){${DARK}}}
iframe,::slotted(iframe){display:block;width:100%;border:0;transition:height .15s}
iframe[hidden],::slotted(iframe[hidden]){display:none}
pay-method-picker{margin-bottom:.75rem}
.notice{margin:0;padding:1rem;border:1px solid var(--pay-border,#767680);border-radius:var(--pay-radius,8px);background:var(--pay-bg,#fff);color:var(--pay-error,#b3261e);font:600 1rem var(--pay-font,system-ui,sans-serif)}
.notice button{display:block;margin-top:.75rem;min-height:2.75rem;padding:0 1rem;border:0;border-radius:var(--pay-radius,8px);background:var(--pay-accent,#0b57d0);color:var(--pay-on-accent,#fff);font:600 1rem var(--pay-font,system-ui,sans-serif);cursor:pointer}`

/** The element's own two messages in English, for when the localised ones cannot be loaded. */
const FALLBACK = {
  originNotAllowed:
    'This payment form cannot be shown on this page. Please contact the shop, or pay on its own website.',
  networkError: 'We could not reach the payment service. Check your internet connection and try again.',
  tryAgain: 'Try again',
}

let sheet: CSSStyleSheet | undefined
/** The element's style sheet, made once and shared by every element of the page. */
export function styleSheet(): CSSStyleSheet {
  sheet ??= new CSSStyleSheet()
  if (!sheet.cssRules.length) sheet.replaceSync(STYLES)
  return sheet
}

/** Shows the notice in `root` (replacing one shown before); a network error gets a way to try again. */
export async function showNotice(
  root: ShadowRoot,
  code: 'origin_not_allowed' | 'network_error',
  locale: string,
  retry: () => void,
): Promise<void> {
  const key = code === 'origin_not_allowed' ? 'originNotAllowed' : 'networkError'
  let text = FALLBACK[key]
  let again = FALLBACK.tryAgain
  try {
    const { loadMessages, resolveLocale } = await import('../inline/pay-checkout-inline.ts')
    const messages = await loadMessages(resolveLocale([locale]))
    text = messages[key]
    again = messages.tryAgain
  } catch {
    // keep the English text
  }
  root.querySelector('.notice')?.remove()
  const notice = document.createElement('div')
  notice.className = 'notice'
  // English or the shopper's language, which may read right to left: the text decides.
  notice.dir = 'auto'
  const p = document.createElement('p')
  p.style.margin = '0'
  p.setAttribute('part', 'status')
  p.setAttribute('role', 'alert')
  p.textContent = text
  notice.append(p)
  if (code === 'network_error') {
    // The Worker may be back a moment later: a way to try again without reloading the page.
    const button = document.createElement('button')
    button.type = 'button'
    button.setAttribute('part', 'retry')
    button.textContent = again
    button.addEventListener('click', retry)
    notice.append(button)
  }
  root.append(notice)
}
