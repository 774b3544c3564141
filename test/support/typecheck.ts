/**
 * Typechecks a merchant's file as written against the server SDK's sources (strict, in a scratch
 * folder), as the README's snippets and the typed-event test need: `pay-checkout/server` resolves
 * to `server/index.ts`. Returns tsc's output: empty when the file compiles.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from '../../tools/stacks.mjs'

export function typecheckAgainstSdk(
  dir: string,
  file: string,
  source: string,
  options: Record<string, unknown> = {},
): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, file), source)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        lib: ['ES2022', 'DOM'],
        types: [],
        baseUrl: root,
        paths: { 'pay-checkout/server': ['server/index.ts'], 'openapi-fetch': ['node_modules/openapi-fetch'] },
        ...options,
      },
      files: [file],
    }),
  )
  try {
    return execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    })
  } catch (err) {
    return (err as { stdout: string }).stdout || String(err)
  }
}
