/**
 * @module
 * The scripts of the full checkout in the card frame, as built (`dist/public/widget/`): the
 * element's own file (which, in the frame, imports the frame's page script instead of defining
 * the element), the frame's page script and the inline checkout. The frame's own script hands a
 * session it does not show (a QR wallet or an invoice alone) to them, and preloads them all at
 * once so they arrive in one round trip; the build (vite.config.ts) fails when this list no
 * longer matches what they load, so it cannot go stale.
 */

export const FRAME_SCRIPTS: readonly string[] = [
  '/widget/pay-checkout.js',
  '/widget/chunks/frame-page.js',
  '/widget/chunks/pay-checkout-inline.js',
]
