/**
 * What production gets: `wrangler deploy --dry-run --env production` (CI's last step) bundles the
 * product Worker with no demo code and without warnings, and no configuration in the repository
 * can deploy the development values or the demo under the production Worker's name.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { unstable_readConfig } from 'wrangler'
import { afterAll, describe, expect, it } from 'vitest'
import { page } from '../../worker/demo/pages.ts'
import { VISITOR_COOKIE } from '../../worker/demo/visitor.ts'
import { DEMO_CONFIG, offlineEnv, PRODUCT_CONFIG, root } from '../../tools/stacks.mjs'

const run = promisify(execFile)
const out = mkdtempSync(join(tmpdir(), 'pay-deploy-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

/** The demo shop's own words: its class, its page titles, its API paths, its cookie. */
const title = (html: string) => /<title>(.*?) ·/.exec(html)?.[1] ?? ''
const DEMO_MARKERS = [
  'DemoShop',
  title(page('index')),
  title(page('subscription')),
  '/demo/api',
  '/demo/webhooks',
  VISITOR_COOKIE,
]

describe('the production deployment', () => {
  it('bundles the product Worker without any demo code, and without warnings', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        join(root, 'node_modules/wrangler/bin/wrangler.js'),
        'deploy',
        '--dry-run',
        '--env',
        'production',
        '--outdir',
        out,
      ],
      { cwd: root, env: { ...offlineEnv(), WRANGLER_LOG: 'info' } },
    )
    const bundle = readdirSync(out)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n')
    // The grep means something: this is the product Worker's bundle.
    expect(bundle).toContain('CheckoutSession')
    expect(DEMO_MARKERS.every((m) => m.length > 3)).toBe(true)
    for (const marker of DEMO_MARKERS) expect(bundle, marker).not.toContain(marker)
    expect(`${stdout}\n${stderr}`).not.toMatch(/WARNING|\[warn\]|▲/)
  })

  it('the top-level (development) configuration deploys under its own name, with no workers.dev URL or route', () => {
    const production = unstable_readConfig({ config: PRODUCT_CONFIG, env: 'production' }, { hideWarnings: true })
    const development = unstable_readConfig({ config: PRODUCT_CONFIG }, { hideWarnings: true })
    expect(production.name).toBe('pay-checkout')
    expect(development.name).not.toBe(production.name)
    expect(development.workers_dev).toBe(false)
    expect(development.routes ?? []).toEqual([])
    expect(development.route).toBeUndefined()
  })

  it('the demo is its own Worker, never under the production name and never reachable if deployed', () => {
    const production = unstable_readConfig({ config: PRODUCT_CONFIG, env: 'production' }, { hideWarnings: true })
    const demo = unstable_readConfig({ config: DEMO_CONFIG }, { hideWarnings: true })
    expect(demo.name).toBe('pay-checkout-demo')
    expect(demo.workers_dev).toBe(false)
    expect(demo.routes ?? []).toEqual([])
    // Neither product configuration binds, migrates or switches on anything of the demo's.
    for (const config of [production, unstable_readConfig({ config: PRODUCT_CONFIG }, { hideWarnings: true })]) {
      const text = JSON.stringify({
        vars: config.vars,
        durable_objects: config.durable_objects,
        migrations: config.migrations,
      })
      expect(text).not.toMatch(/DemoShop|DEMO/)
    }
    expect(JSON.stringify(demo.migrations)).toContain('DemoShop')
    expect(demo.name).not.toBe(production.name)
  })
})
