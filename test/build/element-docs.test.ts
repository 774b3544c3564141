/**
 * The README's element reference is generated from the class JSDoc (custom-elements manifest):
 * this fails when someone changed one without regenerating the other (`npm run docs`).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyze, currentSection, render } from '../../docs/element-api.mjs'
import { root } from '../support/processes.mjs'

describe('element reference in the README', () => {
  it('matches the custom-elements manifest generated from the JSDoc', () => {
    const manifest = analyze()
    const section = render(manifest)
    for (const name of ['pay-success', 'pay-declined', '--pay-accent', '::part(submit)', 'client-secret', 'submit()']) expect(section).toContain(name)
    expect(currentSection(readFileSync(join(root, 'README.md'), 'utf8'))).toBe(section)
  })
})
