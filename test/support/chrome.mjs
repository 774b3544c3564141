// Finds a system Chrome or Chromium for browser tests: CHROME_PATH first, then the usual places.
// Test tools never download their own browser here.
import { existsSync } from 'node:fs'

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
]

export function findChrome() {
  const path = [process.env.CHROME_PATH, ...CANDIDATES].find((p) => p && existsSync(p))
  if (!path) {
    console.error('No Chrome or Chromium found: install one (Debian: apt-get install -y chromium) or set CHROME_PATH.')
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
