#!/usr/bin/env node
// Runs before `npm start`, `npm test` and `npm run sandbox` (prestart/pretest/presandbox), so both
// work on a fresh clone with nothing run before them: checks Node (22.18+ to develop here, as
// package.json's devEngines says; its `engines` is the published server SDK's claim, Node 18+),
// installs dependencies when node_modules is missing or older than the lockfile, builds the widget
// and the console when what goes into them changed since the last build, and creates .dev.vars
// from the example.
import { execSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `pay-checkout needs Node 22.18 or newer (this is ${process.versions.node}). ` +
      'Install Node 22 (nvm install 22, fnm install 22, volta install node@22, or nodejs.org), then try again.',
  )
  process.exit(1)
}

const lock = join(root, 'package-lock.json')
const installed = join(root, 'node_modules', '.package-lock.json')
const stale = !existsSync(installed) || (existsSync(lock) && statSync(installed).mtimeMs < statSync(lock).mtimeMs)
if (stale) {
  console.log('Installing dependencies (node_modules is missing or older than package-lock.json)...')
  execSync(existsSync(lock) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund', {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
  })
}

// The Worker serves the built widget and console (wrangler.toml [assets]): built whenever what goes
// into them changed since the last build here, so they are never stale, and not built again
// otherwise. A build empties dist/public/widget first: an `npm start` beside something that
// serves or bundles those files (a second terminal, the tests, which start the demo many times)
// would leave it half written for a few seconds.
const stamp = join(root, 'dist', '.sources')
const sources = sourcesHash(['widget', 'console', 'shared', 'vite.config.ts', 'tsconfig.json', 'package-lock.json'])
const built =
  existsSync(join(root, 'dist/public/widget/pay-checkout.js')) &&
  existsSync(join(root, 'dist/public/console/console.js')) &&
  existsSync(stamp) &&
  readFileSync(stamp, 'utf8') === sources
if (!built) {
  // The production build whoever runs this: a caller's NODE_ENV (a test runner's `test`) would
  // make Vite resolve Lit's development build, which `npm start` would then serve as current.
  execSync('npx vite build --logLevel warn', {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  writeFileSync(stamp, sources)
}

const devVars = join(root, '.dev.vars')
const example = join(root, '.dev.vars.example')
if (!existsSync(devVars)) {
  copyFileSync(example, devVars)
  console.log('Created .dev.vars from .dev.vars.example (sandbox values).')
} else {
  // A .dev.vars from before a new setting: the example's value is added, the others left as they are.
  const names = (text) => new Set([...text.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]))
  const have = names(readFileSync(devVars, 'utf8'))
  const missing = readFileSync(example, 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line) && !have.has(line.split('=')[0]))
  if (missing.length > 0) {
    appendFileSync(devVars, `\n${missing.join('\n')}\n`)
    console.log(`Added to .dev.vars from .dev.vars.example: ${missing.map((l) => l.split('=')[0]).join(', ')}.`)
  }
}

/** One hash of every file under these paths (relative to the root), names and contents. */
function sourcesHash(paths) {
  const hash = createHash('sha256')
  const add = (rel) => {
    const abs = join(root, rel)
    if (!existsSync(abs)) return
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) add(join(rel, name))
      return
    }
    hash.update(`${rel}\0`).update(readFileSync(abs)).update('\0')
  }
  for (const p of paths) add(p)
  return hash.digest('hex')
}
