import { expect } from '@open-wc/testing'
import { createSession, until } from './helpers.ts'

describe('a page with script-src self; style-src self; Trusted Types required', () => {
  it('renders and pays without a CSP violation', async () => {
    const s = await createSession()
    const frame = document.createElement('iframe')
    frame.src = `/test/widget/csp-page.html?endpoint=${encodeURIComponent(s.endpoint)}&session=${s.id}&secret=${encodeURIComponent(s.clientSecret)}`
    document.body.append(frame)
    const report = () =>
      (frame.contentWindow as unknown as { cspReport?: { violations: string[]; result?: string } } | null)?.cspReport
    await until(() => report()?.result !== undefined, 20_000)
    expect(report()?.result).to.equal('succeeded')
    expect(report()?.violations).to.deep.equal([])
    // The page really is under the policy: an inline style is refused there.
    const doc = frame.contentDocument
    const probe = doc?.createElement('div')
    probe?.setAttribute('style', 'color: red')
    doc?.body.append(probe as Node)
    await until(() => (report()?.violations.length ?? 0) > 0, 5_000)
    expect(report()?.violations[0]).to.contain('style-src')
    frame.remove()
  })
})
