/**
 * The README's element reference and the committed custom-elements manifest are generated from the
 * class JSDoc: this fails when someone changed one without regenerating the others (`npm run docs`).
 * The analysis runs in a scratch folder; the test writes nothing into the repository.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyze, currentSection, MANIFEST_FILE, render } from '../../docs/element-api.mjs'
import { root } from '../../tools/stacks.mjs'

describe('element reference in the README', () => {
  it('matches the custom-elements manifest generated from the JSDoc', () => {
    const manifest = analyze()
    const section = render(manifest)
    for (const name of ['pay-success', 'pay-declined', '--pay-accent', '::part(submit)', 'client-secret', 'submit()'])
      expect(section).toContain(name)
    expect(currentSection(readFileSync(join(root, 'README.md'), 'utf8'))).toBe(section)
  })

  it("the committed manifest (the package's customElements is made from it) is the one the JSDoc makes now", () => {
    expect(JSON.parse(readFileSync(MANIFEST_FILE, 'utf8'))).toEqual(analyze())
  })
})
