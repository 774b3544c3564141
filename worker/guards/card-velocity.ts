/**
 * @module
 * Per-card velocity (SECURITY.md R11): one object per card fingerprint, an HMAC of the card number
 * (never the number), counting attempts in a sliding window. Card testers cycle many sessions;
 * this counts across all of them.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'

const DAY_MS = 24 * 60 * 60_000

export class CardVelocity extends DurableObject<Env> {
  /** Counts one attempt unless `limit` attempts already fell in the last `windowMs`. */
  async hit(limit: number, windowMs: number): Promise<{ allowed: boolean; count: number }> {
    const now = Date.now()
    const recent = ((await this.ctx.storage.get<number[]>('hits')) ?? []).filter((t) => t > now - windowMs)
    if (recent.length >= limit) return { allowed: false, count: recent.length }
    recent.push(now)
    await this.ctx.storage.put('hits', recent)
    // Fingerprints live at most a day (PCI 3.3.1.2 guidance on keyed hashes).
    await this.ctx.storage.setAlarm(now + DAY_MS)
    return { allowed: true, count: recent.length }
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}
