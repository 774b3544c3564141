// `npm run typecheck`: every TypeScript project of the repository (the product, the Worker, the
// tests in Node, in workerd and in the browser), each with its own settings, two at a time
// (each `tsc` uses one core). Fails if any fails, after printing each one's errors.
// `npm run check` (`--lint`, what `npm test` runs first): the linter (ESLint) and the formatter's
// check (Prettier) join the same queue, so the static checks share the cores.
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const PROJECTS = [
  'tsconfig.json',
  'worker/tsconfig.json',
  'test/tsconfig.json',
  'test/worker/tsconfig.json',
  'test/widget/tsconfig.json',
]
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
/** What the formatter checks (its ignore file leaves out generated code): `npm run format` writes it. */
export const FORMATTED = '**/*.{ts,mjs,cjs}'

/** [its name, node's arguments]: the biggest projects first, so the two queues end together. */
const JOBS = PROJECTS.map((p) => [p, [tsc, '-p', p]])
if (process.argv.includes('--lint')) {
  // Their bin files by path: their packages' `exports` do not list them.
  const bin = (file) => fileURLToPath(new URL(`../node_modules/${file}`, import.meta.url))
  JOBS.splice(1, 0, ['eslint', [bin('eslint/bin/eslint.js'), '.']])
  JOBS.push(['prettier', [bin('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', FORMATTED]])
}

function check([project, args]) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('close', (code) => resolve({ project, code, out }))
  })
}

const queue = [...JOBS]
const failed = []
await Promise.all(
  Array.from({ length: Math.min(queue.length, Math.max(2, availableParallelism() - 1)) }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const r = await check(p)
      if (r.out) process.stdout.write(r.out)
      if (r.code !== 0) failed.push(p[0])
    }
  }),
)
if (failed.length > 0) {
  console.error(
    `failed: ${failed.join(', ')}${failed.includes('prettier') ? ' (npm run format writes the formatting)' : ''}`,
  )
  process.exit(1)
}
