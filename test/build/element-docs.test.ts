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

  it('the React and Vue typings name every attribute and event of the element', () => {
    type Named = { readonly name?: string }
    type Declaration = { readonly tagName?: string; readonly attributes?: Named[]; readonly events?: Named[] }
    const manifest = analyze() as { readonly modules: { readonly declarations?: Declaration[] }[] }
    const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'pay-checkout')
    const attributes = (element?.attributes ?? []).flatMap((a) => (a.name ? [a.name] : []))
    const events = (element?.events ?? []).flatMap((e) => (e.name?.startsWith('pay-') ? [e.name] : []))
    expect(attributes).toContain('frame-token')
    expect(events).toContain('pay-success')
    const react = readFileSync(join(root, 'types/react.d.ts'), 'utf8')
    const vue = readFileSync(join(root, 'types/vue.d.ts'), 'utf8')
    const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())
    const missing = [
      ...attributes.filter((a) => !react.includes(`${a.includes('-') ? `'${a}'` : a}?:`)).map((a) => `react: ${a}`),
      ...attributes.filter((a) => !vue.includes(`${a.includes('-') ? `'${a}'` : a}?:`)).map((a) => `vue: ${a}`),
      ...attributes.filter((a) => a.includes('-') && !vue.includes(`${camel(a)}?:`)).map((a) => `vue: ${camel(a)}`),
      ...events.filter((e) => !react.includes(`'on${e}'?:`)).map((e) => `react: on${e}`),
      ...events.filter((e) => !vue.includes(`on${camel(`-${e}`)}?:`)).map((e) => `vue: on${camel(`-${e}`)}`),
    ]
    expect(missing).toEqual([])
  })
})
