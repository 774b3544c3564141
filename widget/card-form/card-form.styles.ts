import { css } from 'lit'
import { formStyles, tokens } from '../theme.ts'

export const cardFormStyles = [
  tokens,
  formStyles,
  css`
    :host {
      display: block;
    }
    .brand {
      position: absolute;
      right: 0.75rem;
      font-size: 0.75rem;
      font-weight: 700;
      letter-spacing: 0.02em;
      color: var(--_muted);
      pointer-events: none;
    }
    .phone {
      grid-template-columns: minmax(6rem, 1fr) minmax(10rem, 3fr);
    }
  `,
]
