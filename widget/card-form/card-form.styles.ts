import { unsafeCSS } from 'lit'
import { CARD_FORM } from '../../shared/styles.ts'
import { formStyles, spinner, tokens } from '../theme.ts'

export const cardFormStyles = [tokens, formStyles, spinner, unsafeCSS(CARD_FORM)]
