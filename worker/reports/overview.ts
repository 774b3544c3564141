/**
 * @module
 * The console's overview, from the search index (D1): payments' volume and count per day (UTC days,
 * per currency), and the checkout attempts' success rate and top decline reasons. Read from the
 * rows' views as they are; the index may lag the payments by a moment, as every listing does.
 */
import { formatAmount } from '../../shared/money.ts'

const DAY_MS = 24 * 60 * 60_000

export interface Overview {
  readonly object: 'overview'
  readonly since: string
  readonly days: readonly { date: string; currency: string; count: number; volume: string }[]
  readonly attempts: {
    readonly total: number
    readonly succeeded: number
    readonly declined: number
    readonly failed: number
    /** Succeeded of those the gateway decided (succeeded, declined, failed); null with none. */
    readonly successRate: number | null
  }
  readonly declineReasons: readonly { code: string | null; description: string | null; count: number }[]
}

/** The last `days` UTC days (today included) of `merchant`'s payments and attempts. */
export async function overview(db: D1Database, merchant: string, days: number, now = Date.now()): Promise<Overview> {
  const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS
  const [volume, attempts] = await db.batch<Record<string, unknown>>([
    // Amounts are decimal text with exactly two decimals: summed as whole hundredths, never as floats.
    db
      .prepare(
        `SELECT created_at / ${DAY_MS} AS day, currency, COUNT(*) AS n, SUM(CAST(REPLACE(amount, '.', '') AS INTEGER)) AS hundredths
         FROM payments WHERE merchant_id = ?1 AND created_at >= ?2 GROUP BY day, currency ORDER BY day, currency`,
      )
      .bind(merchant, since),
    db
      .prepare(
        `SELECT json_extract(a.value, '$.status') AS status, json_extract(a.value, '$.code') AS code,
                json_extract(a.value, '$.description') AS description, COUNT(*) AS n
         FROM sessions s, json_each(s.data, '$.attempts') a
         WHERE s.merchant_id = ?1 AND s.created_at >= ?2 GROUP BY 1, 2, 3`,
      )
      .bind(merchant, since),
  ])
  const count = (status: string) =>
    (attempts?.results ?? []).filter((r) => r.status === status).reduce((sum, r) => sum + Number(r.n), 0)
  const succeeded = count('succeeded')
  const declined = count('declined')
  const failed = count('failed')
  const decided = succeeded + declined + failed
  return {
    object: 'overview',
    since: new Date(since).toISOString(),
    days: (volume?.results ?? []).map((r) => ({
      date: new Date(Number(r.day) * DAY_MS).toISOString().slice(0, 10),
      currency: String(r.currency),
      count: Number(r.n),
      volume: formatAmount(Number(r.hundredths)),
    })),
    attempts: {
      total: (attempts?.results ?? []).reduce((sum, r) => sum + Number(r.n), 0),
      succeeded,
      declined,
      failed,
      successRate: decided === 0 ? null : succeeded / decided,
    },
    declineReasons: (attempts?.results ?? [])
      .filter((r) => r.status === 'declined')
      .map((r) => ({
        code: typeof r.code === 'string' ? r.code : null,
        description: typeof r.description === 'string' ? r.description : null,
        count: Number(r.n),
      }))
      .sort((a, b) => b.count - a.count)
      .slice(0, 5),
  }
}
