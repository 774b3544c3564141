/**
 * The gateway client against the sandbox gateway over real HTTP: every operation, every test
 * card, and the refusals (wrong checksum, wrong or missing AuthToken).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SANDBOX } from '../../tools/credentials.ts'
import { getAuthToken, jwtExpiry } from '../../worker/gateway/auth-token.ts'
import { checksum } from '../../shared/gateway/checksum.ts'
import { encodeForm } from '../../shared/gateway/form.ts'
import { wirePayment } from '../../tools/wire-payment.ts'
import { cardFields, catcherUrl, chargesFor, client, injectFault, notificationsFor, uniqueId } from './helpers.ts'

const base = { amount: '100.00', currency: 'EUR', paymentType: 'DB' }

describe('initial card payment, by test card', () => {
  it.each([
    ['4111111111111111', 'VISA'],
    ['5555555555554444', 'MC'],
    ['378282246310005', 'AMEX'],
  ])('%s succeeds with 00001 / Y', async (number, brand) => {
    const mtid = uniqueId('ok')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields(number) })
    expect(outcome.kind).toBe('succeeded')
    if (outcome.kind !== 'succeeded') return
    expect(outcome.code).toBe('00001')
    expect(outcome.response.transactionStatus).toBe('Y')
    expect(outcome.response.paymentBrand).toBe(brand)
    expect(outcome.response.cardLast4).toBe(number.slice(-4))
    expect(outcome.response.paymentId).toMatch(/^\d+$/)
    expect(outcome.response.merchantTransactionId).toBe(mtid)
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('4000 0000 0000 0002 is declined with 10001 / N', async () => {
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('decl'),
      ...cardFields('4000000000000002'),
    })
    expect(outcome).toMatchObject({ kind: 'declined', code: '10001', response: { transactionStatus: 'N' } })
  })

  it('4000 0000 0000 3220 needs 3-D Secure: a redirect to the sandbox ACS', async () => {
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('3ds'),
      merchantRedirectUrl: 'https://shop.example/return',
      ...cardFields('4000000000003220'),
    })
    expect(outcome.kind).toBe('action_required')
    if (outcome.kind !== 'action_required') return
    expect(outcome.redirect.url).toBe(`${env.GATEWAY_BASE_URL}/acs/${outcome.response.paymentId}`)
    expect(outcome.redirect.method).toBe('POST')
    expect(outcome.redirect.parameters.map((p) => p.name)).toEqual(['PaReq', 'MD'])
    const acs = await fetch(outcome.redirect.url, {
      method: 'POST',
      body: new URLSearchParams(outcome.redirect.parameters.map((p) => [p.name, p.value])),
    })
    expect(acs.status).toBe(200)
    expect(await acs.text()).toContain('Authenticate')
  })

  it('3-D Secure completed on the ACS returns the shopper, notifies, and the payment succeeds', async () => {
    const tag = uniqueId('3dsn')
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: tag,
      merchantRedirectUrl: 'https://shop.example/return',
      redirectMethod: 'GET',
      notificationUrl: catcherUrl(tag),
      ...cardFields('4000000000003220'),
    })
    if (outcome.kind !== 'action_required') throw new Error(`expected action_required, got ${outcome.kind}`)
    const back = await fetch(`${outcome.redirect.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    expect(back.status).toBe(303)
    const location = new URL(back.headers.get('Location') ?? '')
    expect(location.origin + location.pathname).toBe('https://shop.example/return')
    expect(location.searchParams.get('status')).toBe('Y')
    const [note] = await notificationsFor(tag)
    expect(note).toMatchObject({ paymentId: outcome.response.paymentId, transactionStatus: 'Y', amount: '100.00' })
    const inquiry = await client().inquiry(outcome.response.paymentId ?? '', 'PID')
    expect(inquiry.kind).toBe('succeeded')
  })

  it('4000 0000 0000 0259 is pending, then settled by a signed notification', async () => {
    const tag = uniqueId('pend')
    const outcome = await client().payment({
      ...base,
      merchantTransactionId: tag,
      notificationUrl: catcherUrl(tag),
      ...cardFields('4000000000000259'),
    })
    expect(outcome).toMatchObject({ kind: 'pending', response: { transactionStatus: 'P' } })
    const [note] = await notificationsFor(tag)
    expect(note).toMatchObject({
      merchantTransactionId: tag,
      transactionStatus: 'Y',
      amount: '100.00',
      currency: 'EUR',
    })
    const expected = await checksum('notification', {
      paymentId: String(note?.paymentId),
      merchantTransactionId: tag,
      amount: '100.00',
      transactionStatus: 'Y',
      secureKey: SANDBOX.secureKey,
    })
    expect(expected.ok && note?.checksum === expected.value).toBe(true)
    expect(JSON.stringify(note)).not.toContain('4000000000000259')
    expect((await client().inquiry(tag, 'MID')).kind).toBe('succeeded')
  })

  it('4000 0000 0000 0119 answers HTTP 500: unknown, and the inquiry finds the recorded payment', async () => {
    const mtid = uniqueId('h500')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4000000000000119') })
    expect(outcome).toEqual({ kind: 'unknown', reason: 'http_status', status: 500 })
    expect(await client().inquiry(mtid, 'MID')).toMatchObject({
      kind: 'succeeded',
      response: { merchantTransactionId: mtid },
    })
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('4000 0000 0000 9995 answers too late: unknown (timeout), and the inquiry finds the payment', async () => {
    const mtid = uniqueId('slow')
    const outcome = await client({ timeoutMs: 800 }).payment({
      ...base,
      merchantTransactionId: mtid,
      ...cardFields('4000000000009995'),
    })
    expect(outcome).toEqual({ kind: 'unknown', reason: 'timeout' })
    expect((await client().inquiry(mtid, 'MID')).kind).toBe('succeeded')
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('a JPY amount goes out with two decimals and is signed as sent', async () => {
    const outcome = await client().payment({
      ...cardFields('4111111111111111'),
      amount: '1000.00',
      currency: 'JPY',
      paymentType: 'PA',
      merchantTransactionId: uniqueId('jpy'),
    })
    expect(outcome).toMatchObject({
      kind: 'succeeded',
      response: { amount: '1000.00', currency: 'JPY', paymentType: 'PA' },
    })
  })

  it('a second live charge with the same merchantTransactionId is refused by the gateway', async () => {
    const mtid = uniqueId('dup')
    expect(
      (await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111111') })).kind,
    ).toBe('succeeded')
    expect(
      await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111111') }),
    ).toMatchObject({ kind: 'rejected', reason: 'validation', code: '30005' })
    expect(await chargesFor(mtid)).toBe(1)
  })

  it('refuses invalid input before anything is sent', async () => {
    const mtid = uniqueId('bad')
    const outcome = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4111111111111112') })
    expect(outcome).toEqual({ kind: 'invalid', fields: [{ field: 'card.number', code: 'format' }] })
    const pipe = await client().payment({ ...base, merchantTransactionId: 'a|9.99', ...cardFields('4111111111111111') })
    expect(pipe.kind).toBe('invalid')
    expect(await chargesFor(mtid)).toBe(0)
  })
})

describe('recurring: registrations and repeats', () => {
  it('an INITIAL payment with createRegistration returns a registrationId; repeats by registration and by payment id succeed', async () => {
    const first = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('init'),
      recurringType: 'INITIAL',
      createRegistration: 'true',
      ...cardFields('4111111111111111'),
    })
    expect(first.kind).toBe('succeeded')
    if (first.kind !== 'succeeded') return
    const registrationId = first.response.registrationId ?? ''
    expect(registrationId).toMatch(/^R\d+$/)
    const byToken = await client().payWithToken(registrationId, 'REPEATED', {
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'DB',
      cvv: '123',
    })
    expect(byToken).toMatchObject({ kind: 'succeeded', response: { registrationId } })
    const byId = await client().repeat(first.response.paymentId ?? '', {
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'DB',
    })
    expect(byId.kind).toBe('succeeded')
    if (byId.kind === 'succeeded') expect(byId.response.paymentId).not.toBe(first.response.paymentId)
  })

  it('refuses a REPEATED payment before the INITIAL one, then allows it after paywithtoken INITIAL', async () => {
    const first = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('reg'),
      createRegistration: 'true',
      ...cardFields('5555555555554444'),
    })
    if (first.kind !== 'succeeded') throw new Error(first.kind)
    const registrationId = first.response.registrationId ?? ''
    const early = await client().payWithToken(registrationId, 'REPEATED', {
      amount: '5.00',
      currency: 'EUR',
      paymentType: 'DB',
      cvv: '123',
    })
    expect(early).toMatchObject({ kind: 'rejected', reason: 'merchant', code: '10002' })
    expect(
      (
        await client().payWithToken(registrationId, 'INITIAL', {
          amount: '5.00',
          currency: 'EUR',
          paymentType: 'DB',
          cvv: '123',
          ip: '203.0.113.7',
        })
      ).kind,
    ).toBe('succeeded')
    expect(
      (
        await client().payWithToken(registrationId, 'REPEATED', {
          amount: '5.00',
          currency: 'EUR',
          paymentType: 'DB',
          cvv: '123',
        })
      ).kind,
    ).toBe('succeeded')
  })

  it('a repeat of a one-off payment is not permitted; of an unknown payment, not found', async () => {
    const one = await client().payment({
      ...base,
      merchantTransactionId: uniqueId('one'),
      ...cardFields('4111111111111111'),
    })
    if (one.kind !== 'succeeded') throw new Error(one.kind)
    expect(
      await client().repeat(one.response.paymentId ?? '', { amount: '1.00', currency: 'EUR', paymentType: 'DB' }),
    ).toMatchObject({ kind: 'rejected', reason: 'merchant', code: '10002' })
    expect(await client().repeat('999999999999', { amount: '1.00', currency: 'EUR', paymentType: 'DB' })).toMatchObject(
      { kind: 'not_found', code: '10026' },
    )
  })
})

describe('status inquiry', () => {
  it('finds a payment by id and by merchantTransactionId, and says not found for others', async () => {
    const mtid = uniqueId('inq')
    const paid = await client().payment({ ...base, merchantTransactionId: mtid, ...cardFields('4000000000000002') })
    if (paid.kind !== 'declined') throw new Error(paid.kind)
    expect(await client().inquiry(paid.response.paymentId ?? '', 'PID')).toMatchObject({
      kind: 'declined',
      response: { merchantTransactionId: mtid },
    })
    expect((await client().inquiry(mtid, 'MID')).kind).toBe('declined')
    expect(await client().inquiry(uniqueId('none'), 'MID')).toMatchObject({ kind: 'not_found', code: '10026' })
  })
})

describe('QR wallet', () => {
  const verify = (walletId: string, mtid: string) =>
    client().qrVerify({
      merchantTransactionId: mtid,
      paymentType: 'DB',
      qrGivenName: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.com',
      walletId,
      walletAmount: '25.00',
      walletCurrency: 'EUR',
    })

  it('wallet-ok: verify answers paymentId + merchantWalletId, complete succeeds', async () => {
    const v = await verify('wallet-ok', uniqueId('qr'))
    expect(v).toMatchObject({ kind: 'succeeded', code: '00008' })
    if (v.kind !== 'succeeded') return
    expect(v.response.merchantWalletId).toMatch(/^MW\d+$/)
    const done = await client().qrComplete({
      qrPaymentId: v.response.paymentId ?? '',
      amount: '25.00',
      currency: 'EUR',
      paymentType: 'PA',
    })
    expect(done).toMatchObject({ kind: 'succeeded', response: { paymentId: v.response.paymentId } })
  })

  it('wallet-declined: complete is declined', async () => {
    const v = await verify('wallet-declined', uniqueId('qrd'))
    if (v.kind !== 'succeeded') throw new Error(v.kind)
    expect(
      await client().qrComplete({
        qrPaymentId: v.response.paymentId ?? '',
        amount: '25.00',
        currency: 'EUR',
        paymentType: 'PA',
      }),
    ).toMatchObject({ kind: 'declined', code: '10001' })
  })

  it('complete needs the paymentId of a verify step, with the same amount', async () => {
    expect(
      (await client().qrComplete({ qrPaymentId: '123456', amount: '25.00', currency: 'EUR', paymentType: 'PA' })).kind,
    ).toBe('not_found')
    const v = await verify('wallet-ok', uniqueId('qrm'))
    if (v.kind !== 'succeeded') throw new Error(v.kind)
    expect(
      await client().qrComplete({
        qrPaymentId: v.response.paymentId ?? '',
        amount: '24.00',
        currency: 'EUR',
        paymentType: 'PA',
      }),
    ).toMatchObject({ kind: 'rejected', code: '30006' })
  })

  it('uses the partner QR token: a wrong one is refused', async () => {
    expect(
      await client({ qrAuthToken: 'wrong' }).qrVerify({
        merchantTransactionId: uniqueId('qrt'),
        paymentType: 'DB',
        qrGivenName: 'A',
        surname: 'B',
        email: 'a@b.co',
        walletId: 'wallet-ok',
        walletAmount: '1.00',
        walletCurrency: 'EUR',
      }),
    ).toMatchObject({
      kind: 'rejected',
      reason: 'auth',
      code: '20001',
    })
  })
})

describe('invoices', () => {
  it('regenerates an existing invoice; its transactionUrl is a payment page the sandbox serves', async () => {
    const created = await client().generateInvoice({
      merchantInvoiceId: uniqueId('inv'),
      amount: '250.00',
      currency: 'EUR',
      invoiceExpirationPeriod: '0',
      customerEmail: 'ada@example.com',
    })
    expect(created.kind).toBe('succeeded')
    if (created.kind !== 'succeeded') return
    const expired = await fetch(created.response.transactionUrl ?? '')
    expect(await expired.text()).toContain('expired')
    const next = await client().regenerateInvoice({
      invoiceId: created.response.systemInvoiceId ?? '',
      merchantInvoiceId: uniqueId('inv2'),
      invoiceExpirationPeriod: '24',
      merchantRedirectUrl: 'https://shop.example/invoice/return?x=1&y=2',
    })
    expect(next).toMatchObject({
      kind: 'succeeded',
      code: '00013',
      response: { amount: '250.00', currency: 'EUR', invoiceExpirationPeriod: '24' },
    })
    if (next.kind !== 'succeeded') return
    expect(next.response.createdTime).toMatch(/^ \d{2}:\d{2}:\d{2}\.$/)
    const page = await fetch(next.response.transactionUrl ?? '')
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Pay 250.00 EUR')
  })

  it('refuses to regenerate an invoice that does not exist', async () => {
    expect(
      await client().regenerateInvoice({
        invoiceId: 'INV000',
        merchantInvoiceId: uniqueId('x'),
        invoiceExpirationPeriod: '1',
        merchantRedirectUrl: 'https://shop.example/r',
      }),
    ).toMatchObject({
      kind: 'not_found',
    })
  })
})

describe('authentication', () => {
  it('generates an AuthToken once, caches it, and refreshes it before its one-hour expiry', async () => {
    let calls = 0
    const counting: typeof fetch = (input, init) => {
      calls++
      return fetch(input, init)
    }
    const source = {
      baseUrl: env.GATEWAY_BASE_URL,
      partnerId: SANDBOX.partnerId,
      merchantUsername: `${SANDBOX.username}`,
      secureKey: SANDBOX.secureKey,
      timeoutMs: 2000,
      fetch: counting,
    }
    // A distinct base URL spelling keeps this test's cache entry its own.
    const own = { ...source, baseUrl: `${env.GATEWAY_BASE_URL}/` }
    const got = await getAuthToken(own, 'transaction')
    if (!got.ok) throw new Error(`no token: ${got.reason}`)
    const exp = jwtExpiry(got.token) ?? 0
    expect(exp - Date.now()).toBeGreaterThan(59 * 60_000)
    await getAuthToken(own, 'transaction')
    expect(calls).toBe(1)
    await getAuthToken(own, 'transaction', exp - 4 * 60_000)
    expect(calls).toBe(2)
  })

  it('works with a configured fixed token too', async () => {
    const outcome = await client({
      authToken: SANDBOX.authToken,
      partnerId: undefined,
      merchantUsername: undefined,
    }).payment({ ...base, merchantTransactionId: uniqueId('fixed'), ...cardFields('4111111111111111') })
    expect(outcome.kind).toBe('succeeded')
  })

  it('a charge answered with a token refusal (20001) is unknown and never sent again; the inquiry finds no charge', async () => {
    const mtid = uniqueId('tok')
    let sent = 0
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/payments')) sent++
      return fetch(input, init)
    }
    const outcome = await client({ authToken: 'not-the-token', fetch: counting }).payment({
      ...base,
      merchantTransactionId: mtid,
      ...cardFields('4111111111111111'),
    })
    expect(outcome).toMatchObject({ kind: 'unknown', reason: 'token_refused' })
    expect(sent).toBe(1)
    expect(await client().inquiry(mtid, 'MID')).toMatchObject({ kind: 'not_found' })
    expect(await chargesFor(mtid)).toBe(0)
  })

  it("a call that moves no money is refused with the gateway's code when the token is wrong", async () => {
    expect(await client({ authToken: 'not-the-token' }).inquiry(uniqueId('tok'), 'MID')).toMatchObject({
      kind: 'rejected',
      reason: 'auth',
      code: '20001',
    })
  })

  it('an unreachable token service is "unsent: unreachable", refused credentials "unsent: token_refused"', async () => {
    const down = client({ authToken: undefined, baseUrl: 'http://127.0.0.1:9' })
    expect(
      await down.payment({ ...base, merchantTransactionId: uniqueId('down'), ...cardFields('4111111111111111') }),
    ).toEqual({ kind: 'unsent', reason: 'unreachable' })
    const refused = client({ authToken: undefined, partnerId: 'not-the-partner' })
    expect(
      await refused.payment({ ...base, merchantTransactionId: uniqueId('ref'), ...cardFields('4111111111111111') }),
    ).toEqual({ kind: 'unsent', reason: 'token_refused' })
  })

  it('a wrong secure key makes a wrong checksum, refused with 20002', async () => {
    const outcome = await client({ authToken: SANDBOX.authToken, secureKey: 'not-the-key' }).payment({
      ...base,
      merchantTransactionId: uniqueId('sum'),
      ...cardFields('4111111111111111'),
    })
    expect(outcome).toMatchObject({ kind: 'rejected', reason: 'checksum', code: '20002' })
  })

  it('the sandbox refuses a missing token, a tampered amount and parameters in the query string', async () => {
    const mtid = uniqueId('raw')
    const sum = await checksum('payment', {
      memberId: SANDBOX.memberId,
      secureKey: SANDBOX.secureKey,
      merchantTransactionId: mtid,
      amount: '100.00',
    })
    const fields = wirePayment({
      'authentication.checksum': sum.ok ? sum.value : '',
      merchantTransactionId: mtid,
      amount: '0.01',
    })
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${env.GATEWAY_BASE_URL}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: encodeForm(fields),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { result: { code: string } } }))
    const path = '/transactionServices/REST/v1/payments'
    expect(await post(path, {})).toMatchObject({ status: 200, body: { result: { code: '20001' } } })
    expect(await post(path, { AuthToken: SANDBOX.authToken })).toMatchObject({
      status: 200,
      body: { result: { code: '20002' } },
    })
    expect(await post(`${path}?amount=100.00`, { AuthToken: SANDBOX.authToken })).toMatchObject({
      body: { result: { code: '30004' } },
    })
    expect(await chargesFor(mtid)).toBe(0)
  })

  it('joins several validation errors in one result, "c1 | c2", naming fields but not values', async () => {
    const res = await fetch(`${env.GATEWAY_BASE_URL}/transactionServices/REST/v1/payments`, {
      method: 'POST',
      headers: { AuthToken: SANDBOX.authToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encodeForm({ 'card.number': '4111111111111111', amount: '1' }),
    })
    const body = (await res.json()) as { result: { code: string; description: string } }
    expect(body.result.code).toMatch(/^3\d{4}( \| 3\d{4})+$/)
    expect(body.result.description).toContain('amount')
    expect(body.result.description).not.toContain('4111111111111111')
  })
})

describe('injected faults (after the gateway recorded the charge)', () => {
  it.each(['timeout', 'http500', 'unparseable'] as const)(
    '%s on a repeat: unknown, then the inquiry finds exactly one charge',
    async (fault) => {
      const first = await client().payment({
        ...base,
        merchantTransactionId: uniqueId('fi'),
        recurringType: 'INITIAL',
        ...cardFields('4111111111111111'),
      })
      if (first.kind !== 'succeeded') throw new Error(first.kind)
      const mtid = uniqueId(`rep-${fault}`)
      await injectFault({ op: 'repeat', fault, field: 'merchantTransactionId', value: mtid })
      const outcome = await client({ timeoutMs: 800 }).repeat(first.response.paymentId ?? '', {
        amount: '3.00',
        currency: 'EUR',
        paymentType: 'DB',
        merchantTransactionId: mtid,
      })
      expect(outcome.kind).toBe('unknown')
      expect((await client().inquiry(mtid, 'MID')).kind).toBe('succeeded')
      expect(await chargesFor(mtid)).toBe(1)
    },
  )
})
