/**
 * @module
 * The design tokens and the form look every component shares, as Lit style sheets. The text is in
 * `shared/styles.ts`: the Worker writes the same into the card frame's server-rendered form.
 */
import { unsafeCSS } from 'lit'
import { FORM, SPINNER, TOKENS } from '../shared/styles.ts'

export const tokens = unsafeCSS(TOKENS)

export const formStyles = unsafeCSS(FORM)

/** The busy indicator beside "Processing…" and in a busy button (still in reduced motion: it pulses). */
export const spinner = unsafeCSS(SPINNER)
