/**
 * Runs in every Worker test file: captures everything the Worker logs and, after the file's
 * tests, scans the captured logs and every Durable Object's storage for card numbers, CVVs and
 * secrets (SECURITY.md R16, R25). A leak fails the file.
 */
import { applyD1Migrations, env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test'
import { afterAll, beforeAll, expect } from 'vitest'
import { BRAND_RULES, detectBrand, luhnValid } from '../../shared/card.ts'
import { SANDBOX, TEST_SECRETS } from '../../tools/credentials.ts'
import { seenAnswers } from './api.ts'

/**
 * Test files share a runtime one after another (the config's `isolate: false`), and this file runs
 * again before each. So the console is wrapped once per runtime, each file scans what was logged
 * while it ran and the storage of the objects it made, and each file begins as on a runtime of its
 * own (`beginFile`).
 */
const runtime = globalThis as typeof globalThis & {
  __captured?: string[]
  __scanned?: Set<string>
  __emptied?: Set<string>
}
const firstFile = runtime.__captured === undefined
const captured = (runtime.__captured ??= [])
/** Objects whose storage a file's scan read (since they were last emptied). */
const scanned = (runtime.__scanned ??= new Set<string>())
/** Objects emptied by `beginFile`. */
const emptied = (runtime.__emptied ??= new Set<string>())
if (firstFile)
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level].bind(console)
    console[level] = (...args: unknown[]) => {
      const line = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')
      captured.push(line)
      // Keep test output readable: only errors are shown, everything is scanned.
      if (level === 'error') original(...args)
    }
  }

beforeAll(async () => {
  // The search index (D1) as `npm start` has it: the migrations applied (idempotent).
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS)
  await beginFile()
  captured.length = 0
})

/** What must never appear in a log line or in storage. */
export function leaksIn(text: string): string[] {
  const found: string[] = []
  // A number stands alone (quotes, `=`, spaces around it). Digit runs inside hex strings
  // (hashes, HMAC fingerprints, derived ids) are not card numbers, though one in ten that looks
  // like a brand's passes Luhn: counting them made the scan fail at random.
  for (const run of text.match(/(?<![0-9A-Za-z])\d{12,19}(?![0-9A-Za-z])/g) ?? []) {
    const brand = detectBrand(run)
    if (brand && BRAND_RULES[brand].lengths.includes(run.length) && luhnValid(run))
      found.push(`card number ending ${run.slice(-4)}`)
  }
  if (/cvv"?\s*[:=]\s*"?\d{3,4}/i.test(text)) found.push('a CVV value')
  if (/_secret_[A-Za-z0-9]{43}/.test(text)) found.push('a client secret')
  for (const [name, value] of Object.entries({ ...TEST_SECRETS, AUTH: SANDBOX.authToken })) {
    if (value && value.length >= 8 && text.includes(value)) found.push(`the ${name} value`)
  }
  return found
}

/** The namespaces whose objects hold what a payment leaves. */
const namespaces = () =>
  [
    env.SESSIONS,
    env.OPERATIONS,
    env.VELOCITY,
    env.PAYMENTS,
    env.REGISTRATIONS,
  ] as unknown as DurableObjectNamespace<undefined>[]

/** The storage of every Durable Object (`onlyNew`: of those no earlier file of this runtime scanned). */
export async function storageDump(onlyNew = false): Promise<string> {
  const parts: string[] = []
  for (const ns of namespaces()) {
    for (const id of await listDurableObjectIds(ns)) {
      if (onlyNew && scanned.has(id.toString())) continue
      scanned.add(id.toString())
      parts.push(
        await runInDurableObject(ns.get(id), async (_instance, state) =>
          JSON.stringify([...(await state.storage.list())]),
        ),
      )
    }
  }
  return parts.join('\n')
}

/**
 * What the files before this one left in the runtime is gone, as on a runtime of its own, however
 * they ended: the database's rows (the index, the merchant profiles, whose gateway members this
 * file's may be), and every object they made, emptied and reset, so that nothing they left running
 * or stored to run (webhook retries, inquiries, expiries) reaches this file's tests. The migrations'
 * own table stays. An object named as one before it (a test card's velocity) is emptied once.
 */
async function beginFile(): Promise<void> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT GLOB 'sqlite_*' AND name NOT GLOB 'd1_*' AND name NOT GLOB '_cf_*'",
  ).all<{ name: string }>()
  if (tables.results.length > 0)
    await env.DB.batch(tables.results.map(({ name }) => env.DB.prepare(`DELETE FROM "${name}"`)))
  for (const ns of [
    ...namespaces(),
    env.BREAKER,
    env.ORDERS,
    env.TOKEN_KEEPERS,
  ] as unknown as DurableObjectNamespace<undefined>[])
    for (const id of await listDurableObjectIds(ns)) {
      if (emptied.has(id.toString())) continue
      emptied.add(id.toString())
      scanned.delete(id.toString())
      await runInDurableObject(ns.get(id), async (_instance, state) => {
        await state.storage.deleteAlarm()
        await state.storage.deleteAll()
        // Whatever it was still running stops with it (and this call ends in the abort's error).
        state.abort()
      }).catch(() => {})
    }
}

afterAll(async () => {
  expect(leaksIn(captured.join('\n')), 'log lines').toEqual([])
  expect(leaksIn(await storageDump(true)), 'Durable Object storage').toEqual([])
  // The answers this file saw, and every event sent so far, against the API document.
  const seen = seenAnswers.splice(0)
  const answers = (await (
    await fetch(`${env.CATCHER_URL}/contract/answers`, { method: 'POST', body: JSON.stringify(seen) })
  ).json()) as { checked: number; errors: string[] }
  expect(answers.checked).toBe(seen.length)
  expect(answers.errors, 'answers against the API document').toEqual([])
  const events = (await (await fetch(`${env.CATCHER_URL}/contract/events`)).json()) as { errors: string[] }
  expect(events.errors, 'events against the API document').toEqual([])
})
