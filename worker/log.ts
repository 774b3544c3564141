/**
 * @module
 * The one logger. Every log line goes through `redact`, which removes card numbers, CVVs,
 * client secrets, tokens and keys by name and by shape, so a careless call cannot leak them
 * (SECURITY.md R25). Nothing else in the Worker writes to the console.
 */
import { luhnValid } from '../shared/card.ts'

/** Keys whose values are never logged, whatever they hold. */
const SECRET_KEY = /(number|pan|cvv|cvc|csc|secret|token|authorization|password|skey|securekey|apikey|checksum)/i
/** Runs of 12-19 digits, possibly grouped by spaces or dashes: card-number shaped. */
const DIGIT_RUN = /\d(?:[ -]?\d){11,18}/g

function scrubText(text: string): string {
  return text.replace(DIGIT_RUN, (run) => (luhnValid(run.replace(/\D/g, '')) ? '[card]' : run))
}

/** A deep copy with secrets and card numbers removed. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[deep]'
  if (typeof value === 'string') return scrubText(value)
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Error) return { name: value.name, message: scrubText(value.message) }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)
    return out
  }
  return value
}

type Level = 'debug' | 'info' | 'warn' | 'error'

function write(level: Level, event: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, event, ...(redact(fields) as Record<string, unknown>) })
  // The only console use in the Worker.
  if (level === 'error') console.error(line)
  else if (level === 'warn') console.warn(line)
  else console.log(line)
}

export const log = {
  debug: (event: string, fields: Record<string, unknown> = {}) => write('debug', event, fields),
  info: (event: string, fields: Record<string, unknown> = {}) => write('info', event, fields),
  warn: (event: string, fields: Record<string, unknown> = {}) => write('warn', event, fields),
  error: (event: string, fields: Record<string, unknown> = {}) => write('error', event, fields),
}
