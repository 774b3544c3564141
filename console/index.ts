/**
 * @module
 * The merchant console's script (`/console/console.js`, built on its own: nothing of it is in the
 * shopper's bundles). The page the Worker serves at `/console/` holds `<pay-console>`.
 */
import './pay-console/pay-console.ts'
