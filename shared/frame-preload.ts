/**
 * @module
 * The scripts the card frame's page loads before it can render, as built (`dist/public/widget/`):
 * the element's own file (which, in the frame, imports the frame's page script instead of defining
 * the element), the frame's page script and the inline checkout.
 * The Worker lists them as `<link rel="modulepreload">` in the frame's HTML so the browser fetches
 * them in parallel instead of one after the other; the build (vite.config.ts)
 * fails when this list no longer matches what the frame loads, so it cannot go stale.
 */
import { LOCALES } from './locales.ts'

export const FRAME_SCRIPTS: readonly string[] = [
  '/widget/pay-checkout.js',
  '/widget/chunks/frame-page.js',
  '/widget/chunks/pay-checkout-inline.js',
]

/** Locale chunks the frame may preload beside them, when its URL names the locale (its card flow's messages). */
export const LOCALE_CHUNKS: readonly string[] = LOCALES.filter((l) => l !== 'en')
