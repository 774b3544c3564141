/**
 * @module
 * The console's look: design tokens, declared once on `<pay-console>` and inherited by every view
 * (light, and dark with the system's preference or `?theme=dark`, the element's `theme`), and the
 * table, form and badge styles every view shares.
 * Colours meet WCAG AA contrast in both themes (axe checks every view).
 */
import { css } from 'lit'

/** The dark theme's colours (contrast checked by axe in dark too). */
const dark = css`
  --c-bg: #131316;
  --c-surface: #1e1f24;
  --c-text: #e4e2e6;
  --c-muted: #c7c6ca;
  --c-border: #5d5e66;
  --c-accent: #a8c7fa;
  --c-accent-text: #062e6f;
  --c-ok: #6dd58c;
  --c-warn: #ffb95c;
  --c-error: #ffb4ab;
  --c-focus: #a8c7fa;
`

export const tokens = css`
  :host {
    --c-bg: #ffffff;
    --c-surface: #f4f5f8;
    --c-text: #1b1b1f;
    --c-muted: #4a4a52;
    --c-border: #c4c6d0;
    --c-accent: #0b57d0;
    --c-accent-text: #ffffff;
    --c-ok: #146c2e;
    --c-warn: #8a5300;
    --c-error: #b3261e;
    --c-focus: #0b57d0;
    color: var(--c-text);
    font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${dark}
    }
  }
  :host([theme='dark']) {
    ${dark}
  }
`

export const shared = css`
  :host {
    display: block;
  }
  * {
    box-sizing: border-box;
  }
  .pager {
    display: flex;
    justify-content: space-between;
    margin-top: 1rem;
  }
  .empty {
    padding: 2rem 0;
    text-align: center;
  }
  :focus-visible {
    outline: 2px solid var(--c-focus);
    outline-offset: 2px;
  }
  h1,
  h2,
  h3 {
    line-height: 1.2;
    margin: 0 0 0.75rem;
  }
  h2 {
    font-size: 1.25rem;
  }
  h3 {
    font-size: 1.05rem;
  }
  a {
    color: var(--c-accent);
  }
  .muted {
    color: var(--c-muted);
  }
  button,
  input,
  select {
    font: inherit;
    color: inherit;
  }
  input,
  select {
    background: var(--c-bg);
    border: 1px solid var(--c-border);
    border-radius: 6px;
    padding: 0.45rem 0.6rem;
    min-height: 2.5rem;
    width: 100%;
  }
  label {
    display: grid;
    gap: 0.25rem;
    font-size: 0.875rem;
    color: var(--c-muted);
  }
  button {
    cursor: pointer;
    border-radius: 6px;
    border: 1px solid var(--c-border);
    background: var(--c-surface);
    padding: 0.45rem 0.9rem;
    min-height: 2.5rem;
  }
  button.primary {
    background: var(--c-accent);
    border-color: var(--c-accent);
    color: var(--c-accent-text);
  }
  button.danger {
    border-color: var(--c-error);
    color: var(--c-error);
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.6;
  }
  .card {
    background: var(--c-surface);
    border: 1px solid var(--c-border);
    border-radius: 10px;
    padding: 1rem;
  }
  .badge {
    display: inline-block;
    border: 1px solid currentColor;
    border-radius: 999px;
    padding: 0 0.5rem;
    font-size: 0.8rem;
    white-space: nowrap;
  }
  .ok {
    color: var(--c-ok);
  }
  .warn {
    color: var(--c-warn);
  }
  .error {
    color: var(--c-error);
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    text-align: start;
    padding: 0.5rem;
    border-bottom: 1px solid var(--c-border);
    vertical-align: top;
  }
  th {
    font-size: 0.8rem;
    color: var(--c-muted);
    font-weight: 600;
  }
  .num {
    text-align: end;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  .ltr {
    direction: ltr;
    unicode-bidi: isolate;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  /* At phone widths a table's rows become cards: each cell on its own line, named by its column. */
  @media (max-width: 640px) {
    table.rows thead {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
    }
    table.rows tr {
      display: grid;
      grid-template-columns: 1fr 1fr;
      gap: 0.25rem 0.75rem;
      padding: 0.75rem 0;
      border-bottom: 1px solid var(--c-border);
    }
    table.rows td {
      border: 0;
      padding: 0;
      text-align: start;
      /* A long reference (a repeat's rp-…) breaks rather than widening the page. */
      min-width: 0;
      overflow-wrap: anywhere;
    }
    table.rows td::before {
      content: attr(data-label);
      display: block;
      font-size: 0.75rem;
      color: var(--c-muted);
    }
  }
`
