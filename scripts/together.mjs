#!/usr/bin/env node
// `node scripts/together.mjs a b ...`: runs the npm scripts a, b, ... at the same time and fails if
// any fails. `npm test` pairs the static checks with the browser tests this way: those leave a
// core idle most of the time (the browser waits for the Worker), and the checks fill it. The first
// script's output streams; the others' is printed when each ends, so no two interleave.
import { spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const results = await Promise.all(
  scripts.map(
    (script, i) =>
      new Promise((resolve) => {
        const child = spawn(npm, ['run', '--silent', script], {
          stdio: i === 0 ? 'inherit' : ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        child.stdout?.on('data', (c) => (out += c))
        child.stderr?.on('data', (c) => (out += c))
        child.on('close', (code) => {
          if (i > 0) process.stdout.write(`\n> npm run ${script}\n${out}`)
          resolve({ script, code })
        })
      }),
  ),
)
const failed = results.filter((r) => r.code !== 0).map((r) => r.script)
if (failed.length > 0) {
  console.error(`failed: ${failed.join(', ')}`)
  process.exit(1)
}
