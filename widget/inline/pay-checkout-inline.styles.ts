import { css } from 'lit'
import { formStyles, spinner, tokens } from '../theme.ts'

/** Dark tokens are set as --pay-* on the host, so a merchant's own --pay-* values still win. */
const dark = css`
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

export const payCheckoutStyles = [
  tokens,
  formStyles,
  spinner,
  css`
    :host {
      display: block;
      max-width: 32rem;
    }
    :host([theme='dark']) {
      ${dark}
    }
    @media (prefers-color-scheme: dark) {
      :host([theme='auto']) {
        ${dark}
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
  `,
]
