// Builds the widget as a library: `dist/public/widget/pay-checkout.js` (and `frame.js`, the card
// frame's page) plus lazily loaded chunks (QR, invoice, locales). The Worker serves these files; merchants can also import the package.
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { defineConfig, type Plugin } from 'vite'

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

export default defineConfig({
  plugins: [assetHeaders()],
  build: {
    outDir: 'dist/public/widget',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    lib: {
      // The element, and the card frame's page script (served at /frame/{id} by the Worker).
      entry: { 'pay-checkout': 'widget/index.ts', frame: 'widget/card-frame/frame-page.ts' },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: {
      output: {
        // Vite 8 library mode only minifies with this set.
        minify: true,
        chunkFileNames: 'chunks/[name]-[hash].js',
      },
    },
  },
})
