/**
 * @module
 * Reads a JSON body through a response table into a flat typed object. Values must be text
 * (numbers are turned into text, since some gateways send amounts as numbers); anything else
 * counts as missing. A required path that is missing makes the whole read fail.
 */
import type { ResponseField } from './fields.ts'
import { err, ok, type Result } from './result.ts'
import type { Flat } from './types.ts'

/** The value at a dotted path of a JSON object. */
export function at(body: unknown, path: string): unknown {
  let node: unknown = body
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** Reads `body` through `table`; fails with the paths of missing required fields. */
export function readFields<T extends Record<string, ResponseField>>(
  table: T,
  body: unknown,
): Result<Flat<T>, string[]> {
  const out: Record<string, string | undefined> = {}
  const missing: string[] = []
  for (const [key, field] of Object.entries(table)) {
    const value = text(at(body, field.path))
    if (value === undefined && field.required) missing.push(field.path)
    out[key] = value
  }
  return missing.length > 0 ? err(missing) : ok(out as Flat<T>)
}
