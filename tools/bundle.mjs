// Measures the widget build as a merchant deploys it: the three downloads the issue budgets (each
// file compressed on its own, as it is served), and the lazily loaded chunks. Shared by the size
// test and the benchmarks.
// - frameHost: what a merchant page downloads in the default frame mode (the entry and every chunk
//   it imports statically).
// - inlineFlow: everything `isolation="inline"` downloads for the card flow (the entry, and the
//   light inline form it imports on first use with its static imports).
// - frameDocument: the card frame's HTML (the form in it, rendered by the Worker) and every script
//   it loads (`frame.js`, the lists in it).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** Static imports of a built ES module: `import"../test/support/x.js"`, `import{a}from"../test/support/x.js"`, `export*from"../test/support/x.js"`. */
function staticImports(code) {
  const out = new Set()
  for (const m of code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["'](\.[^"']+)["']/g))
    out.add(m[1])
  return [...out]
}

/** Dynamic imports: `import("../test/support/x.js")`, with any quote, and a comment before it (`@vite-ignore`). */
function dynamicImports(code) {
  return [
    ...new Set([...code.matchAll(/import\(\s*(?:\/\*[^*]*\*\/\s*)?["'`](\.[^"'`]+)["'`]\s*\)/g)].map((m) => m[1])),
  ]
}

export function sizes(buf) {
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }
}

const resolve = (from, spec) => {
  const base = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  return join(base, spec).replace(/^\.\//, '')
}

/** A file and everything it imports statically, transitively. */
export function staticClosure(dir, entry) {
  const seen = new Set()
  const walk = (file) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const spec of staticImports(readFileSync(join(dir, file), 'utf8'))) walk(resolve(file, spec))
  }
  walk(entry)
  return [...seen]
}

/** The card flow's files for a page: kept for callers of the former single measure. */
export function cardFlowFiles(dir, entry = 'pay-checkout.js') {
  return staticClosure(dir, entry)
}

function total(dir, files, extra = []) {
  const t = { files, raw: 0, gzip: 0, brotli: 0 }
  for (const buf of [...files.map((f) => readFileSync(join(dir, f))), ...extra]) {
    const s = sizes(buf)
    t.raw += s.raw
    t.gzip += s.gzip
    t.brotli += s.brotli
  }
  return t
}

/**
 * @param {string} dir the build's widget folder
 * @param {{ framePage?: string, frameScripts?: readonly string[] }} frame the frame's HTML (as the Worker serves it) and its scripts (`/widget/...`)
 */
export function measure(dir, frame = {}) {
  const host = staticClosure(dir, 'pay-checkout.js')
  // Inline mode shows a card with the light form (`widget/inline/light.ts`, no Lit), a chunk the
  // entry imports on first use, with what it imports statically (the lists among them).
  const light = dynamicImports(readFileSync(join(dir, 'pay-checkout.js'), 'utf8'))
    .map((s) => resolve('pay-checkout.js', s))
    .find((f) => /(^|\/)light\.js$/.test(f))
  const inline = [...new Set([...host, ...(light ? staticClosure(dir, light) : [])])]
  const frameFiles = [
    ...new Set([
      ...(frame.frameScripts ?? ['/widget/frame.js'])
        .map((s) => s.replace(/^\/widget\//, ''))
        .flatMap((f) => staticClosure(dir, f)),
    ]),
  ]
  const all = new Set([...host, ...inline, ...frameFiles])
  const chunks = readdirSync(join(dir, 'chunks'))
  const lazy = Object.fromEntries(
    chunks
      .filter((c) => !all.has(`chunks/${c}`))
      .map((c) => [c.replace(/(-[\w-]{8})?\.js$/, ''), sizes(readFileSync(join(dir, 'chunks', c)))]),
  )
  const inlineFlow = total(dir, inline)
  return {
    frameHost: total(dir, host),
    inlineFlow,
    frameDocument: total(dir, frameFiles, frame.framePage ? [Buffer.from(frame.framePage)] : []),
    // The former name: what a page downloads to show the card flow in the page itself.
    cardFlow: inlineFlow,
    lazy,
  }
}
