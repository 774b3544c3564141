// Builds the publishable package into dist/package/: plain ESM (tsc, with `.ts` imports rewritten to
// `.js`) and declarations whose relative imports name the `.js` files, so a consumer's compiler
// never checks our sources. Run by `npm run build:package` (and `prepack`).
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = join(root, 'dist/package')
rmSync(out, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.package.json')], { stdio: 'inherit' })

for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue
  const file = join(entry.parentPath, entry.name)
  const text = readFileSync(file, 'utf8')
  const fixed = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2')
  if (fixed !== text) writeFileSync(file, fixed)
}

// The custom-elements manifest as the package ships it: its modules are the compiled files the
// package contains (dist/package/widget/....js), not the repository's sources (widget/....ts), so
// editors and Storybook that follow `customElements` find what they name.
// The analyzer leaves a re-export's module relative to the file that re-exports it
// (`../shared/checkout.ts` in widget/api-client.ts), and some relative to the package root with a
// leading slash (`/widget/...`): both made package paths here.
const manifest = JSON.parse(readFileSync(join(root, 'docs/custom-elements.json'), 'utf8'))
const shipped = (value, base) => {
  const path = value.startsWith('.')
    ? posix.normalize(posix.join(posix.dirname(base), value))
    : value.replace(/^\//, '')
  return path.replace(/^((?:widget|shared|server)\/.*)\.ts$/, 'dist/package/$1.js')
}
const rewrite = (node, base) => {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, base))
  if (node === null || typeof node !== 'object') return node
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      (k === 'path' || k === 'module') && typeof v === 'string' ? shipped(v, base) : rewrite(v, base),
    ]),
  )
}
manifest.modules = manifest.modules.map((m) => rewrite(m, m.path))
writeFileSync(join(out, 'custom-elements.json'), `${JSON.stringify(manifest, null, 2)}\n`)
