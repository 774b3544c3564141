#!/usr/bin/env node
// `npm run bench`: the three downloads of a merchant's deployment, time to ready as a merchant
// deploys it (a shop page on its own origin embedding <pay-checkout> from the Worker's origin, cold
// cache, both modes) against a plain form, the Worker's own added latency on a pay (through
// `wrangler dev`, and in-process without its proxy), and a bounded load test. Prints one table with
// the targets beside the figures and writes bench/results.json. Everything runs on this machine.
//   --quick   fewer samples (for a smoke run); the figures are then only indicative
//   --peers   also build the incumbents (Adyen, Braintree) from the npm registry for the weight comparison
import { cpus, totalmem, tmpdir } from 'node:os'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startDirect } from './direct.mjs'
import { startReceiver } from './receiver.mjs'
import { load } from './load.mjs'
import { tokensAcrossIsolates } from './isolates.mjs'
import { manyMerchants } from './merchants.mjs'
import { PLATFORM_SECRETS } from '../tools/credentials.ts'
import { timeToReady, writeWorkerFloor } from './ready.mjs'
import { workerOverhead } from './overhead.mjs'
import { weight } from './weight.mjs'
import { root, startStack, STACK_SECRETS } from '../tools/stacks.mjs'
import { stopAllOnExit } from '../worker/dev/processes.mjs'
import { round, kb } from './stats.mjs'

// Ctrl+C at any moment ends the stacks the benchmark started (see worker/dev/processes.mjs).
stopAllOnExit()

const quick = process.argv.includes('--quick')
const withPeers = process.argv.includes('--peers')
const RESULTS = join(root, 'bench', 'results.json')
const N = {
  loads: quick ? 6 : 20,
  slowLoads: quick ? 3 : 10,
  overhead: quick ? 30 : 200,
  load: quick ? 200 : 2000,
  concurrency: 32,
  merchants: quick ? 10 : 50,
  merchantPays: quick ? 500 : 5000,
}

// ---- run ----------------------------------------------------------------------------------

const state = mkdtempSync(join(tmpdir(), 'pay-bench-'))
const results = {
  date: new Date().toISOString(),
  quick,
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
  },
}
console.error('Weight...')
results.weight = await weight(withPeers)
// The incumbents' weights stay in results.json between runs without --peers (they change only with
// their versions), with the date they were measured, so the comparison never disappears.
if (withPeers) results.weight.peersMeasured = results.date
else {
  const last = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')).weight : undefined
  if (last?.peers) {
    results.weight.peers = last.peers
    results.weight.peersMeasured = last.peersMeasured ?? 'unknown'
    const smallest = Math.min(...Object.values(last.peers).map((p) => p.brotli))
    results.weight.ratioSmallestPeerToOurs = round(smallest / results.weight.ours.inlineFlow.brotli, 2)
  }
}
console.error('Starting the sandbox and the Worker (wrangler dev)...')
// A floor's two static files beside the built widget, before the Worker reads its asset list.
const removeWorkerFloor = writeWorkerFloor(join(root, 'dist', 'public', 'widget'))
// The merchant's webhook endpoint, as every deployment has one: the default merchant's at
// `/default`, each profile's at a path of its own (bench/merchants.mjs).
const receiver = await startReceiver({ '/default': [STACK_SECRETS.WEBHOOK_SECRET] })
// As `wrangler dev` runs it, its local trace collector attached (the in-process figures below are
// measured both ways).
const stack = await startStack({
  stateDir: state,
  vars: { CARD_VELOCITY_LIMIT: '1000000', MERCHANT_WEBHOOK_URL: `${receiver.url}/default`, ...PLATFORM_SECRETS },
  traces: true,
})
const http = (base) => (path, init) => fetch(`${base}${path}`, init)
try {
  console.error('Time to ready...')
  results.timeToReady = await timeToReady(stack.worker, { loads: N.loads })
  console.error('Time to ready on a slow mobile network...')
  results.timeToReadySlow = await timeToReady(stack.worker, { loads: N.slowLoads, slow: true })
  console.error('Worker overhead through wrangler dev...')
  results.workerOverhead = await workerOverhead(stack.worker, N.overhead, {
    worker: http(stack.worker.url),
    sandbox: http(stack.sandbox.url),
  })
  console.error('Load...')
  results.load = await load(stack.worker, stack.sandbox, { payments: N.load, concurrency: N.concurrency, receiver })
  console.error(`Many merchants: ${N.merchants} profiles, ${N.merchantPays} pays...`)
  results.manyMerchants = await manyMerchants(stack.worker, stack.sandbox, {
    merchants: N.merchants,
    payments: N.merchantPays,
    concurrency: N.concurrency,
    receiver,
  })
  console.error('AuthToken requests across isolates...')
  results.tokens = await tokensAcrossIsolates(stack.sandbox.url, { isolates: 8, pays: N.isolatePays, concurrency: 16 })
} finally {
  await stack.stop()
  await receiver.stop()
}
/**
 * The Worker's added latency in-process (bench/direct.mjs), with or without wrangler's local trace
 * collector; with a webhook URL, as a merchant's deployment has (a receiver on loopback), so each
 * pay's events are delivered as they would be. `memory`: a directory on tmpfs for the objects'
 * storage (else the run's state directory, on disk).
 */
async function inProcess(traces, memory) {
  const direct = await startDirect({
    tmp: memory ?? join(state, traces ? 'direct-traced' : 'direct'),
    secrets: STACK_SECRETS,
    vars: { CARD_VELOCITY_LIMIT: '1000000' },
    traces,
    webhooks: true,
  })
  try {
    const worker = { url: 'http://127.0.0.1:9', fetch: direct.worker }
    const measured = await workerOverhead(worker, N.overhead, {
      worker: direct.worker,
      sandbox: direct.sandbox,
      forwarded: direct.forwarded,
      ledgered: direct.ledgered,
    })
    const received = await direct.webhooksReceived()
    if (received === 0)
      throw new Error('no webhook event reached the receiver: the pays were measured without deliveries')
    return {
      method: `unstable_startWorker().fetch (dispatchFetch) for both the Worker and the sandbox, ${traces ? 'with' : 'without'} wrangler's local trace collector, with a webhook URL (a receiver on loopback), the Durable Objects' storage ${memory ? 'in memory (tmpfs)' : 'on disk'}`,
      webhooksReceived: received,
      ...measured,
    }
  } finally {
    await direct.stop()
  }
}
/**
 * The in-process latency is measured again with the Durable Objects' SQLite files in memory
 * (tmpfs, where the machine has one): locally every write a pay waits for is a file synced to this
 * machine's disk, which the deployed runtime's storage is not either, and on a virtual disk that
 * sync alone can take floor 2 above the target (bench/README.md). Both figures are printed.
 */
let memoryState
try {
  console.error('Worker overhead in-process (no wrangler dev proxy, no local trace collector)...')
  results.workerOverheadDirect = await inProcess(false)
  console.error('The same with the local trace collector (as wrangler dev runs it)...')
  results.workerOverheadDirectTraced = await inProcess(true)
  if (existsSync('/dev/shm')) {
    console.error("The same without the collector, the Durable Objects' storage in memory (tmpfs)...")
    memoryState = mkdtempSync(join('/dev/shm', 'pay-bench-'))
    results.workerOverheadDirectMemory = await inProcess(false, memoryState)
  }
} finally {
  rmSync(state, { recursive: true, force: true })
  if (memoryState) rmSync(memoryState, { recursive: true, force: true })
  removeWorkerFloor()
}
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)

const w = results.weight.ours
const t = results.timeToReady
const ts = results.timeToReadySlow
const tk = results.tokens
const mm = results.manyMerchants
const o = results.workerOverhead
const od = results.workerOverheadDirect
const odt = results.workerOverheadDirectTraced
const odm = results.workerOverheadDirectMemory
/** A difference with its sign (ours may come out below a floor in a run). */
const signed = (ms) => (ms < 0 ? `${ms}` : `+${ms}`)
const met = (ok) => (ok ? 'met' : 'MISSED')
/**
 * A target against the floor measured in the same run (issue 21: a target below what any embed, or
 * any pay that cannot be lost, costs here is blocked, not missed): met, missed with ours above the
 * floor by so much, or missed and blocked by the floor itself.
 */
const versus = (value, target, floor, unit = 'x') => {
  if (value <= target) return 'met'
  if (floor > target) return `MISSED, blocked in this run: its floor ${floor}${unit} is above the target`
  return `MISSED, not blocked: its floor ${floor}${unit}, ours ${round(value - floor, 2)}${unit} above it`
}
/** The latency targets of an in-process run (bench/overhead.mjs), each against that run's floor 2. */
const latencyVerdict = (run) =>
  `p50 <= 10 ms: ${versus(run.addedMs.p50, 10, run.ledgerFloorMs.p50, ' ms')}; p99 <= 20 ms: ${versus(run.addedMs.p99, 20, run.ledgerFloorMs.p99, ' ms')} (its floor 2 below)`
/** The merchant's side of a load (bench/receiver.mjs): one final event per paid session, signed, to its merchant. */
const webhookRow = (stage, w) => [
  `${stage}: paid sessions with exactly one final event (none / more / not succeeded); deliveries unsigned, misrouted`,
  `${w.exactlyOne} of ${w.paidSessions} (${w.none} / ${w.more} / ${w.notSucceeded}); ${w.unsigned}, ${w.misrouted} of ${w.deliveries} deliveries so far`,
  `every one, none unsigned or misrouted: ${met(w.exactlyOne === w.paidSessions && w.unsigned === 0 && w.misrouted === 0)}`,
]
const bundle = (b) => `${kb(b.raw)} raw, ${kb(b.gzip)} gzip, ${kb(b.brotli)} brotli`
const rows = [
  ['Time to ready, frame (median / p95)', `${t.frame.median} / ${t.frame.p95} ms`, ''],
  ['Time to ready, frame written by the page (median / p95)', `${t.written.median} / ${t.written.p95} ms`, ''],
  ['Time to ready, inline (median / p95)', `${t.inline.median} / ${t.inline.p95} ms`, ''],
  ['Time to ready, plain form (median / p95)', `${t.plain.median} / ${t.plain.p95} ms`, ''],
  [
    'Time to ready, frame / plain (median)',
    `${t.ratioFrame}x over ${t.loads} loads each`,
    `<= 2.5x: ${versus(t.ratioFrame, 2.5, t.ratioPlainFrameWorker)}`,
  ],
  ['Time to ready, frame written by the page / plain (median)', `${t.ratioWritten}x`, 'the fastest embed'],
  [
    'Floor: a plain form in a plain iframe / made by a script / the same, both files from the Worker (median, / plain)',
    `${t.ratioPlainFrame}x / ${t.ratioPlainFrameScripted}x / ${t.ratioPlainFrameWorker}x`,
    'what any frame embed costs here; the last, one served from the Worker',
  ],
  [
    'Time to ready, inline / plain (median)',
    `${t.ratioInline}x`,
    `<= 1.5x: ${versus(t.ratioInline, 1.5, t.ratioPlainWorkerScript)}`,
  ],
  [
    'Floor: a plain form written by a script of another origin / in the page with a script from the Worker (median, / plain)',
    `${t.ratioPlainScripted}x / ${t.ratioPlainWorkerScript}x`,
    'what any inline embed costs here',
  ],
  [
    'Slow mobile network (150 ms, 1.6 Mbit/s, TLS, HTTP/2): frame / written / inline / plain (median)',
    `${ts.frame.median} / ${ts.written.median} / ${ts.inline.median} / ${ts.plain.median} ms over ${ts.loads} loads each`,
    '',
  ],
  [
    'Slow network, frame / plain (median)',
    `${ts.ratioFrame}x`,
    `<= 3.1x: ${versus(ts.ratioFrame, 3.1, ts.ratioPlainFrameWorker)}`,
  ],
  ['Slow network, frame written by the page / plain (median)', `${ts.ratioWritten}x`, 'the fastest embed'],
  [
    'Slow network floor: a plain form in a plain iframe / made by a script / the same, both files from the Worker (median, / plain)',
    `${ts.ratioPlainFrame}x / ${ts.ratioPlainFrameScripted}x / ${ts.ratioPlainFrameWorker}x`,
    'what any frame embed costs here; the last, one served from the Worker',
  ],
  [
    'Slow network, inline / plain (median)',
    `${ts.ratioInline}x`,
    `<= 2.3x: ${versus(ts.ratioInline, 2.3, ts.ratioPlainWorkerScript)}`,
  ],
  [
    'Slow network floor: a plain form written by a script / with a script from the Worker (median, / plain)',
    `${ts.ratioPlainScripted}x / ${ts.ratioPlainWorkerScript}x`,
    'what any inline embed costs here',
  ],
  ['Merchant page script, frame mode', bundle(w.frameHost), `<= 5 KB brotli: ${met(w.frameHost.brotli <= 5 * 1024)}`],
  [
    'Inline card flow, everything downloaded',
    bundle(w.inlineFlow),
    `<= 12 KB brotli: ${met(w.inlineFlow.brotli <= 12 * 1024)}`,
  ],
  [
    'Frame document and all its scripts',
    bundle(w.frameDocument),
    `<= 10 KB brotli: ${met(w.frameDocument.brotli <= 10 * 1024)}`,
  ],
  ['QR chunk / invoice chunk (lazy)', `${kb(w.qr.brotli)} / ${kb(w.invoice.brotli)} brotli`, 'separate chunks'],
  ...(results.weight.peers
    ? [
        ...Object.entries(results.weight.peers).map(([name, p]) => [
          `Weight: ${name}`,
          `${bundle(p)} (x${round(p.brotli / w.inlineFlow.brotli, 1)})`,
          `plus later: see results.json (measured ${results.weight.peersMeasured.slice(0, 10)})`,
        ]),
        ['Smallest peer / our inline flow (brotli)', `${results.weight.ratioSmallestPeerToOurs}x`, ''],
      ]
    : []),
  ['Pay direct to sandbox, wrangler dev (p50/p95/p99)', `${o.direct.p50} / ${o.direct.p95} / ${o.direct.p99} ms`, ''],
  [
    'Pay through the Worker, wrangler dev (p50/p95/p99)',
    `${o.throughWorker.p50} / ${o.throughWorker.p95} / ${o.throughWorker.p99} ms`,
    '',
  ],
  [
    'Worker added latency, wrangler dev (p50/p95/p99)',
    `+${o.addedMs.p50} / +${o.addedMs.p95} / +${o.addedMs.p99} ms`,
    'reported (includes the proxy)',
  ],
  ['Pay direct to sandbox, in-process (p50/p95/p99)', `${od.direct.p50} / ${od.direct.p95} / ${od.direct.p99} ms`, ''],
  [
    'Pay through the Worker, in-process (p50/p95/p99)',
    `${od.throughWorker.p50} / ${od.throughWorker.p95} / ${od.throughWorker.p99} ms`,
    '',
  ],
  [
    'Worker alone, in-process: /healthz / GET view (p50)',
    `${od.routes.healthz.p50} / ${od.routes.view.p50} ms (the view is one Durable Object call)`,
    '',
  ],
  [
    'Worker added latency, in-process, no local trace collector, with a webhook URL, storage on disk (p50/p95/p99)',
    `+${od.addedMs.p50} / +${od.addedMs.p95} / +${od.addedMs.p99} ms (${od.webhooksReceived} events delivered)`,
    latencyVerdict(od),
  ],
  [
    'Floor: a Worker that only forwards, in-process (added p50/p99)',
    `+${od.floorMs.p50} / +${od.floorMs.p99} ms; ours beyond it ${signed(od.beyondFloorMs.p50)} / ${signed(od.beyondFloorMs.p99)} ms`,
    'what any Worker adds here',
  ],
  [
    'Floor: the same through one Durable Object writing before and after the gateway call (added p50/p99)',
    `+${od.ledgerFloorMs.p50} / +${od.ledgerFloorMs.p99} ms; ours beyond it ${signed(od.beyondLedgerFloorMs.p50)} / ${signed(od.beyondLedgerFloorMs.p99)} ms`,
    'what a pay that cannot be lost adds here',
  ],
  ...(odm
    ? [
        [
          "The same, the Durable Objects' storage in memory (tmpfs): added p50/p95/p99",
          `+${odm.addedMs.p50} / +${odm.addedMs.p95} / +${odm.addedMs.p99} ms (pay ${odm.throughWorker.p50} vs direct ${odm.direct.p50} ms p50; ${odm.webhooksReceived} events delivered)`,
          latencyVerdict(odm),
        ],
        [
          'Its floors, storage in memory: forwarding only / one Durable Object writing before and after (added p50/p99)',
          `+${odm.floorMs.p50} / +${odm.floorMs.p99} ms; +${odm.ledgerFloorMs.p50} / +${odm.ledgerFloorMs.p99} ms; ours beyond floor 2 ${signed(odm.beyondLedgerFloorMs.p50)} / ${signed(odm.beyondLedgerFloorMs.p99)} ms`,
          '',
        ],
      ]
    : [['Worker added latency, in-process, storage in memory', 'not measured: no /dev/shm on this machine', '']]),
  [
    "The same with wrangler's local trace collector: added p50/p99; floor 2's; ours beyond it",
    `+${odt.addedMs.p50} / +${odt.addedMs.p99} ms; +${odt.ledgerFloorMs.p50} / +${odt.ledgerFloorMs.p99} ms; ${signed(odt.beyondLedgerFloorMs.p50)} / ${signed(odt.beyondLedgerFloorMs.p99)} ms`,
    'reported (dev tooling, as wrangler dev runs it)',
  ],
  [
    'Load',
    `${results.load.payments} payments at ${results.load.concurrency}: ${results.load.throughputPerSecond}/s, p50 ${results.load.latencyMs.p50} ms, p99 ${results.load.latencyMs.p99} ms`,
    '',
  ],
  [
    'Load: errors; charges = successes',
    `${results.load.errors}; ${results.load.gatewayCharges} charges for ${results.load.succeeded} successes`,
    `0 errors, equal: ${met(results.load.errors === 0 && results.load.chargesEqualSuccesses)}`,
  ],
  webhookRow('Load', results.load.webhooks),
  [
    `Many merchants: ${mm.merchants} profiles, ${mm.payments} pays at ${mm.concurrency}`,
    `${mm.throughputPerSecond}/s (one merchant: ${results.load.throughputPerSecond}/s), p50 ${mm.latencyMs.p50} ms, p99 ${mm.latencyMs.p99} ms`,
    '',
  ],
  [
    'Many merchants: errors; merchants whose charges differ from successes; leaks; tokens per merchant',
    `${mm.errors}; ${mm.merchantsWithChargesUnequalToSuccesses}; ${mm.crossMerchantLeaks}; ${mm.tokenRequestsPerMerchant.min}-${mm.tokenRequestsPerMerchant.max}`,
    `0, 0, 0, 1: ${met(mm.errors === 0 && mm.merchantsWithChargesUnequalToSuccesses === 0 && mm.crossMerchantLeaks === 0 && mm.tokenRequestsPerMerchant.max === 1)}`,
  ],
  webhookRow('Many merchants', mm.webhooks),
  [
    `AuthToken requests, ${tk.isolates} isolates, ${tk.keeper.pays} pays: keepers / none`,
    `${tk.keeper.tokenRequests} / ${tk.perIsolate.tokenRequests} (errors ${tk.keeper.errors} / ${tk.perIsolate.errors}; charges ${tk.keeper.charges} for ${tk.keeper.succeeded} successes)`,
    `one per merchant and service: ${met(tk.keeper.tokenRequests === 1 && tk.keeper.errors === 0 && tk.keeper.charges === tk.keeper.succeeded)}`,
  ],
]
// Each of issue 21's targets with its verdict, beside the figures (written again with them).
results.targets = Object.fromEntries(rows.filter((r) => r[2].includes('<=')).map(([what, , target]) => [what, target]))
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
const width = Math.max(...rows.map((r) => r[0].length))
console.log(
  `\npay-checkout benchmarks (${results.machine.cpus} x ${results.machine.cpu}, ${results.machine.memoryGiB} GiB, Node ${results.machine.node})${quick ? ' QUICK' : ''}\n`,
)
for (const [what, value, target] of rows)
  console.log(`${what.padEnd(width)}  ${value}${target ? `   [target: ${target}]` : ''}`)
console.log('\nWritten to bench/results.json')
