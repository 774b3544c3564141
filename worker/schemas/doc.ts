/**
 * @module
 * The document's words shared by the routes' `describeRoute` entries: security, the error answers,
 * the Idempotency-Key header and path parameters (their patterns from the same grammars the
 * routes check). Request bodies and queries come from the schemas themselves (validate.ts).
 */
import { FORMAT_EXPECTED, FORMAT_PATTERN, type Format } from '../../shared/formats.ts'
import { IDEMPOTENCY_KEY } from './idempotency-key.ts'

export const merchant = [{ merchantKey: [] }]
export const browser = [{ clientSecret: [] }]

export const json = (schema: object) => ({ content: { 'application/json': { schema } } })
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The error answers of a route, each in the one error shape. */
export const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [String(c), { description: 'Error', ...json(ref('Error')) }]))

export const idempotencyKey = (required = true) => ({
  name: 'Idempotency-Key',
  in: 'header' as const,
  required,
  schema: { type: 'string' as const, pattern: IDEMPOTENCY_KEY.source },
  description: required
    ? 'The same key never runs the request twice: a retry gets the first answer.'
    : 'Makes creation safe to retry: the same request with the same key answers the same session.',
})

/** Path parameters of the given formats (a paymentId is a gateway id). */
export const pathParams = (params: Readonly<Record<string, Format | { pattern: string; description?: string }>>) =>
  Object.entries(params).map(([name, f]) => {
    const pattern = typeof f === 'string' ? FORMAT_PATTERN[f] : f.pattern
    const description = typeof f === 'string' ? (pattern ? undefined : FORMAT_EXPECTED[f]) : f.description
    return {
      name,
      in: 'path' as const,
      required: true,
      schema: {
        type: 'string' as const,
        ...(pattern ? { pattern } : {}),
        ...(description ? { description } : {}),
      },
    }
  })
