// `npm run bench`'s many-merchants load (bench/run.mjs; README "Many merchants"): merchant profiles
// made through the platform API, each on a gateway member of its own (the sandbox keeps a ledger
// per member, so no single ledger serialises them), then card pays of every merchant at once
// through the Worker. Counts, per merchant: successes against the charges its member's ledger
// recorded, the AuthTokens its member issued, and whether any of its keys reads another's objects.
import { performance } from 'node:perf_hooks'
import { extraMember, extraMemberGateway, PLATFORM_SECRETS } from '../tools/credentials.ts'
import { payCard } from './load.mjs'
import { pct, round } from './stats.mjs'

const json = (res) => res.json()

async function platform(worker, path, body) {
  const res = await fetch(`${worker.url}/v1/platform${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${PLATFORM_SECRETS.PLATFORM_API_KEY}`, 'Content-Type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  if (!res.ok) throw new Error(`platform ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

const stats = (sandbox, member) => fetch(`${sandbox.url}/sandbox/stats?member=${member}`).then(json)

/** Runs `n` tasks `concurrency` at a time. */
async function pool(n, concurrency, task) {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++)
    }),
  )
}

/**
 * `merchants` profiles (sandbox extra members 1..merchants), `payments` card pays spread evenly
 * over them, `concurrency` at a time, sessions created beforehand by each merchant's own key. With
 * `receiver`, each merchant's webhooks go to a path of its own (`/m/<n>`), checked against its
 * own secret.
 */
export async function manyMerchants(worker, sandbox, { merchants, payments, concurrency, receiver }) {
  const shops = []
  for (let i = 1; i <= merchants; i++) {
    const m = extraMember(i)
    const path = `/m/${i}`
    const created = await platform(worker, '/merchants', {
      name: `Bench shop ${i}`,
      gateway: extraMemberGateway(i),
      ...(receiver ? { webhookUrl: `${receiver.url}${path}` } : {}),
    })
    receiver?.expect(path, [created.webhookSecret])
    shops.push({
      member: m.memberId,
      key: created.apiKey.key,
      path,
      before: await stats(sandbox, m.memberId),
      sessions: [],
      paid: [],
    })
  }
  // Sessions, each by its merchant's key (round robin, so every merchant pays throughout).
  const work = Array.from({ length: payments }, (_, i) => shops[i % shops.length])
  await pool(payments, concurrency, async (i) => {
    const shop = work[i]
    const res = await fetch(`${worker.url}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${shop.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        flow: 'card',
        amount: '10.00',
        currency: 'EUR',
        merchantTransactionId: `mm-${shop.member}-${i}-${Math.random().toString(36).slice(2, 8)}`,
      }),
    })
    shop.sessions.push(await res.json())
  })
  const latencies = []
  let errors = 0
  const started = performance.now()
  const order = work.map((shop, i) => ({ shop, s: shop.sessions[Math.floor(i / shops.length)] }))
  await pool(order.length, concurrency, async (i) => {
    const { shop, s } = order[i]
    const t = performance.now()
    const paid = await payCard(worker, s, `mm-${s.id}`)
    if (paid?.status === 200 && paid.body.status === 'succeeded') {
      shop.succeeded = (shop.succeeded ?? 0) + 1
      shop.paid.push(s.id)
      shop.paymentId ??= paid.body.paymentId
    } else errors += 1
    latencies.push(performance.now() - t)
  })
  const seconds = (performance.now() - started) / 1000
  // Per merchant: its member's charges against its successes, and the tokens its member issued.
  let mismatched = 0
  const tokens = []
  for (const shop of shops) {
    const after = await stats(sandbox, shop.member)
    if (after.charges - shop.before.charges !== (shop.succeeded ?? 0)) mismatched += 1
    tokens.push(after.tokens - shop.before.tokens)
  }
  // Leaks: each merchant's key on the next merchant's session and payment must find nothing.
  let leaks = 0
  for (const [i, shop] of shops.entries()) {
    const other = shops[(i + 1) % shops.length]
    const reads = [`/v1/sessions/${other.sessions[0].id}`, `/v1/payments/${other.paymentId}`]
    for (const path of reads) {
      const res = await fetch(`${worker.url}${path}`, { headers: { Authorization: `Bearer ${shop.key}` } })
      await res.body?.cancel()
      if (res.status !== 404) leaks += 1
    }
  }
  const succeeded = shops.reduce((n, s) => n + (s.succeeded ?? 0), 0)
  let webhooks
  if (receiver) {
    await receiver.quiet()
    webhooks = await receiver.finalEvents(Object.fromEntries(shops.map((s) => [s.path, s.paid])))
  }
  return {
    merchants,
    payments,
    concurrency,
    seconds: round(seconds, 2),
    throughputPerSecond: round(payments / seconds, 1),
    latencyMs: { p50: round(pct(latencies, 50)), p95: round(pct(latencies, 95)), p99: round(pct(latencies, 99)) },
    succeeded,
    errors,
    merchantsWithChargesUnequalToSuccesses: mismatched,
    crossMerchantLeaks: leaks,
    tokenRequestsPerMerchant: { min: Math.min(...tokens), max: Math.max(...tokens) },
    ...(webhooks ? { webhooks } : {}),
  }
}
