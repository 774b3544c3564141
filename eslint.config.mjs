// The linter: ESLint's and typescript-eslint's recommended rules (syntax only, no type
// information: the compiler already checks types, and this stays a few seconds), over the
// repository's own code. Formatting is Prettier's (.prettierrc.json), import directions are
// dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '**/.wrangler/', 'docs/', 'server/api.ts', 'types/', 'bench/.peers/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        // Browsers, workerd and Node all have these; each tsconfig says which environment a file is for.
        console: 'readonly',
        process: 'readonly',
      },
    },
    rules: {
      // TypeScript resolves names (and knows each environment's globals); ESLint would need every global listed.
      'no-undef': 'off',
      // `_`-prefixed parameters and rest siblings are deliberately unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `declare global { namespace Cloudflare { ... } }` is how workerd's types are extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    // Chai's assertions are property reads (`expect(x).to.be.true`).
    files: ['test/widget/**'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
)
