// `npm run bench`'s first part (bench/run.mjs): the three downloads of a merchant's deployment,
// built as the package builds them, and with --peers the incumbents (Adyen, Braintree) built from
// the npm registry the way their docs recommend.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'vite'
import { measure, sizes } from '../tools/bundle.mjs'
import { round } from './stats.mjs'
import { root } from '../tools/stacks.mjs'
import { FRAME_SCRIPT, framePage } from '../worker/frame/page.ts'

// ---- 1. weight ---------------------------------------------------------------------------

const PEERS = {
  '@adyen/adyen-web': '6.45.2',
  'braintree-web': '3.144.0',
  'braintree-web-drop-in': '1.48.0',
}

/** Each peer the way its docs recommend, built with Vite; what is fetched later is noted. */
const PEER_ENTRIES = {
  'Adyen Web card (6.45.2, with CSS)': {
    code: `import { AdyenCheckout, Card } from '@adyen/adyen-web'
import '@adyen/adyen-web/styles/adyen.css'
export async function mount(el) {
  const checkout = await AdyenCheckout({ clientKey: 'test_XXXX', environment: 'test', countryCode: 'NL', amount: { value: 4900, currency: 'EUR' } })
  new Card(checkout).mount(el)
}`,
    later:
      'securedFields iframes (one per card field) from checkoutshopper-test.adyen.com, each with its own JS; brand images',
  },
  'Braintree hosted fields (3.144.0)': {
    code: `import client from 'braintree-web/client'
import hostedFields from 'braintree-web/hosted-fields'
export async function mount(authorization) {
  const c = await client.create({ authorization })
  return hostedFields.create({ client: c, fields: { number: { container: '#n' }, cvv: { container: '#c' }, expirationDate: { container: '#e' } } })
}`,
    later:
      'one iframe per field from assets.braintreegateway.com (each loads hosted-fields-frame JS), plus the client configuration request',
  },
  'Braintree Drop-in (1.48.0)': {
    code: `import dropin from 'braintree-web-drop-in'
export function mount(authorization) { return dropin.create({ authorization, container: '#dropin' }) }`,
    later:
      'hosted-fields iframes, Drop-in CSS from assets.braintreegateway.com, card brand images, the client configuration request',
  },
}

/** What the widget weighs, as a merchant's shoppers download it; with `withPeers`, the incumbents too. */
export async function weight(withPeers) {
  const out = mkdtempSync(join(tmpdir(), 'pay-bench-build-'))
  await build({
    root,
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'silent',
    mode: 'production',
    build: { outDir: out },
  })
  const ours = measure(out, {
    framePage: framePage({ locale: 'en', theme: 'light', shipping: false }),
    frameScripts: [FRAME_SCRIPT],
  })
  rmSync(out, { recursive: true, force: true })
  const pick = (b) => ({ raw: b.raw, gzip: b.gzip, brotli: b.brotli, files: b.files })
  const bundles = {
    frameHost: pick(ours.frameHost),
    inlineFlow: pick(ours.inlineFlow),
    frameDocument: pick(ours.frameDocument),
    qr: ours.lazy['qr-wallet'],
    invoice: ours.lazy['invoice-view'],
  }
  if (!withPeers) return { ours: bundles }

  const peersDir = join(root, 'bench', '.peers')
  mkdirSync(peersDir, { recursive: true })
  if (!existsSync(join(peersDir, 'node_modules', 'braintree-web-drop-in'))) {
    writeFileSync(
      join(peersDir, 'package.json'),
      JSON.stringify({ name: 'peers', private: true, type: 'module', dependencies: PEERS }, null, 2),
    )
    console.error('Installing peers into bench/.peers (npm registry)...')
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: peersDir,
      stdio: 'inherit',
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
    })
  }
  const peers = {}
  for (const [name, { code, later }] of Object.entries(PEER_ENTRIES)) {
    const dir = mkdtempSync(join(peersDir, 'build-'))
    writeFileSync(join(dir, 'entry.js'), code)
    const dist = join(dir, 'dist')
    await build({
      root: peersDir,
      configFile: false,
      logLevel: 'silent',
      build: {
        outDir: dist,
        lib: { entry: join(dir, 'entry.js'), formats: ['es'], fileName: () => 'peer.js' },
        rolldownOptions: { output: { minify: true } },
        cssCodeSplit: false,
      },
    })
    const total = { raw: 0, gzip: 0, brotli: 0 }
    const walk = (d) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f)
        if (statSync(p).isDirectory()) walk(p)
        else if (/\.(js|css)$/.test(f)) {
          const s = sizes(readFileSync(p))
          total.raw += s.raw
          total.gzip += s.gzip
          total.brotli += s.brotli
        }
      }
    }
    walk(dist)
    peers[name] = { ...total, loadsLater: later }
    rmSync(dir, { recursive: true, force: true })
  }
  const smallest = Math.min(...Object.values(peers).map((p) => p.brotli))
  return { ours: bundles, peers, ratioSmallestPeerToOurs: round(smallest / ours.inlineFlow.brotli, 2) }
}
