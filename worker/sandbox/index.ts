/**
 * @module
 * The sandbox gateway: a faithful stand-in for the real one, strict enough that passing against
 * it means passing against the real gateway. Same paths, form bodies, AuthToken header, checksums,
 * HTTP 200 for business failures, result codes, ids, notifications, 3-D Secure and hosted invoice
 * pages, plus test cards and fault injection.
 *
 * Run alone with `npm run sandbox` (127.0.0.1:8788). See README "Sandbox gateway".
 */
import { Hono } from 'hono'
import { GATEWAY_BRANDS, detectBrand, last4 } from '../../shared/card.ts'
import { OPERATION_PATHS } from '../../shared/fields.ts'
import { validateRequest } from '../../shared/validate.ts'
import { timingSafeEqual } from 'hono/utils/buffer'
import { decodeForm } from '../../shared/gateway/form.ts'
import { behaviourOf, WALLETS } from './cards.ts'
import { signToken } from './jwt.ts'
import type { BackOfficeKind, FaultRule, PaymentRow } from './ledger.ts'
import { FAULTS, registrationOf } from './rows.ts'
import { invoices } from './invoices.ts'
import { acsPage } from './pages.ts'
import {
  CODES,
  admit,
  answer,
  gatewayTimestamp,
  ledger,
  newPayment,
  num,
  paymentBody,
  rand,
  readBody,
  result,
  returnToMerchant,
  scheduleNotification,
  validationResult,
  memberQuery,
  type Ctx,
  type SandboxEnv,
  type SandboxVars,
} from './protocol.ts'
import { memberById, memberByUsername } from './members.ts'

export { SandboxLedger } from './ledger.ts'
export type { SandboxEnv } from './protocol.ts'

export const sandbox = new Hono<{ Bindings: SandboxEnv; Variables: SandboxVars }>()

// The pages the sandbox links to (the ACS, the invoice page) and its test controls name a member
// other than the main one with `?member=`; the API's requests name theirs in their fields (admit).
sandbox.use('*', async (c, next) => {
  const named = c.req.query('member')
  const path = c.req.path
  if (named !== undefined && !path.startsWith('/transactionServices/') && !path.startsWith('/invoiceServices/')) {
    const member = memberById(c.env, named)
    if (!member) return c.json({ error: 'no such member' }, 404)
    c.set('member', member)
  }
  await next()
})

sandbox.get('/healthz', (c) => c.json({ ok: true, service: 'sandbox-gateway' }))

// AuthToken generation (facts sheet): same fields on both services.
for (const path of [OPERATION_PATHS.authToken, '/invoiceServices/REST/v1/authToken']) {
  sandbox.post(path, async (c) => {
    const body = await readBody(c)
    if (body instanceof Response) return body
    const valid = validateRequest('authToken', body)
    const f = valid.ok ? valid.value : {}
    // The partner's member named by its username, holding that member's secure key.
    const member = memberByUsername(c.env, f['merchant.username'])
    const good =
      valid.ok &&
      member !== undefined &&
      f['authentication.partnerId'] === c.env.SANDBOX_PARTNER_ID &&
      (await timingSafeEqual(f['authentication.sKey'] ?? '', member.secureKey))
    if (!good || !member)
      return c.json({ result: { code: '401', description: 'Token generation failed' }, timestamp: gatewayTimestamp() })
    c.set('member', member)
    await ledger(c).tokenIssued(path.startsWith('/invoice') ? 'invoice' : 'transaction')
    const token = await signToken(
      member.secureKey,
      { partnerId: c.env.SANDBOX_PARTNER_ID, memberId: member.memberId, sub: member.username },
      num(c.env.SANDBOX_TOKEN_TTL_S, 3600),
    )
    return c.json({
      partnerId: c.env.SANDBOX_PARTNER_ID,
      memberId: member.memberId,
      result: { code: '200', description: 'Token generated successfully' },
      timestamp: gatewayTimestamp(),
      LoginName: member.username,
      AuthToken: token,
    })
  })
}

// Initial card payment.
sandbox.post(OPERATION_PATHS.payment, async (c) => {
  const f = await admit(c, 'payment', 'payment', (f) => ({
    merchantTransactionId: f.merchantTransactionId,
    amount: f.amount,
  }))
  if (f instanceof Response) return f
  const number = f['card.number'] ?? ''
  const brand = detectBrand(number)
  if (!brand || GATEWAY_BRANDS[brand] !== f.paymentBrand)
    return c.json(validationResult([{ field: 'paymentBrand', code: 'invalid_value' }]))
  const behaviour = behaviourOf(number)
  const status = behaviour === 'decline' ? 'N' : behaviour === 'three_ds' ? '3D' : behaviour === 'pending' ? 'P' : 'Y'
  const [code, description] =
    behaviour === 'decline'
      ? CODES.declined
      : behaviour === 'three_ds'
        ? CODES.threeDs
        : behaviour === 'pending'
          ? CODES.pending
          : CODES.succeeded
  const wantsRegistration = f.createRegistration === 'true'
  const p = newPayment('card', f, {
    status,
    code,
    description,
    bin: number.slice(0, 6),
    last4: last4(number),
    expiryMonth: f['card.expiryMonth'] ?? '',
    expiryYear: f['card.expiryYear'] ?? '',
    behaviour,
    createRegistration: wantsRegistration ? 1 : 0,
    // Ten digits at most: a longer run of digits could pass for a card number in a log scan.
    registrationId: wantsRegistration && status !== 'N' ? `R${rand(10)}` : '',
  })
  const begun = await ledger(c).begin(p, true)
  if (!begun.ok) return c.json(result(CODES.duplicate))
  if (p.registrationId && status === 'Y') await addRegistration(c, p)
  if (status === 'P') {
    // Settled a few seconds later, and told by notification only.
    const settled = { ...p, status: 'Y', code: CODES.succeeded[0], description: CODES.succeeded[1] }
    await scheduleNotification(c, settled, num(c.env.SANDBOX_PENDING_DELAY_MS, 3000), true)
    return answer(c, 'payment', f, paymentBody(p, true))
  }
  if (status === '3D') {
    const origin = new URL(c.req.url).origin
    const redirect = {
      url: `${origin}/acs/${p.id}${memberQuery(c)}`,
      method: 'POST',
      parameters: [
        { name: 'PaReq', value: `sandbox-${p.id}` },
        { name: 'MD', value: p.id },
      ],
    }
    return answer(c, 'payment', f, paymentBody(p, true, { redirect }))
  }
  if (status === 'Y') await scheduleNotification(c, p, 0)
  return answer(
    c,
    'payment',
    f,
    paymentBody(p, true),
    behaviour === 'http500' || behaviour === 'slow' ? behaviour : undefined,
  )
})

async function addRegistration(c: Ctx, p: PaymentRow): Promise<void> {
  await ledger(c).addRegistration(registrationOf(p))
}

// Pay with a registration: initial (customer registered without paying) or repeat.
sandbox.post('/transactionServices/REST/v1/paywithtoken/:id', async (c) => {
  const id = c.req.param('id')
  const peek = c.req.raw.clone()
  const peeked = decodeForm(await peek.text())
  if (peeked.paymentType === 'DL') {
    // Deleting the stored card (facts sheet): later payments with it find no record.
    const f = await admit(c, 'deleteRegistration', 'deregistration', () => ({ registrationId: id }))
    if (f instanceof Response) return f
    const deleted = await ledger(c).deleteRegistration(id)
    return answer(
      c,
      'deleteRegistration',
      { ...f, id },
      deleted ? result(CODES.cancelled, { registrationId: id, paymentType: 'DL' }) : result(CODES.notFound),
    )
  }
  const recurring = peeked.recurringType === 'INITIAL' ? 'tokenInitial' : 'tokenRepeat'
  const f = await admit(c, recurring, 'registration', (f) => ({ registrationId: id, amount: f.amount }))
  if (f instanceof Response) return f
  const reg = await ledger(c).registration(id)
  if (!reg) return c.json(result(CODES.notFound))
  // The series' ordering rule: an initial payment precedes repeated ones.
  if (recurring === 'tokenRepeat' && !reg.initialDone)
    return c.json(result(CODES.notPermitted, { paymentType: f.paymentType }))
  const p = newPayment('token', f, {
    brand: reg.brand,
    bin: reg.bin,
    last4: reg.last4,
    expiryMonth: reg.expiryMonth,
    expiryYear: reg.expiryYear,
    holder: reg.holder,
    registrationId: id,
    behaviour: reg.behaviour,
  })
  if (recurring === 'tokenInitial') await ledger(c).markInitialDone(id)
  await ledger(c).begin(p, false)
  await scheduleNotification(c, p, 0)
  return answer(c, recurring, { ...f, id }, paymentBody(p, false))
})

// Repeat by payment id, or status inquiry (paymentType=IN), on the same path.
sandbox.post('/transactionServices/REST/v1/payments/:id', async (c) => {
  const id = c.req.param('id')
  const peek = decodeForm(await c.req.raw.clone().text())
  if (peek.paymentType === 'IN') {
    const f = await admit(c, 'inquiry', 'inquiry', () => ({ id }))
    if (f instanceof Response) return f
    let p = f.idType === 'MID' ? await ledger(c).paymentByMtid(id) : await ledger(c).payment(id)
    if (!p || p.status === 'V') return answer(c, 'inquiry', { ...f, id }, result(CODES.notFound))
    // A bank page nobody finished: the authentication window closes and the payment fails, as
    // real access control servers do; the shopper's card is not charged.
    if (p.status === '3D' && Date.now() - Date.parse(p.created) > num(c.env.SANDBOX_3DS_TTL_MS, 15 * 60_000)) {
      p = (await ledger(c).settle(p.id, 'N', ...CODES.abandoned3ds)) ?? p
      await scheduleNotification(c, p, 0)
    }
    return answer(c, 'inquiry', { ...f, id }, paymentBody(p, true))
  }
  const backOffice = BACK_OFFICE[peek.paymentType ?? '']
  if (backOffice) return backOfficeCall(c, id, backOffice)
  const f = await admit(c, 'repeat', 'paymentId', (f) => ({ paymentId: id, amount: f.amount }))
  if (f instanceof Response) return f
  const parent = await ledger(c).payment(id)
  if (!parent) return c.json(result(CODES.notFound))
  // Only a succeeded payment of a recurring series (its initial, or a repeat of it) may be repeated.
  if (parent.status !== 'Y' || (parent.recurring !== 'INITIAL' && parent.recurring !== 'REPEATED')) {
    return c.json(result(CODES.notPermitted, { paymentType: f.paymentType }))
  }
  const p = newPayment('repeat', f, {
    brand: parent.brand,
    bin: parent.bin,
    last4: parent.last4,
    expiryMonth: parent.expiryMonth,
    expiryYear: parent.expiryYear,
    holder: parent.holder,
    parentId: id,
    behaviour: 'succeed',
  })
  await ledger(c).begin(p, false)
  await scheduleNotification(c, p, 0)
  return answer(c, 'repeat', { ...f, id }, paymentBody(p, false))
})

/** Captures, refunds and reversals: the paymentType value, the operation and what success answers. */
const BACK_OFFICE: Record<
  string,
  { op: 'capture' | 'refund' | 'reversal'; kind: BackOfficeKind; ok: readonly [string, string] }
> = {
  CP: { op: 'capture', kind: 'capture', ok: CODES.captured },
  RF: { op: 'refund', kind: 'refund', ok: CODES.refunded },
  RV: { op: 'reversal', kind: 'reversal', ok: CODES.cancelled },
}

/**
 * A capture, refund or reversal of payment `id`. The ledger checks the parent's state and the
 * amounts and records the operation in one step; it is then found by an inquiry by its own
 * paymentId or merchantTransactionId, like a payment. Faults apply per operation.
 */
async function backOfficeCall(c: Ctx, id: string, b: (typeof BACK_OFFICE)[string]): Promise<Response> {
  const f = await admit(c, b.op, b.op === 'reversal' ? 'reversal' : 'paymentId', (f) => ({
    paymentId: id,
    amount: f.amount,
  }))
  if (f instanceof Response) return f
  const parent = await ledger(c).payment(id)
  const p = newPayment(b.kind, f, {
    // A reversal releases the whole authorisation.
    amount: f.amount ?? parent?.amount ?? '',
    currency: f.currency ?? parent?.currency ?? '',
    paymentType: f.paymentType ?? '',
    code: b.ok[0],
    description: b.ok[1],
    parentId: id,
    brand: parent?.brand ?? '',
    bin: parent?.bin ?? '',
    last4: parent?.last4 ?? '',
    holder: parent?.holder ?? '',
  })
  const recorded = await ledger(c).backOffice(p)
  if (!recorded.ok) {
    const refusal =
      recorded.reason === 'not_found'
        ? result(CODES.notFound)
        : recorded.reason === 'duplicate'
          ? result(CODES.duplicate)
          : recorded.reason === 'amount' || recorded.reason === 'currency'
            ? validationResult([{ field: recorded.reason, code: 'invalid_value' }])
            : result(CODES.notPermitted, { paymentType: f.paymentType })
    return answer(c, b.op, { ...f, id }, refusal)
  }
  return answer(
    c,
    b.op,
    { ...f, id },
    {
      ...paymentBody(p, false),
      amount: p.amount,
      currency: p.currency,
      ...(p.mtid ? { merchantTransactionId: p.mtid } : {}),
    },
  )
}

// QR wallet: verify (no paymentId) then complete (with the verified paymentId).
sandbox.post(OPERATION_PATHS.qrVerify, async (c) => {
  const peek = decodeForm(await c.req.raw.clone().text())
  const op = peek.paymentId ? 'qrComplete' : 'qrVerify'
  const f = await admit(c, op, undefined, () => ({}))
  if (f instanceof Response) return f
  if (op === 'qrVerify') {
    const p = newPayment('qr', f, {
      status: 'V',
      code: CODES.qrOk[0],
      description: CODES.qrOk[1],
      amount: f['customer.walletAmount'] ?? '',
      currency: f['customer.walletCurrency'] ?? '',
      brand: 'QR',
      walletId: f['customer.walletId'] ?? '',
      merchantWalletId: `MW${rand(10)}`,
      holder: [f['customer.givenname'], f['customer.surname']].filter(Boolean).join(' '),
    })
    await ledger(c).begin(p, false)
    return answer(c, op, f, result(CODES.qrOk, { paymentId: p.id, merchantWalletId: p.merchantWalletId }))
  }
  const verified = await ledger(c).payment(f.paymentId ?? '')
  if (!verified || verified.kind !== 'qr') return c.json(result(CODES.notFound))
  if (verified.status !== 'V')
    return c.json(result(CODES.notPermitted, { paymentId: verified.id, merchantWalletId: verified.merchantWalletId }))
  if (verified.amount !== f.amount || verified.currency !== f.currency) return c.json(result(CODES.mismatch))
  const declined = verified.walletId === WALLETS.declined
  const [code, description] = declined ? CODES.declined : CODES.qrOk
  // The completion is what takes the money, as the paymentType it was sent (the spec's DYNAMIC
  // request: PA, an authorisation, captured with CP or voided with RV like a card's).
  const settled = await ledger(c).settle(verified.id, declined ? 'N' : 'Y', code, description, f.paymentType)
  if (settled && f.notificationUrl) await scheduleNotification(c, { ...settled, notificationUrl: f.notificationUrl }, 0)
  return answer(
    c,
    op,
    f,
    result([code, description], { paymentId: verified.id, merchantWalletId: verified.merchantWalletId }),
  )
})

// The sandbox ACS: the shopper's 3-D Secure challenge.
sandbox.on(['GET', 'POST'], '/acs/:id', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  if (!p || p.status !== '3D') return c.html('<p>No authentication is waiting for this payment.</p>', 404)
  return c.html(acsPage(p, memberQuery(c)))
})

sandbox.post('/acs/:id/complete', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  if (!p || p.status !== '3D') return c.html('<p>No authentication is waiting for this payment.</p>', 404)
  const form = decodeForm(await c.req.text())
  const passed = form.outcome === 'authenticated'
  const [code, description] = passed ? CODES.succeeded : CODES.declined
  const settled = await ledger(c).settle(p.id, passed ? 'Y' : 'N', code, description)
  if (!settled) return c.html('<p>Payment vanished.</p>', 500)
  if (passed && settled.registrationId) await addRegistration(c, settled)
  await scheduleNotification(c, settled, 0)
  return returnToMerchant(c, settled)
})

// Test controls (not part of the gateway): fault injection and charge counts.
sandbox.post('/sandbox/faults', async (c) => {
  const rule: unknown = await c.req.json().catch(() => undefined)
  const r = rule as Partial<FaultRule> | undefined
  if (!r || typeof r.op !== 'string' || !(FAULTS as readonly string[]).includes(r.fault ?? ''))
    return c.json({ error: `expected { op, fault: ${FAULTS.join('|')}, field?, value?, times? }` }, 400)
  await ledger(c).addFault(r as FaultRule)
  return c.json({ ok: true }, 201)
})

sandbox.route('/', invoices)

sandbox.get('/sandbox/stats', async (c) => c.json(await ledger(c).stats(c.req.query('mtid'), c.req.query('parent'))))

sandbox.get('/sandbox/payments/:id', async (c) => {
  const p = await ledger(c).payment(c.req.param('id'))
  return p ? c.json(p) : c.json({ error: 'not found' }, 404)
})

sandbox.notFound((c) => c.json(result(CODES.notFound), 404))

export default sandbox
