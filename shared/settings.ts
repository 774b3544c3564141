/**
 * @module
 * Settings read from a Worker's bindings (the product's and the sandbox's): all are strings.
 */

/** A whole-number setting (`"15000"`); unset, empty or anything else is the default. */
export function numberVar(value: string | undefined, fallback: number): number {
  const v = value?.trim()
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : fallback
}
