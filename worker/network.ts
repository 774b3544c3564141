/**
 * @module
 * Client addresses as networks: what the decline breaker counts a source by and the rate limiter
 * an IPv6 client by.
 */

/** An IPv6 address's /64 (its first four groups): one subscriber's network, whose addresses it may rotate through. */
export const ipv6Network = (ip: string): string => ipv6Groups(ip).slice(0, 4).join(':')

/** The eight groups of an IPv6 address, `::` expanded (an IPv4 tail counts as two). */
function ipv6Groups(ip: string): string[] {
  const [head = '', tail] = ip.toLowerCase().split('::')
  const groups = (s: string) =>
    s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['v4', 'v4'] : [g.replace(/^0+(?=.)/, '')]))
  const h = groups(head)
  const t = tail === undefined ? [] : groups(tail)
  return tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
}
