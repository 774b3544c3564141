/**
 * @module
 * `GET /v1/reports/overview`: the console's overview (worker/reports/overview.ts), the last `days`
 * UTC days of the caller's payments and checkout attempts.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import * as v from 'valibot'
import type { Env } from '../env.ts'
import { merchantIdOf } from '../merchants/merchant-env.ts'
import { merchantAuth } from '../middleware/merchant-auth.ts'
import { validate } from '../middleware/validate.ts'
import { overview, type Overview } from '../reports/overview.ts'
import { described } from '../schemas/build.ts'
import { errors, json, merchant, ref } from '../schemas/doc.ts'

export const MAX_DAYS = 90
const DEFAULT_DAYS = 14

const overviewQuery = v.strictObject({
  days: v.optional(
    described(
      v.pipe(
        v.string('out_of_range'),
        v.regex(/^\d{1,2}$/, 'out_of_range'),
        v.transform(Number),
        v.minValue(1, 'out_of_range'),
        v.maxValue(MAX_DAYS, 'out_of_range'),
      ),
      `an integer from 1 to ${MAX_DAYS}`,
      { description: `How many UTC days, today included (default ${DEFAULT_DAYS})` },
    ),
  ),
})

export const reports = new Hono<{ Bindings: Env }>()
reports.use('*', merchantAuth())

reports.get(
  '/overview',
  describeRoute({
    summary: 'Volume and count per day, the success rate and the top decline reasons (search index; up to 15 s old)',
    operationId: 'getOverview',
    security: merchant,
    responses: { '200': { description: 'The overview', ...json(ref('Overview')) }, ...errors(400, 401, 429) },
  }),
  validate('query', overviewQuery),
  async (c) => {
    const merchant = merchantIdOf(c.env)
    const days = c.req.valid('query').days ?? DEFAULT_DAYS
    // It reads every session of the days asked (their attempts): a console left open, or a script,
    // asking again and again reads it once per isolate and 15 seconds.
    const key = `${merchant}|${days}`
    const kept = recent.get(key)
    if (kept && kept.at > Date.now() - OVERVIEW_FRESH_MS) return c.json(kept.value)
    const value = await overview(c.env.DB, merchant, days)
    if (recent.size >= 200) recent.clear()
    recent.set(key, { at: Date.now(), value })
    return c.json(value)
  },
)

/** How long an overview is answered again as it is, per isolate. */
const OVERVIEW_FRESH_MS = 15_000
const recent = new Map<string, { at: number; value: Overview }>()
