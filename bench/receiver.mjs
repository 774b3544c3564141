// A merchant's webhook endpoint for the benchmarks: on loopback, in a thread of its own so its
// requests do not share the measuring thread (bench/receiver-thread.mjs). Each path is one
// merchant's URL, with the secrets its deliveries must be signed with; `finalEvents` checks the
// rule every paid session must meet: exactly one final event, to its own merchant, signed.
import { Worker } from 'node:worker_threads'
import { EVENT_TYPES } from '../shared/webhooks/events.ts'

/** @param {Record<string, readonly string[]>} secrets by path, e.g. `{ '/default': [WEBHOOK_SECRET] }` */
export async function startReceiver(secrets = {}) {
  const count = new Int32Array(new SharedArrayBuffer(4))
  const thread = new Worker(new URL('./receiver-thread.mjs', import.meta.url), { workerData: { secrets, count } })
  const port = await new Promise((resolve, reject) => {
    thread.once('error', reject)
    thread.once('message', (m) => resolve(m.port))
  })
  const deliveries = () =>
    new Promise((resolve) => {
      const heard = (m) => {
        if (m.type !== 'deliveries') return
        thread.off('message', heard)
        resolve(m.deliveries)
      }
      thread.on('message', heard)
      thread.postMessage({ type: 'deliveries' })
    })
  return {
    url: `http://127.0.0.1:${port}`,
    /** Adds a merchant's path and secrets (a profile made during the run). */
    expect: (path, pathSecrets) => thread.postMessage({ type: 'secrets', path, secrets: pathSecrets }),
    /**
     * Waits until nothing has come for a second (at most `maxMs`): the last events are on their way.
     * Answers how many deliveries came (every event, each try).
     */
    async quiet(maxMs = 60_000) {
      const until = Date.now() + maxMs
      let seen = -1
      while (seen !== Atomics.load(count, 0) && Date.now() < until) {
        seen = Atomics.load(count, 0)
        await new Promise((resolve) => setTimeout(resolve, 1_000))
      }
      return seen
    },
    /**
     * For each paid session (by the path its merchant's events go to): how many final events about
     * it came there, distinct by event id, and whether they were `checkout.session.succeeded`; and
     * every delivery whose signature did not hold, or that was about a session of another path.
     */
    async finalEvents(paidByPath) {
      const all = await deliveries()
      const owner = new Map()
      for (const [path, ids] of Object.entries(paidByPath)) for (const id of ids) owner.set(id, path)
      const finals = new Map()
      let unsigned = 0
      let misrouted = 0
      for (const d of all) {
        if (!d.signed) unsigned += 1
        const path = owner.get(d.about)
        if (path === undefined) continue
        // Only the session's own merchant's events count for it.
        if (path !== d.path) misrouted += 1
        if (path !== d.path || !EVENT_TYPES[d.type]?.final) continue
        const seen = finals.get(d.about) ?? new Map()
        seen.set(d.id, d.type)
        finals.set(d.about, seen)
      }
      let exactlyOne = 0
      let none = 0
      let more = 0
      let notSucceeded = 0
      for (const id of owner.keys()) {
        const seen = finals.get(id)
        if (!seen) none += 1
        else if (seen.size > 1) more += 1
        else if ([...seen.values()][0] !== 'checkout.session.succeeded') notSucceeded += 1
        else exactlyOne += 1
      }
      return {
        deliveries: all.length,
        paidSessions: owner.size,
        exactlyOne,
        none,
        more,
        notSucceeded,
        unsigned,
        misrouted,
      }
    },
    stop: () => thread.terminate(),
  }
}
