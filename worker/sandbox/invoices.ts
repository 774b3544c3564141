/**
 * @module
 * The sandbox's invoices: generation (the real gateway makes them in its dashboard; the sandbox
 * also over HTTP, and as a test control), regeneration, and the hosted page that pays one.
 */
import { Hono } from 'hono'
import { GATEWAY_BRANDS, detectBrand, last4 } from '../../shared/card.ts'
import { OPERATION_PATHS } from '../../shared/fields.ts'
import { decodeForm } from '../../shared/gateway/form.ts'
import { validateRequest } from '../../shared/validate.ts'
import { behaviourOf } from './cards.ts'
import type { InvoiceRow } from './ledger.ts'
import { invoicePage } from './pages.ts'
import {
  CODES,
  admit,
  answer,
  gatewayTimestamp,
  ledger,
  newPayment,
  rand,
  returnToMerchant,
  scheduleNotification,
  memberOf,
  memberQuery,
  type Ctx,
  type SandboxEnv,
  type SandboxVars,
} from './protocol.ts'

export const invoices = new Hono<{ Bindings: SandboxEnv; Variables: SandboxVars }>()

function invoiceBody(c: Ctx, inv: InvoiceRow, ok: readonly [string, string]): Record<string, unknown> {
  const created = new Date(inv.createdMs)
  return {
    memberId: memberOf(c).memberId,
    statusInvoiceResult: { code: ok[0], description: ok[1] },
    invoiceDetails: {
      amount: inv.amount,
      currency: inv.currency,
      invoiceExpirationPeriod: String(inv.period),
      createdDate: created.toISOString().slice(0, 10),
      // Faithful to the sample: a leading space and a trailing dot.
      createdTime: ` ${created.toISOString().slice(11, 19)}.`,
      merchantInvoiceId: inv.merchantInvoiceId,
      customerEmail: inv.email,
      merchantOrderDescription: inv.description,
      systemInvoiceId: inv.id,
      transactionUrl: `${new URL(c.req.url).origin}/invoice/pay/${inv.id}${memberQuery(c)}`,
    },
  }
}

const invoiceRefusal = (code: readonly [string, string]) => ({
  memberId: '',
  statusInvoiceResult: { code: code[0], description: code[1] },
})

// Invoice generation (sandbox only: the real gateway creates invoices in its dashboard).
invoices.post(OPERATION_PATHS.invoiceGenerate, async (c) => {
  const f = await admit(c, 'invoiceGenerate', 'invoiceGenerate', (f) => ({
    merchantInvoiceId: f.merchantInvoiceId,
    amount: f.amount,
  }))
  if (f instanceof Response) return invoiceShape(f)
  const inv = newInvoice(f)
  if (!(await ledger(c).addInvoice(inv))) return c.json(invoiceRefusal(CODES.duplicate))
  return c.json(invoiceBody(c, inv, CODES.invoiceCreated))
})

/** An invoice as the generation request (or the test control below) describes it. */
function newInvoice(f: Readonly<Record<string, string | undefined>>): InvoiceRow {
  return {
    id: `INV${rand(9)}`,
    merchantInvoiceId: f.merchantInvoiceId ?? '',
    amount: f.amount ?? '',
    currency: f.currency ?? '',
    period: Number(f.invoiceExpirationPeriod ?? '0'),
    createdMs: Date.now(),
    email: f.customerEmail ?? '',
    description: f.merchantOrderDescription ?? '',
    redirectUrl: f.merchantRedirectUrl ?? '',
    notificationUrl: f.notificationUrl ?? '',
    paymentId: '',
    sourceId: '',
  }
}

invoices.post(OPERATION_PATHS.invoiceRegenerate, async (c) => {
  const f = await admit(c, 'invoiceRegenerate', 'invoice', (f) => ({
    invoiceId: f.invoiceId,
    merchantRedirectUrl: f.merchantRedirectUrl,
  }))
  if (f instanceof Response) return invoiceShape(f)
  const from = await ledger(c).invoice(f.invoiceId ?? '')
  if (!from) return answer(c, 'invoiceRegenerate', f, invoiceRefusal(CODES.notFound))
  // Asking again for the same new reference from the same invoice answers that invoice: the
  // sandbox's assumption of how a client recovers a regeneration whose answer was lost.
  const earlier = await ledger(c).invoiceByMerchantId(f.merchantInvoiceId ?? '')
  if (earlier && earlier.sourceId === from.id)
    return answer(c, 'invoiceRegenerate', f, invoiceBody(c, earlier, CODES.invoiceOk))
  const inv: InvoiceRow = {
    ...from,
    id: `INV${rand(9)}`,
    merchantInvoiceId: f.merchantInvoiceId ?? '',
    period: Number(f.invoiceExpirationPeriod ?? '0'),
    createdMs: Date.now(),
    redirectUrl: f.merchantRedirectUrl ?? '',
    notificationUrl: f.notificationUrl ?? from.notificationUrl,
    paymentId: '',
    sourceId: from.id,
  }
  if (!(await ledger(c).addInvoice(inv))) return c.json(invoiceRefusal(CODES.duplicate))
  return answer(c, 'invoiceRegenerate', f, invoiceBody(c, inv, CODES.invoiceOk))
})

/** Invoice endpoints answer refusals in `statusInvoiceResult`, not `result`. */
async function invoiceShape(res: Response): Promise<Response> {
  const body: unknown = await res.json()
  const r = (body as { result?: unknown }).result
  return Response.json({ memberId: '', statusInvoiceResult: r, timestamp: gatewayTimestamp() })
}

// The hosted invoice payment page (the invoice's transactionUrl).
invoices.get('/invoice/pay/:id', async (c) => {
  const inv = await ledger(c).invoice(c.req.param('id'))
  if (!inv) return c.html('<p>No such invoice.</p>', 404)
  return c.html(invoicePage(inv, invoiceExpired(inv), ''))
})

const invoiceExpired = (inv: InvoiceRow): boolean => Date.now() >= inv.createdMs + inv.period * 3_600_000

invoices.post('/invoice/pay/:id', async (c) => {
  const inv = await ledger(c).invoice(c.req.param('id'))
  if (!inv) return c.html('<p>No such invoice.</p>', 404)
  if (inv.paymentId || invoiceExpired(inv)) return c.html(invoicePage(inv, invoiceExpired(inv), ''), 409)
  const form = decodeForm(await c.req.text())
  const now = new Date()
  const valid = validateRequest(
    'payment',
    {
      'card.number': form.number ?? '',
      'card.expiryMonth': form.month ?? '',
      'card.expiryYear': form.year ?? '',
      'card.cvv': form.cvv ?? '',
    },
    { rejectUnknown: false, now },
  )
  const cardErrors = valid.ok ? [] : valid.error.filter((e) => e.field.startsWith('card.'))
  if (cardErrors.length > 0)
    return c.html(invoicePage(inv, false, `Please check: ${cardErrors.map((e) => e.field).join(', ')}`), 400)
  const number = valid.ok ? (valid.value['card.number'] ?? '') : (form.number ?? '').replace(/[\s-]/g, '')
  const declined = behaviourOf(number) === 'decline'
  const [code, description] = declined ? CODES.declined : CODES.succeeded
  const brand = detectBrand(number)
  const p = newPayment(
    'invoice',
    { merchantTransactionId: inv.merchantInvoiceId, amount: inv.amount, currency: inv.currency },
    {
      status: declined ? 'N' : 'Y',
      code,
      description,
      brand: brand ? GATEWAY_BRANDS[brand] : '',
      bin: number.slice(0, 6),
      last4: last4(number),
      holder: form.holder ?? '',
      email: inv.email,
      notificationUrl: inv.notificationUrl,
      redirectUrl: inv.redirectUrl,
      redirectMethod: 'GET',
    },
  )
  await ledger(c).begin(p, false)
  if (!declined) await ledger(c).payInvoice(inv.id, p.id)
  await scheduleNotification(c, p, 0)
  return returnToMerchant(c, p)
})

// An invoice issued the way a merchant's staff would in the gateway's dashboard (the demo shop's
// expired invoice to regenerate): its fields as JSON, no credentials, as every test control here.
invoices.post('/sandbox/invoices', async (c) => {
  const body: unknown = await c.req.json().catch(() => undefined)
  const fields =
    body && typeof body === 'object'
      ? Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : {}
  if (!fields.merchantInvoiceId || !fields.amount || !fields.currency)
    return c.json(
      { error: 'expected { merchantInvoiceId, amount, currency, invoiceExpirationPeriod?, customerEmail? }' },
      400,
    )
  const inv = newInvoice(fields)
  if (!(await ledger(c).addInvoice(inv))) return c.json({ error: 'an invoice with this merchantInvoiceId exists' }, 409)
  return c.json({ systemInvoiceId: inv.id }, 201)
})
