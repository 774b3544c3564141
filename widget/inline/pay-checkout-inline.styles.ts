import { unsafeCSS } from 'lit'
import { CHECKOUT } from '../../shared/styles.ts'
import { formStyles, spinner, tokens } from '../theme.ts'

export const payCheckoutStyles = [tokens, formStyles, spinner, unsafeCSS(CHECKOUT)]
