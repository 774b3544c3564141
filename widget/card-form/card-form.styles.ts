import { css } from 'lit'
import { formStyles, spinner, tokens } from '../theme.ts'

export const cardFormStyles = [
  tokens,
  formStyles,
  spinner,
  css`
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
  `,
]
