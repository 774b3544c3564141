/**
 * @module
 * The console's page (`GET /console/`): a shell for `<pay-console>` (console/, built to
 * `/console/console.js`, a file of its own, nothing of it in the shopper's bundles). Under a strict
 * policy: scripts and styles from this origin only, calls to this origin only, never framed (no
 * clickjacking of its refund buttons), no referrer. The page names how the deployment signs in, so
 * behind Access it never offers a key form.
 */

export const CONSOLE_SCRIPT = '/console/console.js'

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
}

export function consolePage(signIn: 'key' | 'access'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Payments console</title>
<link rel="icon" href="data:,">
<script type="module" src="${CONSOLE_SCRIPT}"></script>
</head>
<body>
<pay-console sign-in="${signIn}"></pay-console>
</body>
</html>
`
}
