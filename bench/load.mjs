// `npm run bench`'s sessions and load test (bench/run.mjs): sessions created as a merchant's server
// creates them, and a bounded load of card pays through the Worker against the sandbox.
import { performance } from 'node:perf_hooks'
import { STACK_SECRETS } from '../tools/stacks.mjs'
import { pct, round } from './stats.mjs'

// ---- the stack for 2-4 --------------------------------------------------------------------

export async function merchant(worker, path, body) {
  const res = await (worker.fetch ?? ((p, init) => fetch(`${worker.url}${p}`, init)))(path, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${STACK_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return res.json()
}

export const cardBody = JSON.stringify({
  card: { number: '4111111111111111', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
  customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
})

export async function newSessions(worker, n, concurrency, origin) {
  const out = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1
        out.push(
          await merchant(worker, '/v1/sessions', {
            flow: 'card',
            amount: '10.00',
            currency: 'EUR',
            merchantTransactionId: `bench-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`,
            ...(origin ? { allowedOrigins: [origin] } : {}),
          }),
        )
      }
    }),
  )
  return out
}

// ---- 4. load ------------------------------------------------------------------------------

/** A browser's card pay on session `s`: the pay's answer, or undefined when none came. */
export async function payCard(worker, s, key) {
  try {
    const res = await fetch(`${worker.url}/v1/checkout/${s.id}/pay`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${s.clientSecret}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: cardBody,
    })
    return { status: res.status, body: await res.json() }
  } catch {
    return undefined
  }
}

/**
 * `payments` card pays on fresh sessions, `concurrency` at a time, through the Worker: latency,
 * throughput, and the gateway's charge count; with `receiver` (the Worker's webhook URL is its
 * `/default`), the final events the merchant got for them too.
 */
export async function load(worker, sandbox, { payments, concurrency, receiver }) {
  const before = await (await fetch(`${sandbox.url}/sandbox/stats`)).json()
  const sessions = await newSessions(worker, payments, concurrency)
  const latencies = []
  let errors = 0
  const paidSessions = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sessions.length) {
        const s = sessions[next++]
        const t = performance.now()
        const paid = await payCard(worker, s, `l-${s.id}`)
        if (paid?.status === 200 && paid.body.status === 'succeeded') paidSessions.push(s.id)
        else errors += 1
        latencies.push(performance.now() - t)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const after = await (await fetch(`${sandbox.url}/sandbox/stats`)).json()
  const succeeded = paidSessions.length
  let webhooks
  if (receiver) {
    await receiver.quiet()
    webhooks = await receiver.finalEvents({ '/default': paidSessions })
  }
  return {
    payments: sessions.length,
    concurrency,
    seconds: round(seconds, 2),
    throughputPerSecond: round(sessions.length / seconds, 1),
    latencyMs: { p50: round(pct(latencies, 50)), p95: round(pct(latencies, 95)), p99: round(pct(latencies, 99)) },
    succeeded,
    errors,
    gatewayCharges: after.charges - before.charges,
    chargesEqualSuccesses: after.charges - before.charges === succeeded,
    ...(webhooks ? { webhooks } : {}),
  }
}
