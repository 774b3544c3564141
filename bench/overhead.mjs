// `npm run bench`'s third part (bench/run.mjs): the Worker's added latency on a pay.
import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { cardBody, newSessions } from './load.mjs'
import { pct, round } from './stats.mjs'
import { wirePayment } from '../tools/wire-payment.ts'
import { STACK_SECRETS } from '../tools/stacks.mjs'

/**
 * Pay through the Worker against the same signed request sent to the sandbox directly, alternating,
 * after a warm-up. `call` is how each is reached: over HTTP through `wrangler dev`, or in-process
 * (`dispatchFetch`) without its proxy.
 */
export async function workerOverhead(worker, samples, call) {
  const sessions = await newSessions(worker, samples, 8)
  const direct = []
  const proxied = []
  const forwarded = []
  const ledgered = []
  /** The signed payment request straight to the sandbox (`via` the forwarder: the floor of any Worker). */
  const directPay = async (via = call.sandbox) => {
    const mtid = `direct-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`
    const sum = createHash('md5').update(['10001', STACK_SECRETS.SECURE_KEY, mtid, '10.00'].join('|')).digest('hex')
    // The same request the Worker sends for a session pay: amount, ids and URLs included.
    const body = new URLSearchParams(
      wirePayment({
        'authentication.checksum': sum,
        merchantTransactionId: mtid,
        amount: '10.00',
        'customer.ip': '127.0.0.1',
        notificationUrl: `${worker.url}/v1/notifications/cs_AAAAAAAAAAAAAAAAAAAAAAAA`,
        merchantRedirectUrl: `${worker.url}/v1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA`,
        redirectMethod: 'GET',
      }),
    )
    const t = performance.now()
    const res = await via('/transactionServices/REST/v1/payments', {
      method: 'POST',
      headers: { AuthToken: 'sandbox-auth-token', 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    })
    await res.text()
    return performance.now() - t
  }
  const proxiedPay = async (s) => {
    const t = performance.now()
    const res = await call.worker(`/v1/checkout/${s.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${s.clientSecret}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': `b-${s.id}`,
      },
      body: cardBody,
    })
    const text = await res.text()
    if (res.status !== 200) throw new Error(`pay answered ${res.status}: ${text.slice(0, 200)}`)
    return performance.now() - t
  }
  // Warm both paths (first AuthToken, first Durable Object, JIT), then alternate.
  for (let i = 0; i < 5; i++) {
    await directPay()
    await proxiedPay((await newSessions(worker, 1, 1))[0])
  }
  if (call.forwarded) for (let i = 0; i < 5; i++) await directPay(call.forwarded)
  if (call.ledgered) for (let i = 0; i < 5; i++) await directPay(call.ledgered)
  for (let i = 0; i < sessions.length; i++) {
    if (i % 2 === 0) {
      direct.push(await directPay())
      proxied.push(await proxiedPay(sessions[i]))
    } else {
      proxied.push(await proxiedPay(sessions[i]))
      direct.push(await directPay())
    }
    if (call.forwarded) forwarded.push(await directPay(call.forwarded))
    if (call.ledgered) ledgered.push(await directPay(call.ledgered))
  }
  const stat = (xs) => ({ p50: round(pct(xs, 50), 2), p95: round(pct(xs, 95), 2), p99: round(pct(xs, 99), 2) })
  const d = stat(direct)
  const w = stat(proxied)
  // Where the Worker's time goes, by route: a route that touches no Durable Object, and the view
  // (one Durable Object call: the access check that every browser route makes before its work).
  const timed = async (path, init) => {
    const t = performance.now()
    await (await call.worker(path, init)).text()
    return performance.now() - t
  }
  /** A floor: its own figures, what it adds to the direct call, and what ours adds beyond it. */
  const gap = (a, b) => ({ p50: round(a.p50 - b.p50, 2), p99: round(a.p99 - b.p99, 2) })
  const floor = (xs) => {
    if (xs.length === 0) return undefined
    const figures = stat(xs)
    return { figures, added: gap(figures, d), beyond: gap(w, figures) }
  }
  const fwd = floor(forwarded)
  const ledger = floor(ledgered)
  const health = []
  const view = []
  for (const s of sessions.slice(0, 100)) {
    health.push(await timed('/healthz'))
    view.push(await timed(`/v1/checkout/${s.id}`, { headers: { Authorization: `Bearer ${s.clientSecret}` } }))
  }
  return {
    samples: sessions.length,
    direct: d,
    throughWorker: w,
    addedMs: { p50: round(w.p50 - d.p50, 2), p95: round(w.p95 - d.p95, 2), p99: round(w.p99 - d.p99, 2) },
    routes: { healthz: stat(health), view: stat(view) },
    // What a Worker that only forwards adds, and what the product adds beyond it; the same for one
    // that also writes before and after the gateway call.
    ...(fwd && { forwarded: fwd.figures, floorMs: fwd.added, beyondFloorMs: fwd.beyond }),
    ...(ledger && { ledgered: ledger.figures, ledgerFloorMs: ledger.added, beyondLedgerFloorMs: ledger.beyond }),
  }
}
