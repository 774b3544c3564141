/**
 * @module
 * Valibot schemas built from the field table, and the one way a body is checked against them.
 * A field's schema runs the table's own checker (`shared/formats.ts`, the one the sandbox and the
 * widget run), so no format is written twice; its `expected` (the checker's pattern or a phrase)
 * goes into every error about it and into the API document, which hono-openapi generates from
 * these same schemas (worker/routes/openapi.ts).
 *
 * What a check guarantees, whatever the route:
 * - every problem is reported at once, by field name (dotted for nested keys), never the value;
 * - a key the schema does not name is refused as `not_allowed` (each one, nested ones too), and
 *   is never copied: `__proto__` or `constructor` cannot reach an object;
 * - `null` and `""` count as absent, as they always have (a required field is then `required`).
 */
import * as v from 'valibot'
import { FIELD_ERROR_CODES, type FieldError, type FieldErrorCode } from '../../shared/errors.ts'
import { REQUEST_FIELDS, type RequestField, type RequestFieldName } from '../../shared/fields.ts'
import {
  checkFormat,
  expectedOf,
  FORMAT_EXPECTED,
  FORMAT_PATTERN,
  type Format,
  type FormatOptions,
} from '../../shared/formats.ts'
import { containsBrandCardNumber, containsCardNumber, normalizeCardNumber } from '../../shared/card.ts'
import { err, ok, type Result } from '../../shared/result.ts'

type Schema = v.GenericSchema
/** What a rawCheck's addIssue takes. */
type AddIssue = (info: { message: string; expected: string; path?: [v.ObjectPathItem] }) => void

/** What each schema takes, in words or as a pattern: the `expected` of an error about its field. */
const EXPECTED = new WeakMap<object, string>()

function expecting<S extends Schema>(schema: S, expected: string): S {
  EXPECTED.set(schema, expected)
  return schema
}

/** The document's words for a format: the pattern where one regex is the rule, else a description. */
function docOf(format: Format, options: FormatOptions, description?: string): Record<string, unknown> {
  const pattern = FORMAT_PATTERN[format]
  const doc: Record<string, unknown> = pattern ? { pattern } : {}
  if (options.values) doc.enum = [...options.values]
  const words = [description, pattern || options.values ? undefined : FORMAT_EXPECTED[format]]
    .filter(Boolean)
    .join('. ')
  if (words) doc.description = words
  return doc
}

/**
 * Formats the Worker stores or forwards that could carry a card number typed in the wrong input:
 * free text (names, addresses, descriptions) and an email's address are refused when they hold
 * one; a wallet id, often a phone number (a long run of digits by nature), when a run of its
 * digits is, whole, a card of a brand we know (`containsBrandCardNumber`).
 */
const HOLDS_NO_CARD: Partial<Record<Format, (value: string) => boolean>> = {
  text: containsCardNumber,
  name: containsCardNumber,
  email: containsCardNumber,
  walletId: containsBrandCardNumber,
}

/**
 * Text of one format of the field table: the table's checker decides, after the same
 * normalisation the gateway requests get (card numbers without spaces, other values trimmed).
 */
export function formatText(format: Format, options: FormatOptions & { description?: string } = {}) {
  const { description, ...formatOptions } = options
  return expecting(
    v.pipe(
      v.string('format'),
      v.rawTransform<string, string>(({ dataset, addIssue, NEVER }) => {
        const value = format === 'cardNumber' ? normalizeCardNumber(dataset.value) : dataset.value.trim()
        // Free text the Worker stores or forwards never carries a card number, however disguised.
        const code =
          checkFormat(format, value, formatOptions) ?? (HOLDS_NO_CARD[format]?.(value) ? 'not_allowed' : null)
        if (code === null) return value
        addIssue({ message: code, expected: expectedOf(format, code, formatOptions) })
        return NEVER
      }),
      v.metadata(docOf(format, formatOptions, description)),
    ),
    FORMAT_EXPECTED[format],
  )
}

/** The schema of a field of the table, by its logical name (format, allowed values). */
export function field(name: RequestFieldName, options: Omit<FormatOptions, 'values'> & { description?: string } = {}) {
  const f: RequestField = REQUEST_FIELDS[name]
  return formatText(f.format, { ...options, ...(f.values ? { values: f.values } : {}) })
}

/**
 * The expiry period of an invoice the Worker regenerates: whole hours, 1 to 9999. The field's
 * format takes 0 (the sandbox makes an invoice that is already expired with it, to be regenerated),
 * but a regenerated invoice of 0 hours could never be paid, and the Worker reads 0 as "no expiry".
 */
export function invoicePeriod(description: string) {
  return described(
    v.pipe(
      field('invoiceExpirationPeriod'),
      v.check((hours) => Number(hours) >= 1, 'out_of_range'),
    ),
    'whole hours as a string, "1" to "9999"',
    { pattern: '^[1-9]\\d{0,3}$', description },
  )
}

/** A value from a closed list (`invalid_value` otherwise). */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, description?: string) {
  return expecting(
    v.pipe(v.picklist(values, 'invalid_value'), v.metadata(description ? { description } : {})),
    `one of: ${values.join(', ')}`,
  )
}

/** A whole number within bounds (`out_of_range` otherwise, also for a fraction or a string). */
export function integer(min: number, max: number, description?: string) {
  return expecting(
    v.pipe(
      v.number('out_of_range'),
      v.integer('out_of_range'),
      v.minValue(min, 'out_of_range'),
      v.maxValue(max, 'out_of_range'),
      v.metadata(description ? { description } : {}),
    ),
    `an integer from ${min} to ${max}`,
  )
}

/** A schema with its own `expected` (for errors) and document words. */
export function described<S extends Schema>(schema: S, expected: string, doc: Record<string, unknown> = {}) {
  return expecting(v.pipe(schema, v.metadata({ description: expected, ...doc })), expected)
}

/** A rule across fields (required for a flow, minor units): reports one field's error from a rawCheck. */
export function report(
  addIssue: (info: never) => void,
  input: Record<string, unknown>,
  key: string,
  code: FieldErrorCode,
  expected: string,
): void {
  ;(addIssue as AddIssue)({
    message: code,
    expected,
    path: [{ type: 'object', origin: 'value', input, key, value: input[key] }],
  })
}

/** Whether an earlier check already found a problem with `key` (cross-field rules then keep quiet). */
export function failed(issues: readonly v.BaseIssue<unknown>[] | undefined, key: string): boolean {
  return (issues ?? []).some((i) => i.path?.[0]?.key === key)
}

// ---------------------------------------------------------------------------------------------

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x)

/** The object schema inside optional/pipe wrappers, or undefined. */
function objectOf(schema: Schema | undefined): { type: string; entries?: Record<string, Schema> } | undefined {
  let s = schema as (Schema & { wrapped?: Schema; entries?: Record<string, Schema> }) | undefined
  while (s && (s.type === 'optional' || s.type === 'exact_optional' || s.type === 'nullish')) s = s.wrapped as typeof s
  return s && (s.type === 'strict_object' || s.type === 'object' || s.type === 'record')
    ? (s as { type: string; entries?: Record<string, Schema> })
    : undefined
}

/**
 * Keys Valibot's record skips without an issue (its own guard against prototype pollution): a
 * metadata pair under one would be dropped silently, and a listing filtered by it unfiltered.
 */
const SKIPPED_BY_RECORD = ['__proto__', 'prototype', 'constructor']

/** Every key the schema does not name, nested ones too (records take any key but those it would skip). */
function unknownKeys(schema: Schema, value: unknown, prefix = ''): FieldError[] {
  const o = objectOf(schema)
  // Valibot's record takes an array for an object (`["x"]` as `{"0": "x"}`): it is refused here.
  if (o?.type === 'record' && Array.isArray(value))
    return [{ field: prefix.replace(/\.$/, ''), code: 'format', expected: 'an object' }]
  if (o?.type === 'record' && isPlainObject(value)) {
    return Object.keys(value)
      .filter((key) => SKIPPED_BY_RECORD.includes(key))
      .map((key) => ({
        field: `${prefix}${key}`,
        code: 'not_allowed' as const,
        expected: `a key other than ${SKIPPED_BY_RECORD.join(', ')}`,
      }))
  }
  if (!o?.entries || !isPlainObject(value)) return []
  const out: FieldError[] = []
  for (const key of Object.keys(value)) {
    const entry = Object.hasOwn(o.entries, key) ? o.entries[key] : undefined
    if (!entry) out.push({ field: `${prefix}${key}`, code: 'not_allowed', expected: 'no such field' })
    else out.push(...unknownKeys(entry, value[key], `${prefix}${key}.`))
  }
  return out
}

/** A copy with only the keys the schema names, `null` and `""` dropped as absent. */
function known(schema: Schema, value: unknown): unknown {
  const o = objectOf(schema)
  if (!o?.entries || !isPlainObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const entry = Object.hasOwn(o.entries, key) ? o.entries[key] : undefined
    if (!entry || value[key] === null || value[key] === '') continue
    out[key] = known(entry, value[key])
  }
  return out
}

/** The schema at a path of keys, through objects. */
function schemaAt(schema: Schema, keys: readonly string[]): Schema | undefined {
  let s: Schema | undefined = schema
  for (const key of keys) {
    const o = objectOf(s)
    s = o?.entries && Object.hasOwn(o.entries, key) ? o.entries[key] : undefined
  }
  return s
}

function unwrapped(schema: Schema | undefined): Schema | undefined {
  let s = schema as (Schema & { wrapped?: Schema }) | undefined
  while (s && (s.type === 'optional' || s.type === 'exact_optional' || s.type === 'nullish')) s = s.wrapped
  return s
}

const CODES: ReadonlySet<string> = new Set(FIELD_ERROR_CODES)

/** Valibot issues as field errors: the field's dotted name, our rule, what it takes. */
function fieldErrors(root: Schema, issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => {
    const keys: string[] = []
    for (const item of issue.path ?? []) {
      // An array item or a record's key is reported as the field that holds it (a missing key has
      // no input: it is the field itself).
      if (item.type === 'array' || (item.origin === 'key' && issue.input !== undefined)) break
      keys.push(String(item.key))
    }
    const missing =
      issue.input === undefined &&
      issue.kind === 'schema' &&
      (issue.type === 'strict_object' || issue.type === 'object')
    const code: FieldErrorCode = CODES.has(issue.message)
      ? (issue.message as FieldErrorCode)
      : missing
        ? 'required'
        : 'format'
    const own = issue.type === 'raw_transform' || issue.type === 'raw_check' ? issue.expected : null
    const expected = own ?? EXPECTED.get(unwrapped(schemaAt(root, keys)) ?? {}) ?? issue.expected ?? 'a valid value'
    return { field: keys.join('.') || 'body', code, expected }
  })
}

/** One error per field and rule, in the order found. */
export function dedupe(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>()
  return errors.filter((e) => {
    const k = `${e.field}:${e.code}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** Checks a parsed JSON value against a route's schema: its typed output, or every field error. */
export function check<S extends Schema>(schema: S, value: unknown): Result<v.InferOutput<S>, FieldError[]> {
  const errors = unknownKeys(schema, value)
  const result = v.safeParse(schema, known(schema, value))
  if (!result.success) errors.push(...fieldErrors(schema, result.issues))
  return errors.length > 0 || !result.success ? err(dedupe(errors)) : ok(result.output)
}
