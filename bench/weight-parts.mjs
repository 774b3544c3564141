// What each part of the two weights `npm run bench` misses costs, brotli: the card frame's
// download (the HTML the Worker renders and `frame.js`) and inline mode's card form
// (`chunks/light.js`, which inline mode loads beside the entry). The HTML is split by cutting each
// part out of the rendered page. Each script is built as the widget's build makes it
// (`vite.config.ts`'s `buildOneFile`), then again once per module of ours with that module's body replaced by
// stubs of its exports, its imports kept: the difference is what the module's own code costs.
// Parts overlap under brotli (a string two modules share is paid once, and stays while either
// does), so the rows do not add up to the whole exactly: the last row of each table is the rest.
//
// Run: `npm run bench:parts` (`-- --json` for JSON). Not part of `npm run bench`: it explains the
// weights that run measures, in about ten seconds of builds.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildOneFile, ONE_FILE_SCRIPTS } from '../vite.config.ts'
import { sizes } from '../tools/bundle.mjs'
import { root } from '../tools/stacks.mjs'
import { framePage } from '../worker/frame/page.ts'

/** The names a TypeScript module exports as values (types are erased, so their stubs are not needed). */
function valueExports(source) {
  const names = new Set()
  for (const m of source.matchAll(
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s+([\w$]+)/gm,
  ))
    names.add(m[1])
  for (const m of source.matchAll(/^export\s*\{([^}]*)\}/gm))
    for (const part of m[1].split(',')) {
      const spec = part.trim()
      if (!spec || spec.startsWith('type ')) continue
      names.add(
        spec
          .split(/\s+as\s+/)
          .pop()
          .trim(),
      )
    }
  return [...names]
}

/**
 * A module's body cut out, its imports kept: its exports become stubs, and what it imports stays
 * referenced (so a module that only it imports is counted in that module's own row, not in this
 * one). Applied to the module once TypeScript is stripped, so only value imports are left.
 */
function stubbed(code) {
  const imports = [...code.matchAll(/^import\s+([\s\S]*?)\s+from\s+(["'][^"']+["']);?$/gm)]
  const bound = imports.flatMap(([, clause]) =>
    clause
      .replace(/[{}]/g, ',')
      .split(',')
      .map((part) =>
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()
          .replace(/^\*\s*/, '')
          .trim(),
      )
      .filter(Boolean),
  )
  const reexports = [...code.matchAll(/^export\s+(?:\*|\{[^}]*\})\s+from\s+["'][^"']+["'];?$/gm)].map(([line]) => line)
  const own = valueExports(code.replace(/^export\s+(?:\*|\{[^}]*\})\s+from\s+["'][^"']+["'];?$/gm, ''))
  return [
    ...imports.map(([line]) => line),
    ...reexports,
    `globalThis.__kept = [${bound.join(', ')}]`,
    ...own.map((n) => (bound.includes(n) ? `export { ${n} }` : `export const ${n} = undefined`)),
    ...(/^export\s+default\b/m.test(code) ? ['export default undefined'] : []),
  ].join('\n')
}

/** One of the widget's one-file scripts, built as its build makes it, with `cut` (a source path) stubbed. */
async function script(name, cut) {
  const stub = {
    name: 'weight-parts-stub',
    enforce: 'post',
    transform(code, id) {
      if (!cut || id.replace(/\\/g, '/') !== join(root, cut).replace(/\\/g, '/')) return null
      return { code: stubbed(code), map: null }
    },
  }
  const out = await buildOneFile({ root, name, plugins: [stub] })
  const output = (Array.isArray(out) ? out[0] : out).output
  const chunk = output.find((o) => o.type === 'chunk')
  return { code: chunk.code, modules: Object.keys(chunk.modules) }
}

const brotli = (data) => sizes(Buffer.from(data)).brotli

// ---- the HTML ------------------------------------------------------------------------------
const page = framePage({ locale: 'en', theme: 'light', shipping: false })
const styles = [...page.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1])
const words = /<script type="application\/json" id="pay-words">([^<]*)<\/script>/.exec(page)?.[1] ?? ''
const stubScript = /<script>([^<]*)<\/script>/.exec(page)?.[1] ?? ''
const without = (...parts) => parts.reduce((html, part) => html.replace(part, ''), page)
const html = brotli(page)
const htmlRows = [
  ['its style sheets', html - brotli(without(...styles))],
  ['the words the script says later', html - brotli(without(words))],
  ['the stub that says ready before the script runs', html - brotli(without(stubScript))],
]
htmlRows.push(['the form, its markup and the rest', html - htmlRows.reduce((a, [, b]) => a + b, 0)])

// ---- the scripts --------------------------------------------------------------------------

/** Rows under this many bytes are told together: a stub costs a few bytes of its own. */
const SMALL = 50

/** Each module's own cost in one of the one-file scripts: the whole, then the whole without each module. */
async function parts(name) {
  const { entry } = ONE_FILE_SCRIPTS[name]
  const whole = await script(name)
  const total = brotli(whole.code)
  const modules = whole.modules
    .map((id) => id.replace(/\\/g, '/').replace(`${root.replace(/\\/g, '/')}/`, ''))
    .filter((id) => !id.includes('node_modules') && !id.includes('?') && id !== entry && id.endsWith('.ts'))
  const rows = []
  for (const module of modules) rows.push([`\`${module}\``, total - brotli((await script(name, module)).code)])
  rows.sort((a, b) => b[1] - a[1])
  const small = rows.filter(([, bytes]) => bytes < SMALL)
  const shown = rows.filter(([, bytes]) => bytes >= SMALL)
  if (small.length)
    shown.push([`${small.length} more modules, under ${SMALL} bytes each`, small.reduce((a, [, b]) => a + b, 0)])
  shown.push([
    `\`${entry}\` itself, and what no module holds alone (strings several share)`,
    total - shown.reduce((a, [, b]) => a + b, 0),
  ])
  return { brotli: total, parts: shown }
}

const frame = await parts('frame')
const light = await parts('light')
// Built here as the widget's build builds them: said when a build in `dist/` differs.
for (const [name, file, bytes] of [
  ['frame', 'frame.js', frame.brotli],
  ['light', 'chunks/light.js', light.brotli],
]) {
  const built = join(root, 'dist', 'public', 'widget', file)
  if (existsSync(built) && brotli(readFileSync(built)) !== bytes)
    console.warn(`${name}: ${bytes} bytes here, ${brotli(readFileSync(built))} in ${built} (an older build?)`)
}
const result = {
  frame: { total: html + frame.brotli, html: { brotli: html, parts: htmlRows }, script: frame },
  light,
}
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(result, null, 2))
} else {
  const row = (label, bytes) => `| ${label} | ${bytes.toLocaleString('en')} |`
  const table = (title, rows) => console.log([`\n| ${title} | bytes |`, '| --- | ---: |', ...rows].join('\n'))
  table("the card frame's download, brotli", [
    row('**everything** (HTML + script)', result.frame.total),
    row('**the HTML** (English, light theme)', html),
    ...htmlRows.map(([label, bytes]) => row(`- ${label}`, bytes)),
    row('**the script** (`frame.js`)', frame.brotli),
    ...frame.parts.map(([label, bytes]) => row(`- ${label}`, bytes)),
  ])
  table("inline mode's card form (`chunks/light.js`, beside the entry), brotli", [
    row('**the chunk**', light.brotli),
    ...light.parts.map(([label, bytes]) => row(`- ${label}`, bytes)),
  ])
}
