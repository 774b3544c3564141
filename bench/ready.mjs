// Time to ready, as a merchant deploys it (`npm run bench`, bench/README.md): a shop page on its
// own origin embeds <pay-checkout> from the Worker's origin, cold cache, against a plain form; on
// this machine's loopback, or through a slow mobile network's proxies (./slow-network.mjs).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { newSessions } from './load.mjs'
import { MOBILE, selfSigned, slowOrigin } from './slow-network.mjs'
import { pct, round } from './stats.mjs'
import { CHROME_ARGS, findChrome } from '../tools/chrome.mjs'
import { freePort } from '../tools/stacks.mjs'

/**
 * As a merchant deploys it: the shop page is on its own origin (a local server standing in for the
 * shop), `<pay-checkout>` comes from the Worker's origin (`wrangler dev` serving the built assets),
 * every load in a fresh browser context (cold cache), the three kinds interleaved. "Ready" is when
 * the shopper can use the form: `pay-ready` for ours (fired when the card inputs are in the DOM
 * and accept typing), `DOMContentLoaded` for a plain HTML form with the same fields served the
 * same way. Times are from navigation start (`performance.now()` in the page).
 */
// The clocks are inline classic scripts: a script file of their own would hold the plain form's
// DOMContentLoaded (deferred scripts run before it) for one more fetch, a round trip on the slow network.
const PLAIN_CLOCK = `document.addEventListener('DOMContentLoaded', () => (window.__ready = performance.now()))`
const OUR_CLOCK = `document.addEventListener('pay-ready', () => (window.__ready ??= performance.now()))`

const fields = [
  'Card number',
  'Expiry date (MM / YY)',
  'Security code',
  'First name',
  'Last name',
  'Email',
  'Phone country code',
  'Phone',
]
const plain = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>plain</title><script>${PLAIN_CLOCK}</script></head><body><form>${fields.map((f, i) => `<label for="f${i}">${f}</label><input id="f${i}">`).join('')}<button>Pay €10.00</button></form></body></html>`
const plainFrameDoc = plain
  .replace('<title>plain</title>', '<title>plain frame</title>')
  .replace(PLAIN_CLOCK, `document.addEventListener('DOMContentLoaded', () => parent.postMessage('ready', '*'))`)

/**
 * The floor of a frame embed served from the Worker's origin, as ours is: the same plain form in an
 * iframe, made by a small script, both files among the Worker's static assets (`wrangler dev`
 * serving them as it serves the widget), so the floor pays for the Worker's two fetches as ours
 * does. `npm run bench` writes them beside the built widget before the Worker starts (its asset
 * list is read then) and removes them after; the next widget build would empty the folder anyway.
 */
export const WORKER_FLOOR = '_floor'
export function writeWorkerFloor(widgetDir) {
  const dir = join(widgetDir, WORKER_FLOOR)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'form.html'), plainFrameDoc)
  // Relative to the script's own address: the frame comes from the origin the script came from
  // (the Worker's, or its proxy's on the slow network). Named without `.html`, which the Worker's
  // static assets answer with a redirect to the name without it (a round trip more).
  writeFileSync(
    join(dir, 'frame.js'),
    "const f = document.createElement('iframe'); f.src = new URL('./form', import.meta.url).href; f.title = 'Card payment'; document.body.append(f)\n",
  )
  return () => rmSync(dir, { recursive: true, force: true })
}

export async function timeToReady(worker, { loads, slow = false }) {
  const port = await freePort()
  const local = `http://127.0.0.1:${port}`
  // On the slow network, both origins are reached through their proxies (./slow-network.mjs), on
  // two sites (localhost and 127.0.0.1), so the frame cannot use the page's connections.
  const proxies = []
  const tls = slow ? selfSigned() : undefined
  if (slow) {
    proxies.push(await slowOrigin(local, { host: 'localhost', port: await freePort(), tls }))
    proxies.push(await slowOrigin(worker.url, { host: '127.0.0.1', port: await freePort(), tls }))
  }
  // The floor of any frame embed: the plain form, in a plain iframe from another origin (served
  // as the Worker is: its own proxy on the slow network), ready when its DOMContentLoaded reaches
  // the page.
  const framePort = await freePort()
  if (slow)
    proxies.push(await slowOrigin(`http://127.0.0.1:${framePort}`, { host: '127.0.0.1', port: await freePort(), tls }))
  const origin = slow ? proxies[0].origin : local
  const endpoint = slow ? proxies[1].origin : worker.url
  const frameOrigin = slow ? proxies[2].origin : `http://127.0.0.1:${framePort}`
  const [session] = await newSessions(worker, 1, 1, origin)
  // As the README's embedding section has it: inline mode adds the inline checkout's modulepreload.
  const preload = (isolation) =>
    isolation === 'inline' ? `<link rel="modulepreload" href="${endpoint}/widget/chunks/light.js">` : ''
  // The declarative embed (README): the shop's server writes the frame in the element.
  const written = (isolation) =>
    isolation === 'written'
      ? `<iframe src="${endpoint}/frame/${session.id}?locale=en&amp;theme=light&amp;t=${session.frameToken}" title="Card payment" allow="payment"></iframe>`
      : ''
  // The same, created by a small script from the frame's origin (as the minimal embed creates its
  // frame): the floor of an embed whose page holds only a script tag.
  const frameScript = `const f = document.createElement('iframe'); f.src = '${frameOrigin}/form.html'; f.title = 'Card payment'; document.body.append(f)`
  const plainFrameScripted = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>plain in a frame, by a script</title><script>addEventListener('message', (e) => { if (e.data === 'ready') window.__ready ??= performance.now() })</script><script type="module" src="${frameOrigin}/frame.js"></script></head><body></body></html>`
  // The floors of any inline embed. The same form written into the page by one small module script
  // from another origin (the frame floors' server), ready when it has run: what an inline checkout
  // whose page holds only a script tag costs before any work of its own.
  const formScript = `document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(plain.replace(/^[^]*<body>|<\/body>[^]*$/g, ''))}); window.__ready ??= performance.now()`
  const plainScripted = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>plain, by a script</title><script type="module" src="${frameOrigin}/form.js"></script></head><body></body></html>`
  // And the plain form in the page with one small script file of the widget's, as the Worker serves
  // it (a locale's part, 0.9 KB, no imports), ready once that has run: what any embed whose
  // readiness waits for a script from the Worker's origin costs, its asset route's time included.
  const workerScript = `${endpoint}/widget/chunks/zh.more.js`
  if ((await fetch(workerScript.replace(endpoint, worker.url))).status !== 200)
    throw new Error(`${workerScript}: not served (the floor's script file must exist)`)
  const plainWorkerScript = plain
    .replace('<title>plain</title>', '<title>plain, with a script from the Worker</title>')
    .replace(
      `<script>${PLAIN_CLOCK}</script>`,
      `<script type="module" src="${workerScript}"></script><script type="module">window.__ready ??= performance.now()</script>`,
    )
  // The same frame made by the same script, both from the Worker (`writeWorkerFloor`).
  const workerFrameScript = `${endpoint}/widget/${WORKER_FLOOR}/frame.js`
  for (const file of ['frame.js', 'form'])
    if ((await fetch(`${worker.url}/widget/${WORKER_FLOOR}/${file}`, { redirect: 'manual' })).status !== 200)
      throw new Error(`/widget/${WORKER_FLOOR}/${file}: not served (writeWorkerFloor before the Worker starts)`)
  const plainFrameWorker = plainFrameScripted
    .replace(
      '<title>plain in a frame, by a script</title>',
      '<title>plain in a frame, by a script, both from the Worker</title>',
    )
    .replace(`${frameOrigin}/frame.js`, workerFrameScript)
  const plainFrame = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>plain in a frame</title><script>addEventListener('message', (e) => { if (e.data === 'ready') window.__ready ??= performance.now() })</script></head><body><iframe src="${frameOrigin}/form.html" title="Card payment"></iframe></body></html>`
  const ours = (isolation) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ours</title><script>${OUR_CLOCK}</script>${preload(isolation)}<script type="module" src="${endpoint}/widget/pay-checkout.js"></script></head><body><pay-checkout endpoint="${endpoint}" session="${session.id}" client-secret="${session.clientSecret}" frame-token="${session.frameToken}" locale="en" isolation="${isolation === 'inline' ? 'inline' : 'frame'}">${written(isolation)}</pay-checkout></body></html>`
  const files = {
    '/plain.html': ['text/html', plain],
    '/frame.html': ['text/html', ours('frame')],
    '/inline.html': ['text/html', ours('inline')],
    '/written.html': ['text/html', ours('written')],
    '/plainFrame.html': ['text/html', plainFrame],
    '/plainFrameScripted.html': ['text/html', plainFrameScripted],
    '/plainFrameWorker.html': ['text/html', plainFrameWorker],
    '/plainScripted.html': ['text/html', plainScripted],
    '/plainWorkerScript.html': ['text/html', plainWorkerScript],
  }
  const server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0]]
    if (file) return void res.writeHead(200, { 'Content-Type': file[0] }).end(file[1])
    res.writeHead(404).end()
  })
  await new Promise((r) => server.listen(port, '127.0.0.1', r))
  const frameServer = createServer((req, res) =>
    (req.url ?? '').startsWith('/form.html')
      ? void res.writeHead(200, { 'Content-Type': 'text/html' }).end(plainFrameDoc)
      : (req.url ?? '').startsWith('/frame.js')
        ? void res
            .writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' })
            .end(frameScript)
        : (req.url ?? '').startsWith('/form.js')
          ? void res
              .writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' })
              .end(formScript)
          : void res.writeHead(404).end(),
  )
  await new Promise((r) => frameServer.listen(framePort, '127.0.0.1', r))
  const browser = await chromium.launch({
    executablePath: findChrome({ full: true }),
    // The slow network's certificate is the proxies' own.
    args: [...CHROME_ARGS.filter((a) => a !== '--headless'), ...(slow ? ['--ignore-certificate-errors'] : [])],
    headless: true,
  })
  const kinds = [
    'frame',
    'written',
    'inline',
    'plain',
    'plainFrame',
    'plainFrameScripted',
    'plainFrameWorker',
    'plainScripted',
    'plainWorkerScript',
  ]
  const times = Object.fromEntries(kinds.map((k) => [k, []]))
  const breakdown = {}
  try {
    // One warm-up of each (workerd's first compile of a route is not the shopper's cold cache).
    for (let i = -1; i < loads; i++) {
      const order = kinds.map((_, k) => kinds[(k + i + kinds.length) % kinds.length])
      for (const kind of order) {
        const context = await browser.newContext() // cold cache every load, for every kind
        const page = await context.newPage()
        await page.goto(`${origin}/${kind}.html`)
        await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 15_000 })
        if (i >= 0) times[kind].push(await page.evaluate(() => window.__ready))
        // Where the time goes, from the last load of each kind: every fetch the page made (the
        // frame's own subresources are in the frame's timeline, not the page's).
        if (i === loads - 1 && !kind.startsWith('plain')) {
          breakdown[kind] = await page.evaluate(() => ({
            ready: Math.round(window.__ready),
            fetches: performance.getEntriesByType('resource').map((e) => ({
              url: e.name
                .replace(/^https?:\/\/[^/]+/, '')
                .replace(/cs_\w+/, 'cs_…')
                .replace(/([?&]t=)[^&]+/, '$1…'),
              start: Math.round(e.startTime),
              end: Math.round(e.responseEnd),
            })),
          }))
          if (kind === 'frame') {
            const frame = page.frames().find((f) => f.url().includes('/frame/'))
            breakdown.frameDocument = await frame?.evaluate(() => ({
              timeOrigin: Math.round(performance.timeOrigin),
              fetches: performance.getEntriesByType('resource').map((e) => ({
                url: e.name
                  .replace(/^https?:\/\/[^/]+/, '')
                  .replace(/cs_\w+/, 'cs_…')
                  .replace(/([?&]t=)[^&]+/, '$1…'),
                start: Math.round(e.startTime),
                end: Math.round(e.responseEnd),
              })),
              navigation: performance.getEntriesByType('navigation').map((e) => ({
                start: Math.round(e.startTime),
                responseStart: Math.round(e.responseStart),
                responseEnd: Math.round(e.responseEnd),
                domInteractive: Math.round(e.domInteractive),
                domContentLoaded: Math.round(e.domContentLoadedEventEnd),
              })),
            }))
            if (breakdown.frameDocument)
              breakdown.frameDocument.offsetFromPage = Math.round(
                breakdown.frameDocument.timeOrigin - (await page.evaluate(() => performance.timeOrigin)),
              )
          }
        }
        await context.close()
      }
    }
  } finally {
    await browser.close()
    server.close()
    frameServer.close()
    await Promise.all(proxies.map((p) => p.close()))
  }
  const stat = (xs) => ({ median: round(pct(xs, 50)), p95: round(pct(xs, 95)) })
  const plainMedian = pct(times.plain, 50)
  return {
    ...(slow ? { network: { ...MOBILE, tls: 'TLS 1.3, HTTP/2', handshakeRoundTrips: 2 } } : {}),
    loads,
    frame: stat(times.frame),
    written: stat(times.written),
    inline: stat(times.inline),
    plain: stat(times.plain),
    plainFrame: stat(times.plainFrame),
    ratioPlainFrame: round(pct(times.plainFrame, 50) / plainMedian, 2),
    plainFrameScripted: stat(times.plainFrameScripted),
    ratioPlainFrameScripted: round(pct(times.plainFrameScripted, 50) / plainMedian, 2),
    plainFrameWorker: stat(times.plainFrameWorker),
    ratioPlainFrameWorker: round(pct(times.plainFrameWorker, 50) / plainMedian, 2),
    plainScripted: stat(times.plainScripted),
    ratioPlainScripted: round(pct(times.plainScripted, 50) / plainMedian, 2),
    plainWorkerScript: stat(times.plainWorkerScript),
    ratioPlainWorkerScript: round(pct(times.plainWorkerScript, 50) / plainMedian, 2),
    ratioFrame: round(pct(times.frame, 50) / plainMedian, 2),
    ratioWritten: round(pct(times.written, 50) / plainMedian, 2),
    ratioInline: round(pct(times.inline, 50) / plainMedian, 2),
    breakdown,
  }
}
