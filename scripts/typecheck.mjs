// `npm run typecheck`: every TypeScript project of the repository (the product, the Worker, the
// tests in Node, in workerd and in the browser), each with its own settings, two at a time
// (each `tsc` uses one core). Fails if any fails, after printing each one's errors.
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'

const PROJECTS = ['tsconfig.json', 'worker/tsconfig.json', 'test/tsconfig.json', 'test/worker/tsconfig.json', 'test/widget/tsconfig.json']
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', project], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('close', (code) => resolve({ project, code, out }))
  })
}

const queue = [...PROJECTS]
const failed = []
await Promise.all(
  Array.from({ length: Math.min(queue.length, Math.max(2, availableParallelism() - 1)) }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const r = await check(p)
      if (r.out) process.stdout.write(r.out)
      if (r.code !== 0) failed.push(p)
    }
  }),
)
if (failed.length > 0) {
  console.error(`typecheck failed: ${failed.join(', ')}`)
  process.exit(1)
}
