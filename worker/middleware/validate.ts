/**
 * @module
 * Checks a route's JSON body (read by `jsonBody`) or its query against the route's Valibot schema
 * (worker/schemas/) and hands the handler the typed result (`c.req.valid('json')`), or answers 400
 * `invalid_request` with every field error at once. The schema is registered with hono-openapi on
 * the same middleware, so the API document describes exactly what is checked here.
 */
import type { MiddlewareHandler } from 'hono'
import { resolver, uniqueSymbol } from 'hono-openapi'
import type * as v from 'valibot'
import { ApiError } from '../errors.ts'
import { checkFormat, expectedOf, type Format } from '../../shared/formats.ts'
import type { FieldError } from '../../shared/errors.ts'
import type { Env } from '../env.ts'
import { check } from '../schemas/build.ts'
import { idempotencyKeyMessage, idempotencyKeyOf } from '../schemas/idempotency-key.ts'
import type { JsonBodyVariables } from './json-body.ts'

type Target = 'json' | 'query'

/**
 * `schema` is what the document shows; `forRequest` builds the same schema with the deployment's
 * own settings (amount bounds) when they differ from the defaults. `params` are the path
 * parameters' formats, checked with the body so that every problem is reported at once.
 */
export function validate<T extends Target, S extends v.GenericSchema>(
  target: T,
  schema: S,
  options: { forRequest?: (env: Env) => S; params?: Readonly<Record<string, Format>> } = {},
): MiddlewareHandler<
  { Bindings: Env; Variables: JsonBodyVariables },
  string,
  { in: { [K in T]: v.InferInput<S> }; out: { [K in T]: v.InferOutput<S> } }
> {
  const middleware: MiddlewareHandler<{ Bindings: Env; Variables: JsonBodyVariables }> = async (c, next) => {
    const input = target === 'json' ? c.get('body') : deepObjects(c.req.query())
    const errors = Object.entries(options.params ?? {}).flatMap(([name, format]) =>
      paramErrors(name, format, c.req.param(name) ?? ''),
    )
    const result = check(options.forRequest ? options.forRequest(c.env) : schema, input)
    if (!result.ok) errors.push(...result.error)
    if (errors.length > 0 || !result.ok)
      throw new ApiError('invalid_request', 'Some fields are missing or invalid.', errors)
    c.req.addValidatedData(target, result.value as object)
    await next()
  }
  // hono-openapi reads the schema from here: the request body or the query parameters of the route.
  return Object.assign(middleware, { [uniqueSymbol]: { target, ...resolver(schema) } }) as never
}

/** A path parameter against its format (`paymentId` is a gateway id). */
export function paramErrors(name: string, format: Format, value: string): FieldError[] {
  const code = checkFormat(format, value)
  return code === null ? [] : [{ field: name, code: 'format', expected: expectedOf(format, 'format') }]
}

/**
 * A query string with `name[key]=value` pairs (OpenAPI's deepObject style, which openapi-fetch
 * sends) as nested objects: `metadata[orderId]=A-1` is `{ metadata: { orderId: 'A-1' } }`. The
 * objects have no prototype: no key can reach one.
 */
function deepObjects(query: Record<string, string>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>
  for (const [name, value] of Object.entries(query)) {
    const m = /^([A-Za-z_]+)\[([^\]]*)\]$/.exec(name)
    if (!m?.[1]) {
      out[name] = value
      continue
    }
    const held = out[m[1]]
    const o =
      typeof held === 'object' && held !== null
        ? (held as Record<string, unknown>)
        : (Object.create(null) as Record<string, unknown>)
    o[m[2] ?? ''] = value
    out[m[1]] = o
  }
  return out
}

/**
 * The Idempotency-Key header a route needs, or the request refused: 400 `invalid_request`, naming
 * the header and its rule (missing, or not of the key's format), never its value.
 */
export function requiredIdempotencyKey(header: string | undefined): string {
  const key = idempotencyKeyOf(header)
  if (typeof key !== 'string') throw new ApiError('invalid_request', idempotencyKeyMessage(key), [key])
  return key
}
