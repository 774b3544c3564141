// Finds a system Chrome or Chromium for browser tests: CHROME_PATH first, then the usual places.
// Test tools never download their own browser here.
import { existsSync } from 'node:fs'

// Chromium's headless shell first (Debian: chromium-headless-shell, built from the same Chromium
// as the browser; what Playwright runs headless tests in by default): it paints without the full
// browser's compositor and window machinery, and the e2e demo file took 88 CPU-s in it against 167
// in `chromium --headless` on 2 cores.
const SHELLS = ['/usr/bin/chromium-headless-shell']
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
]

/**
 * The browser for tests: CHROME_PATH, else the headless shell, else a full Chrome or Chromium.
 * `{ full: true }` skips the shell (the benchmarks measure what shoppers run: the full browser).
 */
export function findChrome({ full = false } = {}) {
  const path = [process.env.CHROME_PATH, ...(full ? [] : SHELLS), ...CANDIDATES].find((p) => p && existsSync(p))
  if (!path) {
    console.error(
      'No Chrome or Chromium found: install one (Debian: apt-get install -y chromium-headless-shell chromium) or set CHROME_PATH.',
    )
    process.exit(1)
  }
  return path
}

/** Headless flags for a closed network: no background connections, loopback only. */
export const CHROME_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
]
