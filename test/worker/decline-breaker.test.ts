/**
 * What the decline breaker counts (R12, R26), on an object of its own with the smoke stack's low
 * thresholds (a source: 3 settled attempts; the deployment: 4, from 2 sources; half declined).
 * Isolates tell it of their successes together, a second or more after they settled: they count
 * in the minute they settled, and not at all once a trip or a reset has cleared the window since,
 * so waiting never makes the breaker see fewer declines than there were.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { BreakerState, DeclineBreaker } from '../../worker/guards/decline-breaker.ts'
import { uniqueId } from './helpers.ts'

const MINUTE = 60_000

/** A breaker of its own (not the deployment's), with low thresholds. */
async function breaker(): Promise<DurableObjectStub<DeclineBreaker>> {
  const stub = env.BREAKER.get(env.BREAKER.idFromName(uniqueId('breaker')))
  await runInDurableObject(stub, (object) => {
    ;(object as unknown as { env: object }).env = {
      ...env,
      BREAKER_MIN_ATTEMPTS: '4',
      BREAKER_DECLINE_RATE: '0.5',
      BREAKER_SOURCE_MIN_ATTEMPTS: '3',
      BREAKER_MIN_SOURCES: '2',
      BREAKER_PAUSE_MS: String(10 * MINUTE),
      MERCHANT_WEBHOOK_URL: '',
    }
  })
  return stub
}

const paused = (state: BreakerState, source: string) => Object.keys(state.pausedSources ?? {}).includes(source)

describe('the decline breaker counts successes that waited', () => {
  it('in the minute they settled: ten successes from before its window leave three declines alone, and the source is paused', async () => {
    const b = await breaker()
    await b.countBatch([{ source: 'net-a', attempts: 10, declines: 0, at: Date.now() - 11 * MINUTE }])
    const state = await b.countBatch([{ source: 'net-a', attempts: 3, declines: 3 }])
    expect(paused(state, 'net-a')).toBe(true)
  })

  it('and the same successes from inside the window keep the source paying (the share stays under half)', async () => {
    const b = await breaker()
    await b.countBatch([{ source: 'net-b', attempts: 10, declines: 0, at: Date.now() - 2 * MINUTE }])
    const state = await b.countBatch([{ source: 'net-b', attempts: 3, declines: 3 }])
    expect(paused(state, 'net-b')).toBe(false)
  })

  it('not at all when a trip cleared the window after they settled: the declines that follow pause their source', async () => {
    const b = await breaker()
    const before = Date.now() - 1_000
    const tripped = await b.countBatch([
      { source: 'net-x', attempts: 2, declines: 2 },
      { source: 'net-y', attempts: 2, declines: 2 },
    ])
    expect(tripped.tripped).toBe(true)
    await b.countBatch([{ source: 'net-c', attempts: 10, declines: 0, at: before }])
    const state = await b.countBatch([{ source: 'net-c', attempts: 3, declines: 3 }])
    expect(paused(state, 'net-c')).toBe(true)
  })
})
