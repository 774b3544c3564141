/**
 * The pages the Worker itself shows a shopper: the card frame (its scripts preloaded, nothing of
 * the session in it) and the return after 3-D Secure when the merchant named no returnUrl (a
 * styled result with a way back to the shop, never a bare status word).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { FRAME_SCRIPTS } from '../../shared/frame-preload.ts'
import { browser, call, createSession, ORIGIN, pay } from './api.ts'
import { chargesFor } from './helpers.ts'

describe('the card frame page', () => {
  it('preloads every script the frame needs, and the locale named in its URL', async () => {
    const s = await createSession()
    const page = await call(`/frame/${s.id}?locale=de&theme=dark`)
    expect(page.status).toBe(200)
    for (const src of FRAME_SCRIPTS) expect(page.text).toContain(`<link rel="modulepreload" href="${src}">`)
    expect(page.text).toContain('<link rel="modulepreload" href="/widget/chunks/de.js">')
    expect(page.text).toContain('<html lang="de" dir="ltr" data-pay-frame>')
    // A regional tag preloads its own locale when there is one, else its language's; Arabic reads right to left.
    expect((await call(`/frame/${s.id}?locale=pt-BR`)).text).toContain(
      '<link rel="modulepreload" href="/widget/chunks/pt-BR.js">',
    )
    expect((await call(`/frame/${s.id}?locale=de-AT`)).text).toContain('<html lang="de" dir="ltr" data-pay-frame>')
    expect((await call(`/frame/${s.id}?locale=ar-EG`)).text).toContain('<html lang="ar" dir="rtl" data-pay-frame>')
    // An unknown locale falls back to the built-in English: nothing of the query is echoed.
    const odd = await call(`/frame/${s.id}?locale=%22%3E%3Cscript%3E`)
    expect(odd.text).toContain('<html lang="en" dir="ltr" data-pay-frame>')
    expect(odd.text).not.toContain('script%3E')
    expect(odd.text).not.toContain('"><script>')
  })
})

describe('the return page after 3-D Secure without a returnUrl', () => {
  it('shows the result in words with a link back to the shop that started the payment', async () => {
    const s = await createSession()
    const started = await pay(s, '4000000000003220')
    expect(started.body.status).toBe('action_required')
    const page = await call(`/v1/return/${s.id}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('Content-Type')).toContain('text/html')
    expect(page.text).toContain('<style>')
    expect(page.text).toMatch(/<h1>(We are confirming your payment|Payment declined|Payment successful)<\/h1>/)
    expect(page.text).toContain(`<a class="back" href="${ORIGIN}/">Back to the shop</a>`)
    expect(page.text).not.toContain('Payment status:')
  })

  it('links back to the page that started the payment when the widget sent it: its path, never its query or fragment', async () => {
    const s = await createSession()
    const started = await pay(s, '4000000000003220', undefined, {
      returnPage: `${ORIGIN}/checkout/step-2?secret=cs_x_secret_y#pay`,
    })
    expect(started.body.status).toBe('action_required')
    const page = await call(`/v1/return/${s.id}`)
    expect(page.text).toContain(`<a class="back" href="${ORIGIN}/checkout/step-2">Back to the shop</a>`)
    expect(page.text).not.toContain('secret=')
  })

  it('keeps no semicolon parameters of the page either (a session id may ride there)', async () => {
    const s = await createSession()
    await pay(s, '4000000000003220', undefined, { returnPage: `${ORIGIN}/checkout;jsessionid=ABC123` })
    const page = await call(`/v1/return/${s.id}`)
    expect(page.text).toContain(`<a class="back" href="${ORIGIN}/checkout">Back to the shop</a>`)
    expect(page.text).not.toContain('ABC123')
  })

  it('refuses a starting page on an origin the checkout does not allow, or one of the Worker’s own routes, naming the field, before any gateway call', async () => {
    const worker = new URL(env.PUBLIC_BASE_URL).origin
    for (const returnPage of [
      'https://evil.example/phish',
      'javascript:alert(1)',
      'not a url',
      `${worker}/v1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA`,
      `${worker}/frame/x`,
    ]) {
      const s = await createSession()
      const res = await pay(s, '4000000000003220', undefined, { returnPage })
      expect(res.status, returnPage).toBe(400)
      expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'returnPage' }] })
      expect(await chargesFor(s.mtid)).toBe(0)
    }
  })
})

describe('the browser view', () => {
  it('says test mode while the gateway is the sandbox on this machine (the widget shows a badge)', async () => {
    const s = await createSession()
    const view = await browser(s, 'GET', '')
    expect(view.status).toBe(200)
    expect(view.body).toMatchObject({ flow: 'card', status: 'open', testMode: true })
  })
})
