import { css } from 'lit'

export const shellStyles = css`
  :host {
    display: block;
    min-height: 100vh;
    background: var(--c-bg);
  }
  header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem 1rem;
    padding: 0.75rem 1rem;
    border-bottom: 1px solid var(--c-border);
    background: var(--c-surface);
  }
  .brand {
    font-weight: 700;
  }
  nav {
    display: flex;
    gap: 0.25rem;
  }
  nav a {
    padding: 0.4rem 0.6rem;
    border-radius: 6px;
    text-decoration: none;
    color: var(--c-text);
  }
  nav a[aria-current='page'] {
    background: var(--c-accent);
    color: var(--c-accent-text);
  }
  .spacer {
    flex: 1;
  }
  .locale select {
    width: auto;
    min-height: 2.25rem;
  }
  .who {
    font-size: 0.875rem;
    color: var(--c-muted);
  }
  main {
    max-width: 72rem;
    margin: 0 auto;
    padding: 1rem;
  }
  /* Focused by script on a new view, so a screen reader starts there: not a control to outline. */
  main:focus,
  main:focus-visible {
    outline: none;
  }
  .loading {
    padding: 2rem;
  }
`
