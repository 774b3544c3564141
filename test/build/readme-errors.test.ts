/** The README's two error tables are the error catalogue: every code the Worker answers, with its HTTP status. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../shared/errors.ts'
import { statusOf } from '../../worker/errors.ts'

describe('the README documents every error code', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  it.each(ERROR_CODES)('%s is in a table, with the status the Worker answers it with', (code) => {
    expect(readme).toContain(`| \`${code}\` | ${statusOf(code)} |`)
  })
})
