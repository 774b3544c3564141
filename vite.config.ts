// Builds the widget as a library: `dist/public/widget/pay-checkout.js` plus lazily loaded chunks (QR,
// invoice, locales). The Worker serves these files; merchants can also import the package.
import { defineConfig } from 'vite'

export default defineConfig({
  build: {
    outDir: 'dist/public/widget',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    lib: {
      entry: 'widget/index.ts',
      formats: ['es'],
      fileName: () => 'pay-checkout.js',
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
