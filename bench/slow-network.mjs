// A slow mobile network in front of a local origin, for `npm run bench`: each origin is served over
// TLS with HTTP/2 (as a CDN serves it) by a proxy that delays every response by one round trip,
// every new connection by two more (TCP, then TLS 1.3), and every body by its compressed size at a
// bandwidth shared by all of that origin's responses (Lighthouse's mobile profile: 150 ms, 1.6
// Mbit/s). Bodies go out uncompressed on this loopback; only their time on the wire is brotli's.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createSecureServer } from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, constants } from 'node:zlib'

export const MOBILE = { rttMs: 150, kbitPerS: 1600 }

/** A self-signed certificate for localhost and 127.0.0.1 (Chromium is told to accept it). */
export function selfSigned() {
  const dir = mkdtempSync(join(tmpdir(), 'pay-tls-'))
  try {
    // prettier-ignore
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' })
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'host'])
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)))
const COMPRESSIBLE = /text|javascript|json|svg|xml/

/**
 * Starts the proxy for `upstream` (an http:// origin) on `host`:`port`; answers with its https://
 * origin and `close()`. Every connection, request and transfer is counted in `log`.
 */
export async function slowOrigin(upstream, { host, port, tls, rttMs = MOBILE.rttMs, kbitPerS = MOBILE.kbitPerS }) {
  let linkFree = 0
  const sizes = new Map()
  const server = createSecureServer({ ...tls, allowHTTP1: true }, async (req, res) => {
    const arrived = performance.now()
    const session = req.stream?.session ?? req.socket
    // The first request on a connection pays for the connection: TCP and TLS 1.3, two round trips.
    const handshake = session.charged ? 0 : 2 * rttMs
    session.charged = true
    const chunks = []
    for await (const c of req) chunks.push(c)
    const headers = {}
    for (const [k, v] of Object.entries(req.headers)) if (!k.startsWith(':') && !HOP.has(k)) headers[k] = v
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      redirect: 'manual',
    })
    const body = Buffer.from(await answer.arrayBuffer())
    const type = answer.headers.get('content-type') ?? ''
    const key = `${req.url}|${body.length}`
    let wire = sizes.get(key)
    if (wire === undefined) {
      wire = COMPRESSIBLE.test(type)
        ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length
        : body.length
      sizes.set(key, wire)
    }
    // Headers back after the round trip (and the handshake); the body then takes its turn on the
    // origin's one shared link.
    const firstByte = arrived + handshake + rttMs
    const start = Math.max(firstByte, linkFree)
    linkFree = start + (wire * 8) / kbitPerS
    await sleep(linkFree - performance.now())
    const out = {}
    answer.headers.forEach((v, k) => {
      if (!HOP.has(k) && k !== 'set-cookie') out[k] = v
    })
    const cookies = answer.headers.getSetCookie?.() ?? []
    if (cookies.length > 0) out['set-cookie'] = cookies
    res.writeHead(answer.status, out)
    res.end(body)
  })
  await new Promise((r) => server.listen(port, host, r))
  return {
    origin: `https://${host}:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  }
}
