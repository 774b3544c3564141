/**
 * @module
 * `POST /v1/sessions`: what the merchant's server sends to create a checkout session. Gateway
 * fields take their formats from the field table; the session's own options (methods, origins,
 * lifetimes, metadata) are described here. Rules across fields (what each method needs and what
 * only it may carry, minor units, `flow` agreeing with `methods`) run on the fields that passed,
 * so every problem is still reported at once.
 */
import * as v from 'valibot'
import { CARD_BRANDS } from '../../shared/card.ts'
import { FORMAT_EXPECTED, checkFormat } from '../../shared/formats.ts'
import { DEFAULT_AMOUNT_BOUNDS, fitsMinorUnits, type AmountBounds } from '../../shared/money.ts'
import { crossFieldErrors } from '../../shared/validate.ts'
import { containsCardNumber } from '../../shared/card.ts'
import { METADATA_KEY, METADATA_LIMITS } from '../sessions/metadata.ts'
import { FLOWS, type RequestedFlow as Flow } from '../sessions/types.ts'
import { described, failed, field, formatText, integer, invoicePeriod, oneOf, report } from './build.ts'

/**
 * A host name as the URL parser writes it (lower case, an international name in punycode), or an
 * IPv6 literal: no `*`, which the parser keeps (`https://*` is its own origin) and which the
 * frame's CSP `frame-ancestors` would read as any site.
 */
const HOST = /^(?:(?:[a-z0-9-]+\.)*[a-z0-9-]+|\[[0-9a-f:.]+\])$/

/** An exact origin: scheme, host and port, https (or http on a developer's own machine). */
export function isOrigin(o: string): boolean {
  try {
    const url = new URL(o)
    return url.origin === o && HOST.test(url.hostname) && checkFormat('url', o) === null
  } catch {
    return false
  }
}

const MAX_ORIGINS = 10

/** At most `max` exact origins (a session's, or a merchant profile's). */
export const originList = (max: number) =>
  described(
    v.pipe(
      v.array(v.string('format'), 'format'),
      v.maxLength(max, 'format'),
      v.check((os) => os.every(isOrigin), 'format'),
    ),
    `at most ${max} exact origins (https://shop.example, no path)`,
    { maxItems: max },
  )

/** Your own pairs; never card data (a value holding a card number is refused). */
export const metadataSchema = described(
  v.pipe(
    v.record(
      v.pipe(
        v.string(),
        v.maxLength(METADATA_LIMITS.keyLength, 'length'),
        v.regex(METADATA_KEY, 'format'),
        v.check((k) => !containsCardNumber(k), 'not_allowed'),
      ),
      v.pipe(
        v.string('format'),
        v.maxLength(METADATA_LIMITS.valueLength, 'length'),
        v.check((s) => !containsCardNumber(s), 'not_allowed'),
      ),
      'format',
    ),
    v.maxEntries(METADATA_LIMITS.keys, 'out_of_range'),
  ),
  `at most ${METADATA_LIMITS.keys} pairs, keys ${METADATA_KEY.source}, text values of at most ${METADATA_LIMITS.valueLength} characters, no card numbers`,
  { ref: 'Metadata' },
)

/** What each method needs, and the fields only one method may carry. */
const NEEDS: Readonly<Record<Flow, readonly string[]>> = {
  card: [],
  'saved-card': ['registrationId'],
  qr: [],
  invoice: ['invoiceId', 'merchantInvoiceId', 'invoiceExpirationPeriod'],
  setup: [],
}
/**
 * A setup registers a card and charges nothing: the Worker authorises the currency's smallest
 * amount and voids it (sessions/setup.ts), so the amount and the payment type are not the
 * merchant's, and it is offered alone.
 */
const NOT_WITH_SETUP = ['amount', 'paymentType'] as const
const ONLY_FOR: Readonly<Record<string, Flow>> = {
  createRegistration: 'card',
  recurring: 'card',
  registrationId: 'saved-card',
  recurringType: 'saved-card',
  savedCard: 'saved-card',
  invoiceId: 'invoice',
  merchantInvoiceId: 'invoice',
  invoiceExpirationPeriod: 'invoice',
}

type Body = Record<string, unknown> & {
  flow?: Flow
  methods?: Flow[]
  customer?: Record<string, unknown>
  savedCard?: Record<string, unknown>
}

/** The methods a body offers (`flow` first), or undefined when `flow`/`methods` are refused. */
export function methodsOf(b: { flow?: Flow; methods?: readonly Flow[] }): Flow[] | undefined {
  if (!b.methods) return b.flow ? [b.flow] : undefined
  if (!b.flow) return [...b.methods]
  return b.methods.includes(b.flow) ? [b.flow, ...b.methods.filter((m) => m !== b.flow)] : undefined
}

export const sessionBody = (bounds: AmountBounds = DEFAULT_AMOUNT_BOUNDS) =>
  v.pipe(
    v.strictObject({
      flow: v.optional(
        oneOf(FLOWS, 'The one payment method; with methods, the one shown first (it must be one of them)'),
      ),
      methods: v.optional(
        described(
          v.pipe(
            v.array(v.picklist(FLOWS, 'invalid_value'), 'format'),
            v.minLength(1, 'required'),
            v.maxLength(FLOWS.length, 'format'),
            v.check((ms) => new Set(ms).size === ms.length, 'invalid_value'),
          ),
          `distinct methods among: ${FLOWS.join(', ')}`,
          {
            description:
              'Several payment methods, the first shown first. Each needs its own fields. flow or methods is required.',
            uniqueItems: true,
          },
        ),
      ),
      amount: v.optional(
        field('amount', {
          amountBounds: bounds,
          description:
            'Decimal text with two decimals, not finer than the currency minor unit (JPY: "1000.00"; "1000.50" is refused as minor_units). Required, except with the setup method (which takes none)',
        }),
      ),
      currency: field('currency'),
      merchantTransactionId: field('merchantTransactionId', {
        description: 'Unique per deployment: a second session with it is 409 duplicate_order',
      }),
      paymentType: v.optional(
        field('paymentType', { description: 'DB (default): a sale; PA: an authorisation, captured later' }),
      ),
      recurring: v.optional(oneOf(['INITIAL'], 'card: first payment of a series')),
      createRegistration: v.optional(
        described(v.boolean('format'), 'true or false', {
          description: 'card: store the card; the registrationId comes back on the session',
        }),
      ),
      registrationId: v.optional(
        formatText('gatewayId', { description: 'saved-card: pays with paywithtoken/{registrationId}' }),
      ),
      recurringType: v.optional(oneOf(['INITIAL', 'REPEATED'], 'saved-card (default REPEATED)')),
      savedCard: v.optional(
        v.strictObject({
          brand: v.optional(oneOf(CARD_BRANDS as unknown as [string, ...string[]])),
          last4: v.optional(
            described(v.pipe(v.string('format'), v.regex(/^\d{4}$/, 'format')), '^\\d{4}$', { pattern: '^\\d{4}$' }),
          ),
        }),
      ),
      invoiceId: v.optional(field('invoiceId', { description: 'invoice: the system id of the invoice to regenerate' })),
      merchantInvoiceId: v.optional(
        field('merchantInvoiceId', { description: 'invoice: the reference of the regenerated invoice' }),
      ),
      invoiceExpirationPeriod: v.optional(invoicePeriod('invoice: hours')),
      customer: v.optional(
        v.strictObject({
          givenName: v.optional(field('givenName')),
          surname: v.optional(field('surname')),
          email: v.optional(field('email')),
          phone: v.optional(field('phone')),
          telnocc: v.optional(field('telnocc')),
        }),
      ),
      returnUrl: v.optional(formatText('url', { description: 'Where the shopper returns after 3-D Secure' })),
      allowedOrigins: v.optional(originList(MAX_ORIGINS)),
      expiresIn: v.optional(integer(60, 24 * 60 * 60, 'Seconds (default 1800)')),
      maxAttempts: v.optional(integer(1, 10, 'Card attempts (default 3)')),
      metadata: v.optional(metadataSchema),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      const b = dataset.value as Body
      const bad = (k: string) => failed(dataset.issues, k)
      // flow and methods: one is required; sent together, flow is one of methods.
      if (b.flow === undefined && b.methods === undefined && !bad('flow') && !bad('methods'))
        report(addIssue, b, 'flow', 'required', `one of: ${FLOWS.join(', ')} (or methods)`)
      if (b.flow && b.methods && !bad('flow') && !bad('methods') && !b.methods.includes(b.flow))
        report(addIssue, b, 'flow', 'mismatch', 'one of methods')
      const methods = bad('flow') || bad('methods') ? undefined : methodsOf(b)
      if (methods) {
        for (const m of methods)
          for (const key of NEEDS[m])
            if (b[key] === undefined && !bad(key)) report(addIssue, b, key, 'required', `required with the ${m} method`)
        for (const [key, m] of Object.entries(ONLY_FOR))
          if (b[key] !== undefined && !methods.includes(m))
            report(addIssue, b, key, 'not_allowed', `only with the ${m} method`)
        if (methods.includes('setup')) {
          if (methods.length > 1)
            report(
              addIssue,
              b,
              b.methods ? 'methods' : 'flow',
              'not_allowed',
              'setup alone: a setup registers a card and takes no payment',
            )
          for (const key of NOT_WITH_SETUP)
            if (b[key] !== undefined && !bad(key))
              report(
                addIssue,
                b,
                key,
                'not_allowed',
                'absent with the setup method: the Worker authorises the smallest amount of the currency and voids it',
              )
        } else if (b.amount === undefined && !bad('amount'))
          report(addIssue, b, 'amount', 'required', 'decimal text with two decimals')
        // With another method beside it, the invoice's notifications are told from the card's and
        // the QR code's by their order reference: the two must differ (SECURITY.md R6).
        if (
          methods.length > 1 &&
          methods.includes('invoice') &&
          b.merchantInvoiceId !== undefined &&
          b.merchantInvoiceId === b.merchantTransactionId &&
          !bad('merchantInvoiceId')
        ) {
          report(
            addIssue,
            b,
            'merchantInvoiceId',
            'invalid_value',
            'different from merchantTransactionId when the session offers other methods too',
          )
        }
      }
      if (
        typeof b.amount === 'string' &&
        typeof b.currency === 'string' &&
        !bad('amount') &&
        !bad('currency') &&
        !fitsMinorUnits(b.amount, b.currency)
      ) {
        report(addIssue, b, 'amount', 'minor_units', "a whole number of the currency's minor units")
      }
      // A phone needs its country code (the table's rule for customer fields).
      const c = b.customer
      if (c && !bad('customer') && typeof c.phone === 'string') {
        for (const e of crossFieldErrors(
          { 'customer.phone': c.phone, ...(typeof c.telnocc === 'string' ? { 'customer.telnocc': c.telnocc } : {}) },
          new Date(),
        )) {
          ;(addIssue as (info: never) => void)({
            message: e.code,
            expected: FORMAT_EXPECTED.telnocc,
            path: [
              { type: 'object', origin: 'value', input: b, key: 'customer', value: c },
              { type: 'object', origin: 'value', input: c, key: 'telnocc', value: c.telnocc },
            ],
          } as never)
        }
      }
    }),
    v.metadata({ ref: 'SessionCreate' }),
  )

export type SessionBody = v.InferOutput<ReturnType<typeof sessionBody>>
