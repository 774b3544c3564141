/**
 * SECURITY.md is the list the code points at ("SECURITY.md R21", "(R11)"): every R-number cited
 * in worker/, shared/ and widget/ must have its entry there, and every test SECURITY.md names as
 * proof must exist, so the file cannot drift from the code and the suites without failing here.
 *
 * Conventions it relies on (SECURITY.md says so too): a requirement is a heading `#### R<n> · ...`;
 * a test is cited in backticks as `test/<dir>/<file>.test.ts › <exact it() name>` (for `it.each`,
 * the name template, `%s` included).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const security = readFileSync(join(root, 'SECURITY.md'), 'utf8')

/** The numbering the code uses: R1 to R28, none of them dropped or renumbered. */
const REQUIREMENTS = Array.from({ length: 28 }, (_, i) => i + 1)

/** Source files of a folder, recursively (no dependencies, no build output). */
function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...sources(path))
    } else if (/\.(ts|mts|mjs|js|html)$/.test(entry.name)) {
      out.push(path)
    }
  }
  return out
}

/**
 * R-numbers cited in a text: `R12`, and ranges `R13-R16` / `R17–R19` expanded. One or two digits
 * only, so an identifier such as `R123` (a registration id in a fixture) is not a citation.
 */
export function citedNumbers(text: string): number[] {
  const found: number[] = []
  for (const m of text.matchAll(/\bR(\d{1,2})(?:\s*[-–]\s*R(\d{1,2}))?\b/g)) {
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    for (let n = from; n <= Math.max(from, to); n++) found.push(n)
  }
  return found
}

/** Requirement headings of SECURITY.md: number -> how many headings carry it. */
function headings(): Map<number, number> {
  const counts = new Map<number, number>()
  for (const m of security.matchAll(/^#{2,6} R(\d{1,2})\b/gm))
    counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1)
  return counts
}

/** The names given to it()/test() in a test file, `it.each(...)(name)` included, unescaped. */
export function testNames(source: string): Set<string> {
  const names = new Set<string>()
  const call =
    /(?:\b(?:it|test)(?:\.(?:skip|only|todo|concurrent|sequential))?|\))\s*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g
  for (const m of source.matchAll(call)) names.add((m[2] ?? '').replace(/\\(['"`\\])/g, '$1'))
  return names
}

/** Every `file › name` citation in SECURITY.md. */
function citations(text: string): { file: string; name: string }[] {
  return [...text.matchAll(/`(test\/[^`\s]+\.test\.ts) › ([^`]+)`/g)].map((m) => ({
    file: m[1] ?? '',
    name: m[2] ?? '',
  }))
}

describe('SECURITY.md', () => {
  it('has one entry for each of R1 to R28, and no other', () => {
    const counts = headings()
    expect(
      REQUIREMENTS.filter((n) => counts.get(n) !== 1),
      'R-numbers without exactly one heading',
    ).toEqual([])
    expect(
      [...counts.keys()].filter((n) => !REQUIREMENTS.includes(n)),
      'headings outside R1-R28',
    ).toEqual([])
  })

  it('has an entry for every R-number cited in worker/, shared/ and widget/', () => {
    const counts = headings()
    const missing: string[] = []
    let cited = 0
    for (const file of ['worker', 'shared', 'widget'].flatMap(sources)) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const n of citedNumbers(line)) {
            cited++
            if (!counts.has(n)) missing.push(`R${n} (${relative(root, join(root, file))}:${i + 1})`)
          }
        })
    }
    // The scan means something: the code does cite requirements.
    expect(cited).toBeGreaterThan(20)
    expect(missing).toEqual([])
  })

  it('names a test for each requirement, or says plainly what is not tested', () => {
    const sections = security.split(/^(?=#{2,6} )/m).filter((s) => /^#{2,6} R\d{1,2}\b/.test(s))
    const bare = sections
      .filter((s) => citations(s).length === 0 && !/\bNot (tested|done)\b/.test(s))
      .map((s) => s.split('\n')[0])
    expect(sections).toHaveLength(REQUIREMENTS.length)
    expect(bare).toEqual([])
  })

  it('cites only tests that exist, by file and exact name', () => {
    const cited = citations(security)
    expect(cited.length).toBeGreaterThan(50)
    const cache = new Map<string, Set<string> | undefined>()
    const unknown: string[] = []
    for (const { file, name } of cited) {
      if (!cache.has(file))
        cache.set(file, existsSync(join(root, file)) ? testNames(readFileSync(join(root, file), 'utf8')) : undefined)
      const names = cache.get(file)
      if (!names) unknown.push(`${file}: no such file`)
      else if (!names.has(name)) unknown.push(`${file} › ${name}`)
    }
    expect(unknown).toEqual([])
  })

  it('links only to files of this repository', () => {
    const broken: string[] = []
    for (const m of security.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? ''
      if (target.startsWith('#') || /^(https?|mailto):/.test(target)) continue
      const path = target.split('#')[0] ?? ''
      if (path.startsWith('/') || path.includes('..') || !existsSync(join(root, path))) broken.push(target)
    }
    expect(broken).toEqual([])
  })

  it('the parsers read what they should', () => {
    expect(citedNumbers('SECURITY.md R17-R19; (R3, R4) R13–R16, registrationId R123')).toEqual([
      17, 18, 19, 3, 4, 13, 14, 15, 16,
    ])
    const names = testNames(
      `it('a', x)\nit.each([1] as const)('%s b', y)\nit(\`c \${d}\`, z)\nit('e\\'s', w)\ndescribe('f', v)`,
    )
    expect([...names]).toEqual(['a', '%s b', 'c ${d}', "e's"])
  })
})
