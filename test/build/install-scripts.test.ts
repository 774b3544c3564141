// npm 11 runs a dependency's install scripts only where package.json's allowScripts decides so, and
// warns at every `npm ci` about the ones nobody decided. Each decision has its reason in the README.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { root } from '../../tools/stacks.mjs'

const run = promisify(execFile)

describe('dependency install scripts', () => {
  it('every installed package with an install script has a decision in allowScripts (npm ci warns of none)', async () => {
    const { stdout } = await run('npm', ['install-scripts', 'ls', '--json'], { cwd: root })
    expect(JSON.parse(stdout)).toEqual({ allowScripts: [] })
  })

  it('each decision in allowScripts has its one-line reason in the README development notes', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const notes = readme.slice(readme.indexOf('**Install scripts.**'))
    const decided = Object.keys(pkg.allowScripts ?? {})
    expect(decided.length).toBeGreaterThan(0)
    for (const name of decided)
      expect(notes, name).toMatch(new RegExp(`^\\| \`${name.replace(/@[^@/]*$/, '')}\` \\|`, 'm'))
  })
})
