/** The README's event table is the event catalogue: every type the Worker sends, with its finality. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../shared/webhooks/events.ts'

describe('the README documents every merchant event', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  it.each(Object.entries(EVENT_TYPES))('%s is in the table, final or not as sent', (type, e) => {
    expect(readme).toContain(`| \`${type}\` | ${e.final ? '**yes**' : 'no'} |`)
  })
})
