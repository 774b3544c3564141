/**
 * @module
 * `<pay-method-picker>`: the shopper's choice among the ways a session offers to pay, as a WAI-ARIA
 * radio group (one choice, selection follows focus): a roving tabindex puts one stop in the tab
 * order, the arrow keys move and choose (wrapping), Home and End go to the first and last, Space
 * (or Enter) chooses the focused one. Once a method has a payment under way or done, it is the one
 * chosen, the others are disabled (`aria-disabled`, skipped by the keys) and a note says why: the
 * note is in a live region (`role="status"`, always in the page so that its text is announced when
 * it appears) and describes the group (`aria-describedby`).
 *
 * It fires the public `pay-change` (`detail: { method }`) when the choice changes; the checkout
 * that holds it (inline, or the frame host) shows that method, loading its code only then.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import { PayChangeEvent } from '../events.ts'
import { en, format, type MessageKey, type Messages } from '../i18n/index.ts'
import { tokens } from '../theme.ts'

const LABELS: Readonly<Record<CheckoutFlow, MessageKey>> = {
  card: 'methodCard',
  'saved-card': 'methodSavedCard',
  qr: 'methodQr',
  invoice: 'methodInvoice',
}

/**
 * @summary The choice of a payment method.
 * @csspart methods - The group of methods.
 * @csspart method - Each method.
 * @csspart method-note - The note saying which method is under way.
 */
export class PayMethodPicker extends LitElement {
  static override styles = [
    tokens,
    css`
      :host {
        display: block;
      }
      [role='radiogroup'] {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      [role='radio'] {
        display: inline-flex;
        align-items: center;
        gap: 0.5rem;
        padding: 0.5rem 0.875rem;
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        background: var(--_bg);
        color: var(--_text);
        font: inherit;
        cursor: pointer;
        user-select: none;
      }
      [role='radio'][aria-checked='true'] {
        border-color: var(--_accent);
        box-shadow: inset 0 0 0 1px var(--_accent);
        font-weight: 600;
      }
      [role='radio'][aria-disabled='true'] {
        cursor: not-allowed;
        border-style: dashed;
      }
      [role='radio']:focus-visible {
        outline: 2px solid var(--_focus);
        outline-offset: 2px;
      }
      .dot {
        width: 0.875rem;
        height: 0.875rem;
        border: 2px solid var(--_border);
        border-radius: 50%;
        flex: none;
      }
      [aria-checked='true'] .dot {
        border-color: var(--_accent);
        background: radial-gradient(var(--_accent) 45%, transparent 50%);
      }
      .note {
        margin: 0.5rem 0 0;
      }
      /* Forced colors (high contrast) drop backgrounds and shadows: the chosen method keeps a dot
         and a thicker border in the system's colors. */
      @media (forced-colors: active) {
        [aria-checked='true'] {
          border-width: 2px;
        }
        [aria-checked='true'] .dot {
          forced-color-adjust: none;
          border-color: Highlight;
          background: radial-gradient(Highlight 45%, Canvas 50%);
        }
      }
    `,
  ]
  static override properties = {
    methods: { attribute: false },
    selected: {},
    locked: {},
    messages: { attribute: false },
  }

  /** The methods offered, in the session's order. */
  declare methods: readonly CheckoutFlow[]
  /** The method shown. */
  declare selected: CheckoutFlow
  /** The method whose payment is under way or done: the only one that may be chosen. */
  declare locked: CheckoutFlow | null
  declare messages: Messages

  constructor() {
    super()
    this.methods = []
    this.selected = 'card'
    this.locked = null
    this.messages = en
  }

  private label(m: CheckoutFlow): string {
    return format(this.messages, LABELS[m])
  }

  private enabled(m: CheckoutFlow): boolean {
    return this.locked === null || this.locked === m
  }

  /** Chooses a method (if it may be chosen) and moves focus to it, as a radio group does. */
  private async choose(m: CheckoutFlow, focus: boolean): Promise<void> {
    if (!this.enabled(m)) return
    if (m !== this.selected) {
      this.selected = m
      this.dispatchEvent(new PayChangeEvent({ valid: false, brand: null, method: m }))
    }
    if (focus) {
      await this.updateComplete
      this.renderRoot.querySelector<HTMLElement>(`[data-method='${m}']`)?.focus()
    }
  }

  private onKey(e: KeyboardEvent): void {
    const enabled = this.methods.filter((m) => this.enabled(m))
    if (enabled.length === 0) return
    const at = Math.max(0, enabled.indexOf((e.target as HTMLElement).dataset.method as CheckoutFlow))
    // Arrow keys follow the reading direction in a right-to-left layout.
    const rtl = getComputedStyle(this).direction === 'rtl'
    const step: Record<string, number> = {
      ArrowDown: 1,
      ArrowUp: -1,
      ArrowRight: rtl ? -1 : 1,
      ArrowLeft: rtl ? 1 : -1,
    }
    let next: CheckoutFlow | undefined
    if (e.key in step) next = enabled[(at + (step[e.key] ?? 0) + enabled.length) % enabled.length]
    else if (e.key === 'Home') next = enabled[0]
    else if (e.key === 'End') next = enabled[enabled.length - 1]
    else if (e.key === ' ' || e.key === 'Enter') next = (e.target as HTMLElement).dataset.method as CheckoutFlow
    if (!next) return
    e.preventDefault()
    void this.choose(next, true)
  }

  protected override render(): TemplateResult {
    const note =
      this.locked && this.methods.length > 1 ? format(this.messages, 'methodUnderWay', { method: this.locked }) : ''
    return html`<div role="radiogroup" part="methods" aria-label=${format(this.messages, 'methodsLabel')} aria-describedby=${note ? 'method-note' : nothing} @keydown=${this.onKey}>
        ${this.methods.map((m) => {
          const checked = m === this.selected
          return html`<div
            role="radio"
            part="method"
            data-method=${m}
            aria-checked=${checked ? 'true' : 'false'}
            aria-disabled=${this.enabled(m) ? nothing : 'true'}
            tabindex=${checked ? '0' : '-1'}
            @click=${() => void this.choose(m, true)}
          >
            <span class="dot" aria-hidden="true"></span>${this.label(m)}
          </div>`
        })}
      </div>
      <div role="status" id="method-note">${note ? html`<p class="note" part="method-note">${note}</p>` : nothing}</div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-method-picker': PayMethodPicker
  }
}

if (!customElements.get('pay-method-picker')) customElements.define('pay-method-picker', PayMethodPicker)
