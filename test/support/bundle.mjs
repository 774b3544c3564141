// Measures the widget build: what a page downloads to show the card flow (the entry and every
// chunk it imports statically), and the lazily loaded chunks. Shared by the size test and the
// benchmarks.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** Static imports of a built ES module: `import"./x.js"`, `import{a}from"./x.js"`, `export*from"./x.js"`. */
function staticImports(code) {
  const out = new Set()
  for (const m of code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["'](\.[^"']+)["']/g)) out.add(m[1])
  return [...out]
}

export function sizes(buf) {
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }
}

/** The files a page loads for the card flow, starting at the entry. */
export function cardFlowFiles(dir, entry = 'pay-checkout.js') {
  const seen = new Set()
  const walk = (file) => {
    if (seen.has(file)) return
    seen.add(file)
    const code = readFileSync(join(dir, file), 'utf8')
    const base = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : ''
    for (const spec of staticImports(code)) walk(join(base, spec).replace(/^\.\//, ''))
  }
  walk(entry)
  return [...seen]
}

export function measure(dir) {
  const card = cardFlowFiles(dir)
  const total = { raw: 0, gzip: 0, brotli: 0 }
  for (const f of card) {
    const s = sizes(readFileSync(join(dir, f)))
    total.raw += s.raw
    total.gzip += s.gzip
    total.brotli += s.brotli
  }
  const chunks = readdirSync(join(dir, 'chunks'))
  const lazy = Object.fromEntries(
    chunks.filter((c) => !card.includes(`chunks/${c}`)).map((c) => [c.replace(/-[\w-]{8}\.js$/, ''), sizes(readFileSync(join(dir, 'chunks', c)))]),
  )
  return { cardFlow: { files: card, ...total }, lazy }
}
