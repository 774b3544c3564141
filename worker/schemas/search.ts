/**
 * @module
 * `GET /v1/payments` and `GET /v1/sessions`: the query of a listing. `metadata[key]=value` (one
 * pair) arrives as the object `metadata` (the query's deepObject style, worker/middleware/validate.ts).
 */
import * as v from 'valibot'
import { METADATA_KEY, METADATA_LIMITS } from '../sessions/metadata.ts'
import { DEFAULT_LIMIT } from '../search/query.ts'
import { described, field, oneOf } from './build.ts'

export { DEFAULT_LIMIT }

export const MAX_LIMIT = 100
const TIME = 'Unix seconds or ISO 8601'

/** A time as unix seconds or an ISO 8601 date(-time), in ms; undefined when it is neither. */
function time(t: string): number | undefined {
  if (/^\d{1,12}$/.test(t)) return Number(t) * 1000
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) return undefined
  const ms = Date.parse(t)
  return Number.isFinite(ms) ? ms : undefined
}

const timeParam = (description: string) =>
  v.optional(
    described(
      v.pipe(
        v.string('format'),
        v.rawTransform<string, number>(({ dataset, addIssue, NEVER }) => {
          const ms = time(dataset.value)
          if (ms !== undefined) return ms
          addIssue({ message: 'format', expected: TIME })
          return NEVER
        }),
      ),
      TIME,
      { description },
    ),
  )

/** `limit`: a page's size, of every listing. */
export const limitParam = () =>
  v.optional(
    described(
      v.pipe(
        v.string('out_of_range'),
        v.regex(/^\d{1,3}$/, 'out_of_range'),
        v.transform(Number),
        v.minValue(1, 'out_of_range'),
        v.maxValue(MAX_LIMIT, 'out_of_range'),
      ),
      `an integer from 1 to ${MAX_LIMIT}`,
      { description: `Page size (default ${DEFAULT_LIMIT})` },
    ),
  )

/** `starting_after`: the last id of the previous page, in the listing's id grammar. */
export const cursorParam = (id: { test: (s: string) => boolean; expected: string }) =>
  v.optional(
    described(v.pipe(v.string('format'), v.check(id.test, 'format')), id.expected, {
      description: 'The last id of the previous page',
    }),
  )

/** The query of a listing; `statuses` are the table's, `id` its id grammar (for the cursor). */
export const listQuery = (
  statuses: readonly [string, ...string[]],
  id: { test: (s: string) => boolean; expected: string },
) =>
  v.strictObject({
    status: v.optional(oneOf(statuses)),
    created_gte: timeParam(`Created at or after: ${TIME}`),
    created_lt: timeParam(`Created before: ${TIME}`),
    order: v.optional(field('merchantTransactionId', { description: 'The merchantTransactionId' })),
    email: v.optional(v.pipe(field('email', { description: "The session's customer.email" }), v.toLowerCase())),
    amount: v.optional(
      field('amount', {
        description: 'The amount, exactly (12.50); a payment captured in part is found by the amount captured too',
      }),
    ),
    last4: v.optional(
      described(v.pipe(v.string('format'), v.regex(/^\d{4}$/, 'format')), 'four digits', {
        description: "The card's last four digits",
      }),
    ),
    metadata: v.optional(
      described(
        v.pipe(
          v.record(
            v.pipe(v.string(), v.regex(METADATA_KEY, 'format')),
            v.pipe(v.string('format'), v.maxLength(METADATA_LIMITS.valueLength, 'format')),
          ),
          v.maxEntries(1, 'out_of_range'),
        ),
        `one pair, metadata[key]=value (key ${METADATA_KEY.source})`,
        { description: 'One metadata pair: metadata[orderId]=A-1001' },
      ),
    ),
    limit: limitParam(),
    needs_attention: v.optional(
      described(v.picklist(['true'], 'invalid_value'), 'true', {
        description:
          'Only those with an operation still unknown after hours of inquiries (asked about hourly until it settles)',
      }),
    ),
    starting_after: cursorParam(id),
  })

export type ListQueryInput = v.InferOutput<ReturnType<typeof listQuery>>
