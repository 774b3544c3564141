/**
 * @module
 * The one logger. Every log line goes through `redact`, which removes card numbers, CVVs,
 * client secrets, tokens and keys by name and by shape, so a careless call cannot leak them
 * (SECURITY.md R25). Every http(s) URL loses its query string and fragment, found by shape in any
 * text and by key (`url`, `href`, `referer`, ...): 3-D Secure returns and notifications carry the
 * gateway's signed checksum there, which could be replayed by whoever reads the logs. Nothing else
 * in the Worker writes to the console.
 */
import { luhnValid, redactCardNumbers } from '../shared/card.ts'

/** Keys whose values are never logged, whatever they hold. */
const SECRET_KEY = /(number|pan|cvv|cvc|csc|secret|token|authorization|password|skey|securekey|apikey|checksum)/i
/** Keys whose values are URLs: logged without query string or fragment, whatever their shape. */
const URL_KEY = /(url|uri|href|location|referr?er|link)$/i
/** Runs of 12-19 digits, possibly grouped by spaces or dashes: card-number shaped. */
const DIGIT_RUN = /\d(?:[ -]?\d){11,18}/g
/** An http(s) URL inside any text, up to whitespace, quotes or angle brackets. */
const HTTP_URL = /\bhttps?:\/\/[^\s"'<>`]+/gi

/** A URL without query string and fragment (SECURITY.md R25): `?[query]` marks that one was there. */
export function stripQuery(url: string): string {
  const cut = url.search(/[?#]/)
  return cut === -1 ? url : `${url.slice(0, cut)}${url[cut] === '?' ? '?[query]' : '#[fragment]'}`
}

function scrubText(text: string): string {
  // A card number in any disguise (digits of any script, any separators: shared/card.ts), and any
  // Luhn-valid run of ASCII digits grouped by spaces or dashes besides.
  return redactCardNumbers(text.replace(HTTP_URL, stripQuery)).replace(DIGIT_RUN, (run) =>
    luhnValid(run.replace(/\D/g, '')) ? '[card]' : run,
  )
}

/** A deep copy with secrets and card numbers removed. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[deep]'
  if (typeof value === 'string') return scrubText(value)
  if (value instanceof URL) return scrubText(stripQuery(value.href))
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Error) return { name: value.name, message: scrubText(value.message) }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k)
        ? '[redacted]'
        : URL_KEY.test(k) && typeof v === 'string'
          ? scrubText(stripQuery(v))
          : redact(v, depth + 1)
    }
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
