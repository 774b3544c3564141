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

// The search index (D1) as `npm start` has it: the migrations applied (idempotent).
beforeAll(() => applyD1Migrations(env.DB, env.TEST_MIGRATIONS))

const captured: string[] = []
for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  const original = console[level].bind(console)
  console[level] = (...args: unknown[]) => {
    const line = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')
    captured.push(line)
    // Keep test output readable: only errors are shown, everything is scanned.
    if (level === 'error') original(...args)
  }
}

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

export async function storageDump(): Promise<string> {
  const parts: string[] = []
  for (const ns of [
    env.SESSIONS,
    env.OPERATIONS,
    env.VELOCITY,
    env.PAYMENTS,
    env.REGISTRATIONS,
  ] as unknown as DurableObjectNamespace<undefined>[]) {
    for (const id of await listDurableObjectIds(ns)) {
      parts.push(
        await runInDurableObject(ns.get(id), async (_instance, state) =>
          JSON.stringify([...(await state.storage.list())]),
        ),
      )
    }
  }
  return parts.join('\n')
}

afterAll(async () => {
  expect(leaksIn(captured.join('\n')), 'log lines').toEqual([])
  expect(leaksIn(await storageDump()), 'Durable Object storage').toEqual([])
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
