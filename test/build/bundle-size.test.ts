/**
 * The size budget: what a page downloads to show the card flow is at most 20 KB brotli, Lit
 * included; QR, invoice and locale code are separate chunks it does not load.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'vite'
import { afterAll, describe, expect, it } from 'vitest'
import { measure } from '../support/bundle.mjs'
import { root } from '../support/processes.mjs'

const out = mkdtempSync(join(tmpdir(), 'pay-build-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('widget bundle', () => {
  it('card flow download is at most 20 KB brotli; QR, invoice and locales load only when used', async () => {
    await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'silent', build: { outDir: out } })
    const m = measure(out)
    expect(m.cardFlow.brotli).toBeLessThanOrEqual(20 * 1024)
    expect(m.cardFlow.files.some((f: string) => /qr-wallet|invoice-view/.test(f))).toBe(false)
    expect(Object.keys(m.lazy)).toEqual(expect.arrayContaining(['qr-wallet', 'invoice-view', 'de', 'ja']))
  })
})
