// Builds the widget as a library into `dist/public/widget/`: `pay-checkout.js` (the element a
// merchant page loads: one file with no static imports; in frame mode it only creates the frame)
// and chunks: the full checkout's frame page script, the inline checkout with Lit and the card
// form, QR, invoice, locales; then, each on its own, `chunks/light.js` (the light inline form) and
// `frame.js` (the card frame's script), both without Lit.
// Chunk names carry no hash: the card frame's script preloads the full checkout's chunks by name
// when it hands a session over (shared/frame-preload.ts), and `importmap.json` pins every file of
// the element by its SHA-384.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, defineConfig, type Plugin } from 'vite'
import { FRAME_SCRIPTS } from './shared/frame-preload.ts'
import { minifyCss } from './shared/styles.ts'

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
/** A Subresource Integrity value (`integrity`), as the import map pins each file. */
const sri = (data: string | Uint8Array): string => `sha384-${createHash('sha384').update(data).digest('base64')}`

function integrityAndPreload(): Plugin {
  return {
    name: 'pay-integrity-preload',
    generateBundle(_options, bundle) {
      const files = Object.values(bundle).filter((f) => f.type === 'chunk')
      const byName = new Map(files.map((f) => [f.fileName, f]))
      // The frame loads the entry, which imports the frame's page script: both with what they import.
      const entry = files.find((f) => f.isEntry && f.name === 'pay-checkout')
      const framePage = files.find((f) =>
        f.facadeModuleId?.replace(/\\/g, '/').endsWith('widget/card-frame/frame-page.ts'),
      )
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
        this.error(`shared/frame-preload.ts is out of date: the frame loads ${actual.join(', ')}`)
      }
      const integrity: Record<string, string> = {}
      for (const f of files) integrity[`/widget/${f.fileName}`] = sri(f.code)
      this.emitFile({
        type: 'asset',
        fileName: 'importmap.json',
        source: `${JSON.stringify({ integrity }, null, 2)}\n`,
      })
    },
  }
}

/**
 * Each locale is two chunks of strings alone, one a line in English's key order
 * (`widget/i18n/index.ts` puts the keys back; keys and quotes were a third of every chunk): the
 * card flow's messages (`chunks/<locale>.js`, its default export) and the other methods'
 * (`chunks/<locale>.more.js`, which it imports on demand; `shared/i18n/parts.ts`). English is
 * split the same way: the card flow's messages built into the card flow, the others
 * `chunks/en.more.js`, loaded with the other methods. Each must stay
 * within 1.2 KB brotli. The locales are emitted as chunks of their own and one import replaces the
 * table of loaders in `widget/i18n/index.ts` (kept in the source for other bundlers: the npm
 * package), so the card flow holds no table of imports. The
 * translator's file stays one object keyed by message; the locale test checks that every file has
 * exactly English's keys.
 */
function packLocales(emit = true): Plugin {
  let messagesDir = ''
  let sharedDir = ''
  return {
    name: 'pay-pack-locales',
    // Before TypeScript is stripped: it rewrites widget/i18n/index.ts's source.
    enforce: 'pre',
    configResolved(config) {
      messagesDir = join(config.root, 'shared', 'i18n', 'messages')
      sharedDir = join(config.root, 'shared')
    },
    async buildStart() {
      // A script built on its own (the light inline form) loads the widget's locale chunks.
      if (!emit) return
      const { LOCALES } = (await import(pathToFileURL(join(sharedDir, 'locales.ts')).href)) as {
        LOCALES: readonly string[]
      }
      for (const locale of LOCALES.filter((l) => l !== 'en')) {
        this.emitFile({
          type: 'chunk',
          id: join(messagesDir, `${locale}.ts`),
          fileName: `chunks/${locale}.js`,
          preserveSignature: 'strict',
        })
      }
      this.emitFile({
        type: 'chunk',
        id: `${join(messagesDir, 'en.ts')}?more`,
        fileName: 'chunks/en.more.js',
        preserveSignature: 'strict',
      })
    },
    transform(code, id) {
      if (!id.replace(/\\/g, '/').endsWith('/widget/i18n/index.ts')) return null
      const table = /\/\/ <locale-loaders>[\s\S]*?\/\/ <\/locale-loaders>/
      if (!table.test(code)) this.error('widget/i18n/index.ts: no <locale-loaders> block to replace')
      return code.replace(
        table,
        'const load = (locale: string): Promise<Chunk> => import(/* @vite-ignore */ `./${locale}.js`)\n' +
          "const englishMore = (): Promise<Partial<Messages>> => load('en.more').then((m) => m.default as unknown as Partial<Messages>)",
      )
    },
    async load(id) {
      const m = /\/shared\/i18n\/messages\/([\w-]+)\.ts(\?more)?$/.exec(id.replace(/\\/g, '/'))
      if (!m?.[1]) return null
      // Plain data files: Node runs them as they are (type stripping).
      const dir = pathToFileURL(messagesDir).href
      const { en } = (await import(`${dir}/en.ts`)) as { en: Record<string, string> }
      const { MORE_KEYS } = (await import(`${dir}/../parts.ts`)) as { MORE_KEYS: readonly string[] }
      const keys = m[2] ? MORE_KEYS : Object.keys(en).filter((k) => !MORE_KEYS.includes(k))
      if (m[1] === 'en') {
        // English, the source of the keys: the card flow's messages built in, the other methods'
        // a chunk of their own (`chunks/en.more.js`). Their keys, in order, name the lines of
        // every locale's two chunks, so the browser carries no list of keys.
        const part = JSON.stringify(Object.fromEntries(keys.map((k) => [k, en[k]])))
        return m[2] ? `export default ${part}\n` : `export const en = ${part}\n`
      }
      const { messages } = (await import(`${dir}/${m[1]}.ts`)) as { messages: Record<string, string> }
      const lines = keys.map((k) => messages[k] ?? '')
      if (lines.some((l) => l.includes('\n'))) this.error(`${m[1]}: a message holds a line break`)
      const text = `export default \`${lines.join('\n').replace(/[\\`]|\$\{/g, (c) => `\\${c}`)}\`\n`
      return m[2] ? text : `${text}export const more = () => import('./${m[1]}.ts?more')\n`
    },
    generateBundle(_options, bundle) {
      // The loader's `./<locale>.js` is relative to the chunk it ends up in: it must be beside them.
      if (!emit) return
      for (const f of Object.values(bundle)) {
        if (
          f.type === 'chunk' &&
          /import\(\s*(\/\*[^*]*\*\/\s*)?`\.\/\$\{/.test(f.code) &&
          !f.fileName.startsWith('chunks/')
        )
          this.error(`${f.fileName} loads locales but is not in chunks/`)
      }
    },
  }
}

/**
 * Template text, which the minifier leaves alone, minified too. The style sheets written as Lit
 * `css` templates: comments and indentation out, no spaces around `{ } ; , >` or after `:` (only
 * the template's text changes, never a `${...}` in it). And in the built code, where a line break
 * is left only inside template text (the `html` templates' markup), a line break and its
 * indentation become one space, which HTML reads the same (no element of ours keeps white space).
 * The message chunks, one message a line, are left as they are.
 */
function minifyTemplates(): Plugin {
  return {
    name: 'pay-minify-templates',
    apply: 'build',
    transform(code, id) {
      if (!/\/(widget\/.*|shared\/styles)\.ts$/.test(id.replace(/\\/g, '/')) || !code.includes('css`')) return null
      // shared/styles.ts tags its CSS text with String.raw under the name `css`: the tag goes too.
      const tag = id.replace(/\\/g, '/').endsWith('/shared/styles.ts') ? '' : 'css'
      return code.replace(
        /\bcss`([^`]*)`/g,
        (_, body: string) =>
          `${tag}\`${body
            .split(/(\$\{[^}]*\})/)
            .map((part, i) => (i % 2 ? part : minifyCss(part)))
            .join('')
            .trim()}\``,
      )
    },
    renderChunk(code, chunk) {
      if (chunk.facadeModuleId?.replace(/\\/g, '/').includes('/shared/i18n/messages/')) return null
      return { code: code.replace(/\n[ \t]+/g, ' '), map: null }
    },
  }
}

/** A plugin that runs `then` once the widget's build is written, with its root and output folder. */
function afterWidget(name: string, then: (root: string, outDir: string) => Promise<void>): Plugin {
  let outDir = ''
  let root = ''
  return {
    name,
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir
      root = config.root
    },
    closeBundle: () => then(root, outDir),
  }
}

/**
 * The scripts built on their own as one file each (`name`.js), nothing shared with the widget's
 * chunks: what goes into each. `npm run bench:parts` builds them the same way, part by part.
 */
export const ONE_FILE_SCRIPTS = {
  light: { entry: 'widget/inline/light.ts', plugins: (): Plugin[] => [packLocales(false), minifyTemplates()] },
  frame: { entry: 'widget/card-frame/frame.ts', plugins: (): Plugin[] => [minifyTemplates()] },
  console: { entry: 'console/index.ts', plugins: (): Plugin[] => [] },
} as const

/**
 * One of `ONE_FILE_SCRIPTS`, built into `outDir`, or kept in memory without one (the output is
 * returned either way); `plugins` go before the script's own.
 */
export async function buildOneFile(o: {
  root: string
  name: keyof typeof ONE_FILE_SCRIPTS
  outDir?: string
  emptyOutDir?: boolean
  plugins?: Plugin[]
}): Promise<Awaited<ReturnType<typeof build>>> {
  const script = ONE_FILE_SCRIPTS[o.name]
  return build({
    configFile: false,
    root: o.root,
    logLevel: o.outDir === undefined ? 'silent' : 'warn',
    mode: 'production',
    plugins: [...(o.plugins ?? []), ...script.plugins()],
    build: {
      ...(o.outDir === undefined ? { write: false } : { outDir: o.outDir, emptyOutDir: o.emptyOutDir ?? false }),
      target: 'es2022',
      sourcemap: false,
      lib: { entry: { [o.name]: script.entry }, formats: ['es'], fileName: () => `${o.name}.js` },
      rolldownOptions: { output: { minify: true, codeSplitting: false } },
    },
  })
}

/**
 * The light inline form (`widget/inline/light.ts`), as one file, `chunks/light.js`, with nothing
 * shared with the widget's chunks: the element imports it for a card in inline mode, and a page
 * that preloads it (the README) has the card form in one round trip, beside the entry. Its words
 * come from the widget's locale chunks beside it, English's built in as in the widget's. The
 * element's import of the source becomes one of that file (the widget's build does not bundle it
 * again), and the file joins the import map's integrity table.
 */
const LIGHT_IMPORT = "import('../inline/light.ts')"
const lightScript = (): Plugin => ({
  // Before TypeScript is stripped, so the import is as written.
  enforce: 'pre',
  ...afterWidget('pay-light-form', async (root, outDir) => {
    await buildOneFile({ root, name: 'light', outDir: join(outDir, 'chunks') })
    const map = join(outDir, 'importmap.json')
    const { integrity } = JSON.parse(readFileSync(map, 'utf8')) as { integrity: Record<string, string> }
    integrity['/widget/chunks/light.js'] = sri(readFileSync(join(outDir, 'chunks', 'light.js')))
    writeFileSync(map, `${JSON.stringify({ integrity }, null, 2)}\n`)
  }),
  transform(code, id) {
    if (!id.replace(/\\/g, '/').endsWith('/widget/pay-checkout/pay-checkout.ts')) return null
    if (!code.includes(LIGHT_IMPORT)) this.error(`widget/pay-checkout/pay-checkout.ts: no ${LIGHT_IMPORT}`)
    return code.replace(LIGHT_IMPORT, "import(/* @vite-ignore */ './chunks/light.js')")
  },
})

/**
 * The card frame's script (`frame.js`, `widget/card-frame/frame.ts`), beside the widget's files.
 * The frame's page (rendered by the Worker with the form in it) loads this one script and nothing
 * else for a card.
 */
const frameScript = (): Plugin =>
  afterWidget('pay-frame-script', async (root, outDir) => {
    await buildOneFile({ root, name: 'frame', outDir })
  })

/**
 * The merchant console's script (`console/index.ts`, to `dist/public/console/console.js`), so
 * nothing of it reaches a shopper's bundle. Only into the Worker's asset folder (not for builds
 * elsewhere: tests, benchmarks).
 */
const consoleScript = (): Plugin =>
  afterWidget('pay-console-script', async (root, outDir) => {
    if (outDir.replace(/\\/g, '/').endsWith('dist/public/widget'))
      await buildConsole(root, join(dirname(outDir), 'console'))
  })

/** The console's one file, `console.js`, into `outDir` (also the size budget's build: test/build/bundle-size.test.ts). */
export const buildConsole = async (root: string, outDir: string): Promise<void> => {
  await buildOneFile({ root, name: 'console', outDir, emptyOutDir: true })
}

export default defineConfig({
  plugins: [
    packLocales(),
    minifyTemplates(),
    assetHeaders(),
    integrityAndPreload(),
    lightScript(),
    frameScript(),
    consoleScript(),
  ],
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
        // A locale's other-methods part is `<locale>.more.js` beside `<locale>.js`.
        chunkFileNames: (chunk) =>
          chunk.facadeModuleId?.endsWith('?more') ? 'chunks/[name].more.js' : 'chunks/[name].js',
      },
    },
  },
})
