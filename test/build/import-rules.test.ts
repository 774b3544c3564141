// Which way imports may go (.dependency-cruiser.cjs): the published SDK and the widget use only
// shared/, the product Worker never the widget, the SDK, the sandbox or the demo, the sandbox only
// shared/, the demo the product through the SDK, benchmarks never test code; inside the Worker,
// HTTP stays in routes/ and middleware/. dependency-cruiser
// reads every import, type-only ones too, and `npm test` fails on one that goes the wrong way.
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { root } from '../../tools/stacks.mjs'

const run = promisify(execFile)
const FOLDERS = ['widget', 'console', 'worker', 'shared', 'server', 'tools', 'bench', 'scripts']

interface Violation {
  from: string
  to: string
  rule: { name: string; severity: string }
}

/** dependency-cruiser over the code in `dir` (the repository's) with its rules: what breaks them, and how much it read. */
async function cruise(dir = root): Promise<{ errors: Violation[]; modules: number }> {
  const bin = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs')
  const { stdout } = await run(
    process.execPath,
    [bin, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...FOLDERS],
    { cwd: dir, maxBuffer: 64 << 20 },
  )
  const report = JSON.parse(stdout) as { summary: { violations: Violation[]; totalCruised: number } }
  return {
    errors: report.summary.violations.filter((v) => v.rule.severity === 'error'),
    modules: report.summary.totalCruised,
  }
}

describe('import directions', () => {
  it('every import in the repository goes the way the rules allow', async () => {
    const { errors, modules } = await cruise()
    expect(errors.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([])
    // It did read the code: the repository has some two hundred modules.
    expect(modules).toBeGreaterThan(150)
  }, 60_000)

  it('wrong-way imports fail: the SDK importing a type from the Worker, middleware importing a route, the widget importing the console', async () => {
    const probes = [
      {
        file: `server/wrong-way-probe-${process.pid}.ts`,
        code: "import type { Env } from '../worker/env.ts'\nexport type Probe = Env\n",
        to: 'worker/env.ts',
        rule: 'sdk-only-shared',
      },
      {
        file: `worker/middleware/wrong-way-probe-${process.pid}.ts`,
        code: "export { health } from '../routes/health.ts'\n",
        to: 'worker/routes/health.ts',
        rule: 'middleware-not-routes',
      },
      {
        file: `widget/wrong-way-probe-${process.pid}.ts`,
        code: "export { routeOf } from '../console/pay-console/pay-console.ts'\n",
        to: 'console/pay-console/pay-console.ts',
        rule: 'nothing-imports-the-console',
      },
    ]
    // Written into a copy of the code, never into the repository: other tests read these folders
    // at the same time (the element manifest's analysis of widget/, the SDK's build of server/).
    const copy = mkdtempSync(join(tmpdir(), 'pay-imports-'))
    for (const f of [...FOLDERS, 'types', '.dependency-cruiser.cjs', 'tsconfig.json', 'package.json'])
      cpSync(join(root, f), join(copy, f), {
        recursive: true,
        filter: (src) => !/[/\\](node_modules|\.peers)$/.test(src),
      })
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
    for (const p of probes) writeFileSync(join(copy, p.file), p.code)
    try {
      const { errors } = await cruise(copy)
      for (const p of probes)
        expect(errors).toContainEqual(
          expect.objectContaining({
            from: p.file,
            to: p.to,
            rule: expect.objectContaining({ name: p.rule, severity: 'error' }),
          }),
        )
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  }, 60_000)
})
