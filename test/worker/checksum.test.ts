import { timingSafeEqual } from 'hono/utils/buffer'
import { describe, expect, it } from 'vitest'
import vectors from '../fixtures/checksum-vectors.json' with { type: 'json' }
import { checksum, checksumInput, CHECKSUM_RULES, md5Hex, type ChecksumRule } from '../../shared/gateway/checksum.ts'

describe('checksums (known answers computed with node:crypto)', () => {
  it.each(vectors.vectors.map((v) => [v.rule, v.note, v] as const))('%s: %s', async (rule, _note, v) => {
    const r = rule as ChecksumRule
    const input = checksumInput(r, v.inputs as never)
    expect(input).toEqual({ ok: true, value: v.input })
    expect(await checksum(r, v.inputs as never)).toEqual({ ok: true, value: v.md5 })
  })

  it('writes lowercase hex of 32 characters, zeros kept', async () => {
    const padded = vectors.vectors.find((v) => v.md5.startsWith('00'))
    expect(padded).toBeDefined()
    expect(await md5Hex(padded?.input ?? '')).toBe(padded?.md5)
    expect(await md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e')
  })

  it.each(Object.keys(CHECKSUM_RULES) as ChecksumRule[])(
    '%s: refuses an input holding "|" and a missing input',
    async (rule) => {
      const names = CHECKSUM_RULES[rule] as readonly string[]
      const good = Object.fromEntries(names.map((n) => [n, 'x']))
      for (const name of names) {
        expect(checksumInput(rule, { ...good, [name]: 'a|b' } as never)).toEqual({
          ok: false,
          error: { input: name, code: 'format' },
        })
        expect(checksumInput(rule, { ...good, [name]: '' } as never)).toEqual({
          ok: false,
          error: { input: name, code: 'required' },
        })
      }
      const joined = checksumInput(rule, good as never)
      expect(joined.ok && joined.value.split('|').length).toBe(names.length)
    },
  )

  it('compares in constant time, whatever the lengths', async () => {
    expect(await timingSafeEqual('abc', 'abc')).toBe(true)
    expect(await timingSafeEqual('abc', 'abd')).toBe(false)
    expect(await timingSafeEqual('abc', 'abcd')).toBe(false)
  })
})
