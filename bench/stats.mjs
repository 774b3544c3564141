// The benchmark's arithmetic: percentiles (nearest rank), rounding, kilobytes.
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d
export const kb = (b) => `${round(b / 1024, 1)} KB`
