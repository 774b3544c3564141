/**
 * @module
 * The gateway's units as it writes them, read once here: its time of day, and an invoice's expiry
 * period (hours).
 */

/** The gateway's time of day as it writes it (` 15:56:45.`: a space before, a dot after), as a time. */
export const gatewayTime = (t: string): string => t.trim().replace(/\.$/, '')

/** An invoice's expiry period (hours, as the gateway takes it) in milliseconds; 0 when it names none. */
export function hoursMs(hours: string | undefined): number {
  const h = Number(hours)
  return Number.isFinite(h) && h > 0 ? h * 3_600_000 : 0
}
