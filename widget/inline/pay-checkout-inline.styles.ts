import { css, unsafeCSS } from 'lit'
import { CHECKOUT } from '../../shared/styles.ts'
import { formStyles, spinner, tokens } from '../theme.ts'

/** The method picker above the box, spaced as the element's page side spaces it in frame mode. */
const picker = css`
  pay-method-picker {
    margin-bottom: 0.75rem;
  }
`

export const payCheckoutStyles = [tokens, formStyles, spinner, unsafeCSS(CHECKOUT), picker]
