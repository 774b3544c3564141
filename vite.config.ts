// Builds the widget as a library into `dist/public/widget/`: `pay-checkout.js` (the element a
// merchant page loads: one file with no static imports; in frame mode it only creates the frame)
// and chunks: the card frame's page script, the inline checkout with Lit and the card form, QR,
// invoice, locales.
// Chunk names carry no hash: the Worker's frame page preloads the frame's chunks by name
// (widget/card-frame/preload.ts) and `importmap.json` pins every file by its SHA-384.
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { defineConfig, type Plugin } from 'vite'
import { FRAME_SCRIPTS } from './widget/card-frame/preload.ts'

/**
 * Merchant pages load the widget cross-origin as a module script, which browsers fetch with CORS:
 * the Worker's static assets get an `_headers` file that allows it (the files are public code).
 */
function assetHeaders(): Plugin {
  let outDir = ''
  return {
    name: 'pay-asset-headers',
    configResolved(config) {
      outDir = config.build.outDir
    },
    writeBundle() {
      // Only for the Worker's asset folder, not for builds into elsewhere (tests, benchmarks).
      if (!outDir.replace(/\\/g, '/').endsWith('dist/public/widget')) return
      writeFileSync(
        join(dirname(outDir), '_headers'),
        '/widget/*\n  Access-Control-Allow-Origin: *\n  Cross-Origin-Resource-Policy: cross-origin\n  X-Content-Type-Options: nosniff\n',
      )
    },
  }
}

/**
 * Subresource Integrity for every file, as an import map (`importmap.json`): a merchant page that
 * puts it in a `<script type="importmap">` has every module the element may load (statically or
 * later) checked against its hash, not only the entry. And the frame page's preload list, checked
 * against what `frame.js` really imports.
 */
function integrityAndPreload(): Plugin {
  return {
    name: 'pay-integrity-preload',
    generateBundle(_options, bundle) {
      const files = Object.values(bundle).filter((f) => f.type === 'chunk')
      const byName = new Map(files.map((f) => [f.fileName, f]))
      // The frame loads the entry, which imports the frame's page script: both with what they import.
      const entry = files.find((f) => f.isEntry && f.name === 'pay-checkout')
      const framePage = files.find((f) => f.facadeModuleId?.replace(/\\/g, '/').endsWith('widget/card-frame/frame-page.ts'))
      const seen = new Set<string>()
      const walk = (file: string): void => {
        if (seen.has(file)) return
        seen.add(file)
        for (const dep of byName.get(file)?.imports ?? []) walk(dep)
      }
      for (const f of [entry, framePage]) if (f) walk(f.fileName)
      if (!framePage) this.error('the frame page script is not a chunk of its own')
      const actual = [...seen].map((f) => `/widget/${f}`).sort()
      const listed = [...FRAME_SCRIPTS].sort()
      if (JSON.stringify(actual) !== JSON.stringify(listed)) {
        this.error(`widget/card-frame/preload.ts is out of date: the frame loads ${actual.join(', ')}`)
      }
      const integrity: Record<string, string> = {}
      for (const f of files) integrity[`/widget/${f.fileName}`] = `sha384-${createHash('sha384').update(f.code).digest('base64')}`
      this.emitFile({ type: 'asset', fileName: 'importmap.json', source: `${JSON.stringify({ integrity }, null, 2)}\n` })
    },
  }
}

export default defineConfig({
  plugins: [assetHeaders(), integrityAndPreload()],
  build: {
    outDir: 'dist/public/widget',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    lib: {
      // One entry: the element; in the card frame (served at /frame/{id} by the Worker) the same
      // file loads the frame's page script instead.
      entry: { 'pay-checkout': 'widget/index.ts' },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: {
      // Lets what the lazy chunks share with the entry live in the entry (which they import),
      // rather than in shared chunks the entry would have to load one round trip later.
      preserveEntrySignatures: 'allow-extension',
      output: {
        // Vite 8 library mode only minifies with this set.
        minify: true,
        chunkFileNames: 'chunks/[name].js',
      },
    },
  },
})
