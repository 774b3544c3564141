/**
 * @module
 * The checkout's look, as CSS text: the design tokens, the form look every component shares, the
 * card form's and the checkout's own. The widget's Lit components adopt it (`widget/theme.ts`), and
 * the Worker writes the same text into the card frame's server-rendered form (`worker/frame/`), so
 * the frame's first paint is the form the element would render. Merchants theme through the CSS
 * custom properties (documented on `<pay-checkout>`), which inherit into every shadow root.
 * Colours meet WCAG AA contrast in both themes.
 */

/**
 * CSS text without comments and indentation, and no spaces around `{ } ; , >` or after `:`: the
 * build does this to every style sheet of the widget's, the Worker to the frame's.
 */
export function minifyCss(text: string): string {
  return (
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/\s*([{};,>])\s*/g, '$1')
      .replace(/:\s+/g, ':')
      .replace(/;}/g, '}')
      // A number's leading zero (`0.5rem` is `.5rem`), and white as three digits.
      .replace(/(^|[^\w.#-])0\.(\d)/g, '$1.$2')
      .replace(/#ffffff\b/gi, '#fff')
  )
}

/** Marks CSS text (the build minifies what it tags: vite.config.ts, `minifyTemplates`). */
const css = String.raw

export const TOKENS = css`
  :host {
    --_accent: var(--pay-accent, #0b57d0);
    --_accent-text: var(--pay-accent-text, #ffffff);
    --_bg: var(--pay-bg, #ffffff);
    --_text: var(--pay-text, #1b1b1f);
    --_muted: var(--pay-muted, #4a4a52);
    --_border: var(--pay-border, #767680);
    --_error: var(--pay-error, #b3261e);
    --_success: var(--pay-success, #146c2e);
    --_radius: var(--pay-radius, 8px);
    --_font: var(--pay-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    --_gap: var(--pay-spacing, 0.75rem);
    --_focus: var(--pay-focus, #0b57d0);
    color: var(--_text);
    font-family: var(--_font);
  }
`

export const FORM = css`
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  form {
    display: grid;
    gap: var(--_gap);
  }
  .row {
    display: grid;
    align-items: start;
    gap: var(--_gap);
    grid-template-columns: repeat(auto-fit, minmax(8rem, 1fr));
  }
  .field {
    display: grid;
    align-content: start;
    min-width: 0;
  }
  .field > * + * {
    margin-top: 0.25rem;
  }
  .below {
    display: grid;
    gap: 0.25rem;
    align-content: start;
  }
  /* Fields side by side share their two rows (the label; the input with its hint and error), so a
     label that wraps on a narrow screen moves every input of the row down together. */
  .row > .field {
    grid-row: span 2;
    grid-template-rows: subgrid;
    row-gap: 0;
  }
  .row > .field > label {
    align-self: end;
  }
  label {
    font-size: 0.875rem;
    font-weight: 600;
  }
  .control {
    position: relative;
    display: flex;
    align-items: center;
  }
  input,
  select {
    width: 100%;
    min-height: 2.75rem;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_bg);
    color: var(--_text);
    font: inherit;
    font-size: 1rem;
  }
  input:focus-visible,
  select:focus-visible,
  button:focus-visible,
  a:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  input[aria-invalid='true'],
  select[aria-invalid='true'] {
    border-color: var(--_error);
    border-width: 2px;
  }
  .error {
    color: var(--_error);
    font-size: 0.875rem;
    margin: 0;
  }
  .hint {
    color: var(--_muted);
    font-size: 0.8125rem;
    margin: 0;
  }
  /* A transparent border, not none: forced colors (high contrast) draw it, where the background
     that marks a button goes. */
  button,
  .button {
    min-height: 2.75rem;
    padding: 0.6rem 1rem;
    border: 1px solid #0000;
    border-radius: var(--_radius);
    background: var(--_accent);
    color: var(--_accent-text);
    font: inherit;
    font-weight: 600;
    font-size: 1rem;
    cursor: pointer;
    text-align: center;
    text-decoration: none;
  }
  button[disabled] {
    opacity: 0.6;
    cursor: progress;
  }
  button.secondary {
    background: transparent;
    color: var(--_accent);
    border: 1px solid var(--_accent);
  }
  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    display: grid;
    gap: var(--_gap);
  }
  legend {
    font-weight: 600;
    padding: 0;
    margin-bottom: 0.25rem;
  }
`

/** The busy indicator beside "Processing…" and in a busy button (in reduced motion it pulses, still). */
export const SPINNER = css`
  .spinner {
    display: inline-block;
    width: 1em;
    height: 1em;
    margin-inline-end: 0.5em;
    vertical-align: -0.15em;
    border: 2px solid currentColor;
    border-right-color: transparent;
    border-radius: 50%;
    animation: pay-spin 0.8s linear infinite;
  }
  @keyframes pay-spin {
    to {
      transform: rotate(360deg);
    }
  }
  @keyframes pay-pulse {
    50% {
      opacity: 0.3;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .spinner {
      animation: pay-pulse 2.4s infinite;
    }
  }
`

/** The card form's own. */
export const CARD_FORM = css`
    :host {
      display: block;
    }
    /* The card number input is left to right in every locale, so its brand icon stays on its right. */
    .brand {
      position: absolute;
      right: 0.75rem;
      display: flex;
      pointer-events: none;
    }
    .brand svg {
      display: block;
      border-radius: 3px;
      box-shadow: 0 0 0 1px rgb(0 0 0 / 0.15);
    }
    #number {
      padding-right: 3.5rem;
    }
    .phone {
      grid-template-columns: minmax(7.5rem, 2fr) minmax(8rem, 3fr);
    }
    /* The form's own width decides, in the frame and inline alike: on a phone, the phone code and
       the number one above the other, so neither runs past the box (320 px) and the code's country
       and number show whole (360 px showed "United Ki"). */
    form {
      container-type: inline-size;
    }
    @container (max-width: 26rem) {
      .phone {
        grid-template-columns: 1fr;
      }
    }
  `

/** Dark tokens are set as --pay-* on the host, so a merchant's own --pay-* values still win. */
const DARK = css`
  --pay-bg: #1b1b1f;
  --pay-text: #e4e2e6;
  --pay-muted: #c7c5d0;
  --pay-border: #918f9a;
  --pay-accent: #a8c7fa;
  --pay-accent-text: #062e6f;
  --pay-error: #ffb4ab;
  --pay-success: #6dd58c;
  --pay-focus: #a8c7fa;
`

/** The checkout's own: its container, amount, badge and status, and the dark theme. */
export const CHECKOUT = css`
    :host {
      display: block;
      max-width: 32rem;
    }
    :host([theme='dark']) {
      ${DARK}
    }
    @media (prefers-color-scheme: dark) {
      :host([theme='auto']) {
        ${DARK}
      }
    }
    .container {
      background: var(--_bg);
      color: var(--_text);
      border: 1px solid var(--_border);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) * 1.5);
      display: grid;
      gap: var(--_gap);
    }
    .head {
      display: flex;
      align-items: center;
      justify-content: space-between;
      gap: var(--_gap);
      flex-wrap: wrap;
    }
    .badge {
      padding: 0.125rem 0.5rem;
      border-radius: 999px;
      background: #fff3c4;
      color: #5c4300;
      font-size: 0.75rem;
      font-weight: 700;
      text-transform: uppercase;
      letter-spacing: 0.04em;
    }
    .amount {
      font-size: 1.5rem;
      font-weight: 700;
      margin: 0;
    }
    .status {
      margin: 0;
      min-height: 1.25em;
    }
    .status:empty {
      display: none;
    }
    .status.succeeded {
      color: var(--_success);
      font-weight: 600;
    }
    .status.declined,
    .status.error,
    .status.blocked,
    .status.expired {
      color: var(--_error);
      font-weight: 600;
    }
    .saved {
      margin: 0;
      font-weight: 600;
    }
  `
