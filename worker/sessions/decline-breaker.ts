/**
 * @module
 * The decline-rate breaker (SECURITY.md R12). Card testers show up as a burst of declines across
 * many sessions. One object per deployment counts settled card attempts per minute; when the
 * declines of the last ten minutes pass a share of the attempts (and a minimum count), it trips
 * for a while: new card attempts then need the Turnstile check, or are refused where Turnstile is
 * not configured, and the merchant is told (`checkout.breaker.tripped`, then `.reset`).
 */
import type { Env } from '../env.ts'
import { TaskedObject } from './tasked-object.ts'

const MINUTE_MS = 60_000
const WINDOW_MINUTES = 10

interface BreakerRecord {
  /** attempts and declines per minute (`Math.floor(ms / 60000)`), the last ten minutes. */
  minutes: Record<string, [attempts: number, declines: number]>
  trippedUntil: number
  seq: number
}

export interface BreakerState {
  readonly tripped: boolean
  /** When new card attempts are let through again (ms since the epoch), while tripped. */
  readonly until?: number
}

function settings(env: Env): { minAttempts: number; rate: number; pauseMs: number } {
  const n = (v: string | undefined, fallback: number) => (v !== undefined && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : fallback)
  return { minAttempts: n(env.BREAKER_MIN_ATTEMPTS, 20), rate: Math.min(1, n(env.BREAKER_DECLINE_RATE, 0.6)), pauseMs: n(env.BREAKER_PAUSE_MS, 15 * MINUTE_MS) }
}

export class DeclineBreaker extends TaskedObject {
  private record_?: BreakerRecord

  private async load(): Promise<BreakerRecord> {
    this.record_ ??= (await this.ctx.storage.get<BreakerRecord>('breaker')) ?? { minutes: {}, trippedUntil: 0, seq: 0 }
    return this.record_
  }

  /** Counts one settled card attempt; trips the breaker when declines pass the threshold. */
  async count(declined: boolean): Promise<BreakerState> {
    const r = await this.load()
    const now = Date.now()
    const minute = Math.floor(now / MINUTE_MS)
    for (const m of Object.keys(r.minutes)) if (Number(m) <= minute - WINDOW_MINUTES) delete r.minutes[m]
    const bucket = (r.minutes[minute] ??= [0, 0])
    bucket[0] += 1
    if (declined) bucket[1] += 1
    const [attempts, declines] = Object.values(r.minutes).reduce(([a, d], [x, y]) => [a + x, d + y], [0, 0])
    const { minAttempts, rate, pauseMs } = settings(this.env)
    if (now >= r.trippedUntil && attempts >= minAttempts && declines >= attempts * rate) {
      r.trippedUntil = now + pauseMs
      r.minutes = {}
      r.seq += 1
      await this.commit('breaker', r.seq, { breaker: r }, [{ type: 'checkout.breaker.tripped', data: { attempts, declines, windowMinutes: WINDOW_MINUTES, until: new Date(r.trippedUntil).toISOString(), sequence: r.seq } }])
      await this.schedule('reset', r.trippedUntil)
    } else {
      await this.ctx.storage.put('breaker', r)
    }
    return this.state()
  }

  async state(): Promise<BreakerState> {
    const r = await this.load()
    return Date.now() < r.trippedUntil ? { tripped: true, until: r.trippedUntil } : { tripped: false }
  }

  protected async runTask(name: string): Promise<void> {
    const r = await this.load()
    if (name !== 'reset' || Date.now() < r.trippedUntil || r.trippedUntil === 0) return
    // A fresh window: what was counted while paused must not trip it again at once.
    r.minutes = {}
    r.seq += 1
    await this.commit('breaker', r.seq, { breaker: r }, [{ type: 'checkout.breaker.reset', data: { sequence: r.seq } }])
  }
}

/** The deployment's breaker. */
export function breakerStub(env: Env): DurableObjectStub<DeclineBreaker> {
  return env.BREAKER.get(env.BREAKER.idFromName('deployment'))
}

/** Per isolate: the breaker's state is asked at most every few seconds on the pay path. */
let cached: { at: number; state: BreakerState } | undefined
const CACHE_MS = 5_000

export async function breakerState(env: Env, now = Date.now()): Promise<BreakerState> {
  if (cached && now - cached.at < CACHE_MS && (!cached.state.tripped || (cached.state.until ?? 0) > now)) return cached.state
  const state = await breakerStub(env).state()
  cached = { at: now, state }
  return state
}

