/**
 * @module
 * Client addresses as networks: what the decline breaker counts a source by and the rate limiter
 * an IPv6 client by.
 */

/** An IPv6 address's /64 (its first four groups): one subscriber's network, whose addresses it may rotate through. */
export const ipv6Network = (ip: string): string => ipv6Groups(ip).slice(0, 4).join(':')

/**
 * The client a rate limit counts: an IPv4 address alone (a /24 may be a carrier's NAT of many), an
 * IPv6 one by its /64; an IPv4 address written as IPv6 (`::ffff:203.0.113.5`) as that IPv4, and
 * one whose /64 is all zeros (`::1`, other special forms) alone, not with every other such.
 */
export function clientOf(address: string): string {
  if (!address.includes(':')) return address
  const groups = ipv6Groups(address)
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1]
    if (tail) return tail
    const [hi = 0, lo = 0] = groups.slice(6).map((g) => parseInt(g, 16))
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
  }
  const network = groups.slice(0, 4)
  return network.every((g) => g === '0') ? groups.join(':') : `${network.join(':')}::/64`
}

/** The eight groups of an IPv6 address, `::` expanded (an IPv4 tail counts as two). */
function ipv6Groups(ip: string): string[] {
  const [head = '', tail] = ip.toLowerCase().split('::')
  const groups = (s: string) =>
    s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['v4', 'v4'] : [g.replace(/^0+(?=.)/, '')]))
  const h = groups(head)
  const t = tail === undefined ? [] : groups(tail)
  return tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
}
