/**
 * @module
 * The scripts the card frame's page loads before it can render, as built (`dist/public/widget/`).
 * The Worker lists them as `<link rel="modulepreload">` in the frame's HTML so the browser fetches
 * them in parallel with `frame.js` instead of one after the other; the build (vite.config.ts)
 * fails when this list no longer matches what `frame.js` imports, so it cannot go stale.
 */
export const FRAME_SCRIPTS: readonly string[] = ['/widget/frame.js', '/widget/chunks/pay-checkout-inline.js', '/widget/chunks/navigate.js']

/** Locale chunks the frame may preload beside them, when its URL names the locale. */
export const LOCALE_CHUNKS: readonly string[] = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'ja']

