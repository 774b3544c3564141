/**
 * The pages the Worker itself shows a shopper: the card frame (the form rendered in it, nothing of
 * the session in it) and the return after 3-D Secure when the merchant named no returnUrl (a
 * styled result with a way back to the shop, never a bare status word).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { browser, call, createSession, ORIGIN, pay } from './api.ts'
import { chargesFor, uniqueId } from './helpers.ts'
import { sandboxInvoice } from './outcome-support.ts'

/** A session offering an existing invoice of the sandbox, not yet regenerated. */
const invoiceSession = async () =>
  createSession({
    flow: 'invoice',
    amount: '250.00',
    invoiceId: await sandboxInvoice('250.00'),
    merchantInvoiceId: uniqueId('inv'),
    invoiceExpirationPeriod: '24',
  })

describe('the card frame page', () => {
  it('holds the whole card form in the locale named in its URL, in its direction and theme, before any script', async () => {
    const s = await createSession()
    const page = await call(`/frame/${s.id}?locale=de&theme=dark`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<html lang="de" dir="ltr" data-pay-frame>')
    expect(page.text).toContain('<pay-checkout-inline theme="dark"><template shadowrootmode="open">')
    // Every input of a new card's form, named for autofill, labelled in German.
    for (const [id, autocomplete] of [
      ['number', 'cc-number'],
      ['expiry', 'cc-exp'],
      ['cvv', 'cc-csc'],
      ['givenName', 'given-name'],
      ['surname', 'family-name'],
      ['email', 'email'],
      ['phone', 'tel-national'],
    ])
      expect(page.text).toMatch(new RegExp(`<input id="${id}" [^>]*autocomplete="${autocomplete}"`))
    expect(page.text).toContain('<label for="number">Kartennummer</label>')
    // The optional inputs say so in the shopper's language; the required ones, most of the form, do not.
    expect(page.text).toContain('<label for="phone">Telefon (optional)</label>')
    expect(page.text).toContain('<label for="telnocc">Ländervorwahl (optional)</label>')
    expect(page.text).not.toMatch(/<input id="(number|expiry|cvv|givenName|surname|email)" part="input" aria-invalid/)
    expect(page.text).toContain('<select id="telnocc"')
    // No shipping address unless asked for; with it, its inputs too.
    expect(page.text).not.toContain('id="street"')
    const shipping = (await call(`/frame/${s.id}?locale=de&shipping=1`)).text
    expect(shipping).toContain('<input id="street"')
    // All of the address is optional: its legend says so, once.
    expect(shipping).toContain('<legend>Lieferadresse (optional)</legend>')
    expect(shipping).toContain('<label for="street">Straße und Hausnummer</label>')
    // The frame's script, of this origin, and the stub after the form; what the script says is data.
    expect([...page.text.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="module" src="/widget/frame.js">',
      '<script>',
      '<script type="application/json" id="pay-words">',
    ])
    // A regional tag reads as its language when it has no locale of its own; Arabic right to left.
    expect((await call(`/frame/${s.id}?locale=de-AT`)).text).toContain('<html lang="de" dir="ltr" data-pay-frame>')
    expect((await call(`/frame/${s.id}?locale=pt-BR`)).text).toContain('<html lang="pt-BR" dir="ltr" data-pay-frame>')
    expect((await call(`/frame/${s.id}?locale=ar-EG`)).text).toContain('<html lang="ar" dir="rtl" data-pay-frame>')
    // An unknown locale or theme falls back to English and light: nothing of the query is echoed.
    const odd = await call(`/frame/${s.id}?locale=%22%3E%3Cscript%3E&theme=%22%3E%3Cb%3E`)
    expect(odd.text).toContain('<html lang="en" dir="ltr" data-pay-frame>')
    expect(odd.text).toContain('<pay-checkout-inline theme="light">')
    expect(odd.text).not.toContain('script%3E')
    expect(odd.text).not.toContain('"><script>')
    expect(odd.text).not.toContain('<b>')
  })

  it('allows its stub and its style sheets by hash, its script by origin, and nothing else inline', async () => {
    const s = await createSession()
    const page = await call(`/frame/${s.id}`)
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).not.toContain('unsafe-inline')
    const sha256 = async (text: string) =>
      `'sha256-${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))))}'`
    const stub = /<script>([^<]*)<\/script>/.exec(page.text)?.[1] ?? ''
    expect(stub).toContain('__payInbox')
    expect(csp).toContain(`script-src 'self' ${await sha256(stub)};`)
    const sheets = [...page.text.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1] ?? '')
    expect(sheets).toHaveLength(3)
    const allowed = /style-src ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? []
    for (const sheet of sheets) expect(allowed).toContain(await sha256(sheet))
    expect(allowed).toHaveLength(1 + sheets.length)
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

  it('speaks the shopper’s language (their browser’s Accept-Language), right to left where it is written so; English else', async () => {
    const s = await createSession()
    await pay(s, '4000000000003220')
    const page = (language?: string) =>
      call(`/v1/return/${s.id}`, language ? { headers: { 'Accept-Language': language } } : {})
    const de = await page('fr;q=0.5, de-AT, en;q=0.8')
    expect(de.text).toContain('<html lang="de" dir="ltr">')
    expect(de.text).toContain(`<a class="back" href="${ORIGIN}/">Zurück zum Shop</a>`)
    expect(de.text).toMatch(/<h1>(Wir bestätigen Ihre Zahlung|Zahlung abgelehnt|Zahlung erfolgreich)<\/h1>/)
    expect(de.headers.get('Vary')).toContain('Accept-Language')
    const ar = await page('ar-EG,ar;q=0.9')
    expect(ar.text).toContain('<html lang="ar" dir="rtl">')
    expect(ar.text).toContain('العودة إلى المتجر')
    expect(ar.text).not.toContain('Back to the shop')
    for (const language of [undefined, 'xx-YY', '*', 'de;q=0']) {
      const en = await page(language)
      expect(en.text, String(language)).toContain('<html lang="en" dir="ltr">')
      expect(en.text, String(language)).toContain('Back to the shop')
    }
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

  it('a starting page whose address holds a card number is not kept: the pay goes on, and the result page links to the shop’s root instead', async () => {
    const s = await createSession()
    const started = await pay(s, '4000000000003220', undefined, {
      returnPage: `${ORIGIN}/cards/4111-1111-1111-1111/pay`,
    })
    expect(started.body.status).toBe('action_required')
    const page = await call(`/v1/return/${s.id}`)
    expect(page.text).toContain(`<a class="back" href="${ORIGIN}/">Back to the shop</a>`)
    expect(page.text).not.toMatch(/4111.?1111/)
    // Escaped (twice, for a digit), with a malformed escape beside it: the same.
    const escaped = await createSession()
    await pay(escaped, '4000000000003220', undefined, {
      returnPage: `${ORIGIN}/x%ZZ/%2534%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31`,
    })
    expect((await call(`/v1/return/${escaped.id}`)).text).toContain(`<a class="back" href="${ORIGIN}/">`)
    // A long order number in the path is no card of a known brand: kept.
    const other = await createSession()
    await pay(other, '4000000000003220', undefined, { returnPage: `${ORIGIN}/orders/2026112900001234/pay` })
    expect((await call(`/v1/return/${other.id}`)).text).toContain(`href="${ORIGIN}/orders/2026112900001234/pay"`)
  })

  it('after an invoice’s page, links back to the page that asked for the invoice (its path), as after a bank step', async () => {
    const s = await invoiceSession()
    const regen = await browser(s, 'POST', '/invoice/regenerate', { returnPage: `${ORIGIN}/invoices/42?token=t#pay` })
    expect(regen.body).toMatchObject({ status: 'regenerated' })
    const page = await call(`/v1/return/${s.id}`)
    expect(page.text).toContain(`<a class="back" href="${ORIGIN}/invoices/42">Back to the shop</a>`)
    expect(page.text).not.toContain('token=')
  })

  it('refuses an invoice’s starting page on an origin the checkout does not allow, naming the field, before the gateway is asked', async () => {
    const s = await invoiceSession()
    const res = await browser(s, 'POST', '/invoice/regenerate', { returnPage: 'https://evil.example/invoices/42' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: { code: 'invalid_request', fields: [{ field: 'returnPage' }] } })
    expect((await browser(s, 'GET', '')).body).toMatchObject({ invoice: { regenerated: null } })
  })

  it('refuses a starting page on an origin the checkout does not allow, or one of the Worker’s own routes, naming the field, before any gateway call', async () => {
    const worker = new URL(env.PUBLIC_BASE_URL).origin
    for (const returnPage of [
      'https://evil.example/phish',
      'javascript:alert(1)',
      'not a url',
      `${worker}/v1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA`,
      `${worker}/frame/x`,
      // The Worker's other origins (OWN_ORIGINS: a custom domain beside workers.dev) alike.
      'https://pay.own.example/v1/return/cs_AAAAAAAAAAAAAAAAAAAAAAAA',
      'https://pay.own.example/widget/pay-checkout.js',
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
