/**
 * @module
 * The inline checkout's QR wallet and invoice: their views and the steps their buttons ask of the
 * Worker. A chunk of its own, loaded with the method's component (never for a card), so the card
 * flow (inline, and the card frame) downloads none of it.
 */
import type { TemplateResult } from 'lit'
// Lit from the checkout's chunk, which is always loaded first (imported from 'lit' here, the
// build would move Lit into a chunk of its own that the card flow would have to load as well).
import { html, nothing } from './pay-checkout-inline.ts'
import { toldIfOnItsWay, type AttemptHost } from './attempt.ts'
import type { ApiClient, ApiError, CheckoutView, InvoiceDetails, PayResult } from '../api-client.ts'
import type { Result } from '../../shared/result.ts'
import type { CheckoutFlow } from '../../shared/checkout.ts'
import { PaySubmitEvent } from '../events.ts'
import { startingPage } from '../navigate.ts'
import { saysNothing } from './states.ts'

/** The inline checkout as these steps use it: what an attempt uses (./attempt.ts), and the checkout's answers. */
export interface Checkout extends Pick<
  AttemptHost,
  | 'messages'
  | 'resolvedLocale'
  | 'api'
  | 'state'
  | 'notice'
  | 'inFlight'
  | 'attemptKey'
  | 'startingPage'
  | 'applyView'
  | 'dispatchEvent'
> {
  refused(error: ApiError): void
  onResult(result: PayResult): void
  showView(view: CheckoutView): void
  /** The expiry of the QR code this page asked for last (its identity), until its payment is declined. */
  qrIssued: string | undefined
}

/** Each method's view in the checkout, by its name in `METHOD_VIEWS` (./method-views.ts). */
export const RENDER: Partial<Record<CheckoutFlow, (c: Checkout, view: CheckoutView) => TemplateResult>> = {
  qr: (c, view) => renderQr(c, view),
  invoice: (c, view) => renderInvoice(c, view),
}

type QrStep = CustomEvent<{ step: 'verify' | 'complete'; fields?: Record<string, unknown> }>

/** The QR wallet: the shopper's wallet details, then the code to scan and the confirmation. */
export function renderQr(c: Checkout, view: CheckoutView): TemplateResult {
  // A code withdrawn when a card payment started is never offered again, nor one whose payment the
  // wallet declined (paying it again is declined again; the session stays declined until the next
  // payment, so only a code this page asked for since is offered): a new one is asked for.
  const withdrawn = view.qr?.withdrawn === true
  const spent = withdrawn || (view.status === 'declined' && view.qr?.expiresAt !== c.qrIssued)
  return html`${withdrawn ? html`<p class="saved" part="method-note">${c.messages.qrWithdrawn}</p>` : nothing}<pay-qr-wallet
    exportparts="qr, wallet-id"
    .messages=${c.messages}
    .view=${spent ? { ...view, qr: null } : view}
    .busy=${c.state === 'submitting'}
    @qr-step=${(e: QrStep) => qrStep(c, e)}
  ></pay-qr-wallet>`
}

/** The invoice: its details, the link to pay it, and a new one once it has expired. */
export function renderInvoice(c: Checkout, view: CheckoutView): TemplateResult {
  return html`<pay-invoice-view exportparts="details, pay-link" .messages=${c.messages} .view=${view} .locale=${c.resolvedLocale} @invoice-regenerate=${() => regenerate(c)}></pay-invoice-view>`
}

const qrVerify = (
  api: ApiClient,
  fields: Record<string, unknown>,
): Promise<Result<{ status: string; merchantWalletId?: string; expiresAt?: string; message?: string }, ApiError>> =>
  api.request('POST', '/qr/verify', fields)

const qrComplete = (api: ApiClient, idempotencyKey: string): Promise<Result<PayResult, ApiError>> =>
  api.request('POST', '/qr/complete', {}, idempotencyKey)

type Regenerated = Result<{ status: string; invoice: InvoiceDetails }, ApiError>

/**
 * Asks for the invoice, naming the page that asked (the result page after the invoice's page
 * links back there). A Worker of an earlier release knows no such field: asked again without it.
 */
async function regenerateInvoice(api: ApiClient, page: string | undefined): Promise<Regenerated> {
  const r: Regenerated = await api.request('POST', '/invoice/regenerate', page ? { returnPage: page } : {})
  if (page && !r.ok && r.error.status === 400 && r.error.fields?.some((f) => f.field === 'returnPage'))
    return api.request('POST', '/invoice/regenerate', {})
  return r
}

async function qrStep(c: Checkout, e: QrStep): Promise<void> {
  const api = c.api
  if (!api || c.inFlight) return
  c.inFlight = true
  c.notice = null
  if (e.detail.step === 'verify') {
    const r = await qrVerify(api, e.detail.fields ?? {})
    c.inFlight = false
    if (!r.ok) return c.refused(r.error)
    if (r.value.status === 'declined') {
      c.notice = { key: 'walletDeclined' }
      return
    }
    c.qrIssued = r.value.expiresAt
    const view = await api.view()
    if (view.ok) c.showView(view.value)
    return
  }
  c.state = 'submitting'
  c.attemptKey ??= crypto.randomUUID()
  // The wallet's payment is sent: told as a card's pay is.
  c.dispatchEvent(new PaySubmitEvent({ flow: 'qr' }))
  const r = await qrComplete(api, c.attemptKey)
  // The element was given another session meanwhile: the answer is the old session's.
  if (c.api !== api) return
  c.inFlight = false
  if (!r.ok && (r.error.status === 0 || saysNothing(r.error))) {
    // No answer, or one that says nothing of it: it may have been paid. Its key goes with the
    // retry, and the session, read again, shows and tells what became of it.
    c.refused(r.error.status === 0 ? { ...r.error, code: 'network_error' } : r.error)
    c.notice = { key: 'unknown' }
    void api.view().then((v) => {
      if (!v.ok || c.api !== api) return
      c.notice = null
      c.applyView(v.value)
      toldIfOnItsWay(c, v.value)
    })
    return
  }
  c.attemptKey = null
  if (!r.ok) return c.refused(r.error)
  c.onResult(r.value)
  // Declined: the session says so now, and the code is no longer offered (renderQr).
  if (r.value.status === 'declined') {
    c.qrIssued = undefined
    const view = await api.view()
    if (view.ok) c.showView(view.value)
  }
}

async function regenerate(c: Checkout): Promise<void> {
  const api = c.api
  if (!api || c.inFlight) return
  c.inFlight = true
  const r = await regenerateInvoice(api, c.startingPage ?? startingPage())
  c.inFlight = false
  if (!r.ok) return c.refused(r.error)
  const view = await api.view()
  if (view.ok) c.showView(view.value)
  c.notice = { key: 'invoiceReady' }
}
