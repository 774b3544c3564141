/**
 * @module
 * The decline-rate breaker (SECURITY.md R12). Card testers show up as a burst of declines. One
 * object per deployment counts settled card attempts per minute, per deployment and per source
 * (the client's network: an IPv4 /24, an IPv6 /64, hashed). It acts on the sources of the declines,
 * so that a stranger cannot stop honest shoppers paying:
 * - a source whose declines pass the share (and a minimum count) is paused alone: its new card
 *   attempts need the Turnstile check, or are refused where Turnstile is not configured;
 * - the whole deployment trips only when the declines come from many sources at once (a
 *   distributed card-testing wave): new card attempts then need Turnstile, or are refused where
 *   it is not configured, and the merchant is told (`checkout.breaker.tripped`, then `.reset`).
 */
import type { Env } from '../env.ts'
import { sha256Hex } from '../ids.ts'
import { log } from '../log.ts'
import { ipv6Network } from '../network.ts'
import { TaskedObject } from '../sessions/tasked-object.ts'

const MINUTE_MS = 60_000
const WINDOW_MINUTES = 10

type Counts = Record<string, [attempts: number, declines: number]>

interface BreakerRecord {
  /** attempts and declines per minute (`Math.floor(ms / 60000)`), the last ten minutes. */
  minutes: Counts
  /** The same per source, and the sources paused alone (until when). */
  sources?: Record<string, Counts>
  pausedSources?: Record<string, number>
  trippedUntil: number
  seq: number
  /** When a trip or a reset last cleared the window: attempts settled before it are not counted. */
  clearedAt?: number
}

export interface BreakerState {
  readonly tripped: boolean
  /** When new card attempts are let through again (ms since the epoch), while tripped. */
  readonly until?: number
  /** Sources paused alone, and until when. */
  readonly pausedSources?: Readonly<Record<string, number>>
}

/** Sources tracked at once: the oldest are dropped past this (the object's memory stays small). */
const MAX_SOURCES = 2_000

function settings(env: Env): {
  minAttempts: number
  rate: number
  pauseMs: number
  minSources: number
  sourceMinAttempts: number
} {
  const n = (v: string | undefined, fallback: number) =>
    v !== undefined && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : fallback
  return {
    minAttempts: n(env.BREAKER_MIN_ATTEMPTS, 20),
    rate: Math.min(1, n(env.BREAKER_DECLINE_RATE, 0.6)),
    pauseMs: n(env.BREAKER_PAUSE_MS, 15 * MINUTE_MS),
    minSources: n(env.BREAKER_MIN_SOURCES, 10),
    sourceMinAttempts: n(env.BREAKER_SOURCE_MIN_ATTEMPTS, 5),
  }
}

const totals = (counts: Counts): [number, number] =>
  Object.values(counts).reduce(([a, d], [x, y]) => [a + x, d + y], [0, 0])
const prune = (counts: Counts, minute: number) => {
  for (const m of Object.keys(counts)) if (Number(m) <= minute - WINDOW_MINUTES) delete counts[m]
}

export class DeclineBreaker extends TaskedObject {
  protected readonly binding = 'BREAKER' as const
  private record_?: BreakerRecord

  private async load(): Promise<BreakerRecord> {
    this.record_ ??= (await this.ctx.storage.get<BreakerRecord>('breaker')) ?? { minutes: {}, trippedUntil: 0, seq: 0 }
    return this.record_
  }

  /**
   * One settled card attempt, as the version before `countBatch` sent it: kept so that, while a
   * deployment rolls out, an isolate of that version still counts.
   */
  async count(declined: boolean, source = 'unknown'): Promise<BreakerState> {
    return this.countBatch([{ source, attempts: 1, declines: declined ? 1 : 0 }])
  }

  /**
   * Counts settled card attempts, per source, in the order given; pauses a source whose own
   * declines pass the threshold, and trips the deployment when the declines also come from many
   * sources.
   */
  async countBatch(settled: readonly Settled[]): Promise<BreakerState> {
    const r = await this.load()
    const now = Date.now()
    const minute = Math.floor(now / MINUTE_MS)
    const { minAttempts, rate, pauseMs, minSources, sourceMinAttempts } = settings(this.env)
    prune(r.minutes, minute)
    const sources = (r.sources ??= {})
    const paused = (r.pausedSources ??= {})
    for (const [key, counts] of Object.entries(sources)) {
      prune(counts, minute)
      if (Object.keys(counts).length === 0) delete sources[key]
    }
    for (const [key, until] of Object.entries(paused)) if (until <= now) delete paused[key]
    for (const { source, attempts, declines, at = now } of settled) {
      // Filed under the minute they settled in (successes wait up to a second or so, longer when
      // their timer was lost); none from before the window began or was last cleared.
      const settledMinute = Math.floor(Math.min(at, now) / MINUTE_MS)
      if (settledMinute <= minute - WINDOW_MINUTES || at < (r.clearedAt ?? 0)) continue
      const keys = Object.keys(sources)
      if (!(source in sources) && keys.length >= MAX_SOURCES) delete sources[keys[0] ?? '']
      for (const counts of [r.minutes, (sources[source] ??= {})]) {
        const bucket = (counts[settledMinute] ??= [0, 0])
        bucket[0] += attempts
        bucket[1] += declines
      }
      // This source alone: paused when its own declines pass the share.
      const [own, ownDeclines] = totals(sources[source] ?? {})
      if (!(source in paused) && own >= sourceMinAttempts && ownDeclines >= own * rate) paused[source] = now + pauseMs
    }
    const [attempts, declines] = totals(r.minutes)
    // The deployment: only when the declines come from many sources (one source is paused alone).
    const declining = Object.values(sources).filter((c) => totals(c)[1] > 0).length
    if (now >= r.trippedUntil && attempts >= minAttempts && declines >= attempts * rate && declining >= minSources) {
      r.trippedUntil = now + pauseMs
      r.minutes = {}
      r.clearedAt = now
      r.seq += 1
      await this.commit('breaker', r.seq, { breaker: r }, [
        {
          type: 'checkout.breaker.tripped',
          data: {
            attempts,
            declines,
            windowMinutes: WINDOW_MINUTES,
            until: new Date(r.trippedUntil).toISOString(),
            sequence: r.seq,
          },
        },
      ])
      await this.schedule('reset', r.trippedUntil)
    } else {
      await this.ctx.storage.put('breaker', r)
    }
    return this.state()
  }

  async state(): Promise<BreakerState> {
    const r = await this.load()
    const now = Date.now()
    const pausedSources = Object.fromEntries(Object.entries(r.pausedSources ?? {}).filter(([, until]) => until > now))
    const sources = Object.keys(pausedSources).length > 0 ? { pausedSources } : {}
    return now < r.trippedUntil ? { tripped: true, until: r.trippedUntil, ...sources } : { tripped: false, ...sources }
  }

  protected async runTask(name: string): Promise<void> {
    const r = await this.load()
    if (name !== 'reset' || Date.now() < r.trippedUntil || r.trippedUntil === 0) return
    // A fresh window: what was counted while paused must not trip it again at once.
    r.minutes = {}
    r.sources = {}
    r.clearedAt = Date.now()
    // Reset once: a run of this task again (its alarm's run cut short after this write) finds
    // nothing to reset, and tells nothing twice.
    r.trippedUntil = 0
    r.seq += 1
    await this.commit('breaker', r.seq, { breaker: r }, [{ type: 'checkout.breaker.reset', data: { sequence: r.seq } }])
  }
}

/** The deployment's breaker. */
export function breakerStub(env: Env): DurableObjectStub<DeclineBreaker> {
  return env.BREAKER.get(env.BREAKER.idFromName('deployment'))
}

/** Settled card attempts of one source, and how many of them were declined. */
export interface Settled {
  readonly source: string
  readonly attempts: number
  readonly declines: number
  /** When they settled (the earliest of them; ms since the epoch); unset: now. */
  readonly at?: number
}

/**
 * Successes this isolate settled and has not counted yet, per source, and when the first of them
 * settled. A success only lowers the share of declines, so successes wait to be counted together,
 * about `SUCCESS_WAIT_MS`, or with this isolate's next decline, which takes them along (counted
 * before it): the deployment's one breaker object gets a call per decline and about one a second
 * per isolate for the successes, not one per payment (R26). Meanwhile the breaker sees a share of
 * declines higher than it is, never lower: the breaker files them under the minute the first
 * settled (they leave its window no later than they would have) and drops those from before a
 * trip or a reset cleared it; an isolate that stops in between loses its waiting successes.
 */
const waiting = new Map<string, { attempts: number; at: number }>()
/** When the timer set by a success sends the waiting successes; undefined when none is set. */
let sendAt: number | undefined
const SUCCESS_WAIT_MS = 1_000

/**
 * Counts one settled card attempt of `source` for the breaker, off the caller's path (`waitUntil`):
 * a decline at once, with the successes waiting; a success with the others, within a second.
 */
export function countSettled(
  env: Env,
  waitUntil: (work: Promise<unknown>) => void,
  declined: boolean,
  source = 'unknown',
): void {
  if (declined) {
    waitUntil(send(env, [{ source, attempts: 1, declines: 1 }]))
    return
  }
  const now = Date.now()
  const held = waiting.get(source)
  waiting.set(source, { attempts: (held?.attempts ?? 0) + 1, at: held?.at ?? now })
  // The first success to wait sets the timer, in its own request's context. That context can end
  // before it fires (its object reset): past its time, the next success sets another.
  if (sendAt !== undefined && now < sendAt + SUCCESS_WAIT_MS) return
  const at = (sendAt = now + SUCCESS_WAIT_MS)
  waitUntil(
    new Promise<void>((resolve) => setTimeout(resolve, SUCCESS_WAIT_MS)).then(() => {
      if (sendAt === at) sendAt = undefined
      return send(env, [])
    }),
  )
}

/**
 * Sends the waiting successes, then `settled`: a decline is judged with the successes before it.
 * A breaker object still on the version before `countBatch` (a gradual deployment keeps an object
 * on one version) is told of the declines one by one with `count`; the successes are then lost,
 * which only makes it stricter.
 */
async function send(env: Env, settled: readonly Settled[]): Promise<void> {
  const batch: Settled[] = [...waiting].map(([source, { attempts, at }]) => ({ source, attempts, declines: 0, at }))
  waiting.clear()
  batch.push(...settled)
  if (batch.length === 0) return
  const breaker = breakerStub(env)
  try {
    await breaker.countBatch(batch)
  } catch (e) {
    log.warn('breaker_count_failed', { error: e })
    const declines = batch.flatMap((b) => Array<string>(b.declines).fill(b.source))
    for (const source of declines)
      await breaker.count(true, source).catch((e2: unknown) => log.warn('breaker_count_failed', { error: e2 }))
  }
}

/**
 * The source of a client address: its network (an IPv4 /24, an IPv6 /64), so that a tester moving
 * across the addresses of one network is one source. Hashed: the breaker keeps no address.
 */
export async function sourceOf(ip: string): Promise<string> {
  const network = ip.includes(':') ? ipv6Network(ip) : ip.split('.').slice(0, 3).join('.')
  return (await sha256Hex(`breaker-source|${network}`)).slice(0, 16)
}

/** Whether `source` is paused alone, and until when. */
export function sourcePausedUntil(state: BreakerState, source: string, now = Date.now()): number | undefined {
  const until = state.pausedSources?.[source]
  return until !== undefined && until > now ? until : undefined
}

/** Per isolate: the breaker's state is asked at most every few seconds on the pay path. */
let cached: { at: number; state: BreakerState } | undefined
const CACHE_MS = 5_000

export async function breakerState(env: Env, now = Date.now()): Promise<BreakerState> {
  if (cached && now - cached.at < CACHE_MS && (!cached.state.tripped || (cached.state.until ?? 0) > now))
    return cached.state
  const state = await breakerStub(env).state()
  cached = { at: now, state }
  return state
}
