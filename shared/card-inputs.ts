/**
 * @module
 * The card form's inputs, over the shopper part of the field table (`./shopper-fields.ts`): which
 * inputs it shows, in what order, with which label, and the rule each breaks. Two renderers use
 * it: the widget's `<pay-card-form>` (Lit) and the Worker's server-rendered card frame, whose small
 * script checks and collects with the same functions. Values are as the shopper sees them
 * (`4111 1111 ...`, `12 / 30`), keyed by input id; nothing here keeps or logs one.
 */
import {
  asciiDigits,
  detectBrand,
  formatCardNumber,
  maxCardLength,
  normalizeCardNumber,
  type CardBrand,
} from './card.ts'
import type { FieldError, FieldErrorCode } from './errors.ts'
import { formatMessage } from './i18n/icu.ts'
import type { MessageKey, Messages } from './i18n/messages/en.ts'
import { checkExpiryMonth, checkWith, cvvLengthError, expiryError, telnoccError } from './shopper-formats.ts'
import { SHOPPER_CHECKS, SHOPPER_FIELDS, type ShopperFieldName } from './shopper-fields.ts'

/** One input: a field of the table (or the combined expiry), with its label. */
export interface InputSpec {
  readonly id: string
  readonly label: MessageKey
  /** Table fields this input fills; the expiry fills month and year. */
  readonly fields: readonly ShopperFieldName[]
  readonly required: boolean
}

const spec = (
  id: string,
  label: MessageKey,
  name: ShopperFieldName,
  op: 'payment' | 'tokenRepeat' = 'payment',
): InputSpec => ({
  id,
  label,
  fields: [name],
  required: (SHOPPER_FIELDS[name].use as Record<string, string>)[op] === 'R',
})

export const CARD: readonly InputSpec[] = [
  spec('number', 'cardNumber', 'cardNumber'),
  { id: 'expiry', label: 'expiry', fields: ['expiryMonth', 'expiryYear'], required: true },
  spec('cvv', 'cvv', 'cvv'),
]
export const CUSTOMER: readonly InputSpec[] = [
  spec('givenName', 'givenName', 'givenName'),
  spec('surname', 'surname', 'surname'),
  spec('email', 'email', 'email'),
]
export const PHONE: readonly InputSpec[] = [spec('telnocc', 'telnocc', 'telnocc'), spec('phone', 'phone', 'phone')]
export const SHIPPING: readonly InputSpec[] = [
  spec('street', 'street', 'shippingStreet1'),
  spec('postcode', 'postcode', 'shippingPostcode'),
  spec('city', 'city', 'shippingCity'),
  spec('state', 'state', 'shippingState'),
  spec('country', 'country', 'shippingCountry'),
]
/**
 * Whether the shipping address is optional as a whole (the table asks for none of it): then its
 * legend says so once, and its inputs not each.
 */
export const SHIPPING_OPTIONAL = SHIPPING.every((s) => !s.required)

/**
 * An input's label as the shopper reads it: an optional one says so ("Phone (optional)"), since
 * nothing marks the required ones that most of the form is; one in the shipping address, when that
 * is optional as a whole, leaves it to the legend (`shippingLegend`).
 */
export function labelOf(s: InputSpec, m: Messages, lang: string): string {
  return s.required || (SHIPPING_OPTIONAL && SHIPPING.includes(s))
    ? m[s.label]
    : formatMessage(m.optional, { label: m[s.label] }, lang)
}

/** The shipping address's legend, which says "(optional)" when all of it is. */
export const shippingLegend = (m: Messages, lang: string): string =>
  SHIPPING_OPTIONAL ? formatMessage(m.optional, { label: m.shippingTitle }, lang) : m.shippingTitle

/** A saved card: its CVV alone. */
export const SAVED: readonly InputSpec[] = [spec('cvv', 'cvv', 'cvv', 'tokenRepeat')]

/** The inputs shown, in order: a saved card's CVV, or the card, the customer the merchant did not prefill, the phone and the shipping address. */
export function inputsFor(
  mode: 'card' | 'saved-card',
  prefill: Partial<Record<string, string>> | null,
  collectShipping: boolean,
): readonly InputSpec[] {
  if (mode === 'saved-card') return SAVED
  return [...CARD, ...CUSTOMER.filter((s) => !prefill?.[s.id]), ...PHONE, ...(collectShipping ? SHIPPING : [])]
}

/** Digits and addresses read left to right in every locale, right-to-left forms included. */
export const LTR_INPUTS: readonly string[] = ['number', 'expiry', 'cvv', 'phone', 'email']

/** The lists: a country, and a phone code (`DE+49`, one per country). */
export const isList = (id: string): boolean => id === 'country' || id === 'telnocc'

/** What the shopper reads for each broken rule. */
const ERROR_KEYS: Partial<Record<FieldErrorCode, MessageKey>> = {
  required: 'err_required',
  format: 'err_format',
  luhn: 'err_luhn',
  length: 'err_length',
  expired: 'err_expired',
  unsupported_brand: 'err_unsupported_brand',
}

/**
 * The message for an error of `field`'s (a name of the field table, as the customer's inputs are
 * named): what it takes when its format is refused, by the table's format (an email address, a
 * name: "Please check this field" told the shopper nothing to fix), else the rule's. Every form
 * that asks for these fields says the same (the card forms, the QR wallet's).
 */
export function errorKey(field: string, code: FieldErrorCode): MessageKey {
  const format =
    code === 'format' && Object.hasOwn(SHOPPER_FIELDS, field) && SHOPPER_FIELDS[field as ShopperFieldName].format
  return format === 'email' ? 'err_email' : format === 'name' ? 'err_name' : (ERROR_KEYS[code] ?? 'err_invalid')
}

export const BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'Amex',
  discover: 'Discover',
  jcb: 'JCB',
  diners: 'Diners',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
}

/** What an input holds, as the wire wants it: the phone-code list's values are `DE+49` (one per country). */
export const wireValue = (id: string, value: string): string =>
  id === 'telnocc' ? value.replace(/^[A-Z]{2}(?=\+)/, '') : value

/**
 * The expiry as `MM / YY`. A whole value (autofill, a paste, the pay) is formatted only when it is
 * one, and never changed into another date: `12/30`, `1230`, `1/30`, and a year in four digits
 * (`12/2030`: autofills and pastes write it into an `MM / YY` field, Chrome's where the label's
 * year is not `YY`, as German `MM / JJ`); anything else stays as written, for the
 * checks to name. With `typing` (the shopper types at its end) what is typed so far: a month of
 * one digit gets its zero (`4` and `1/`; `13` is `01 / 3`: no month starts 13), and a year being
 * typed in four digits (`12 / 203`) waits for its last digit.
 */
export function formatExpiry(input: string, typing = false): string {
  const digits = input.replace(/\D/g, '')
  const m = /^\D*(\d\d?)\D+(?:20)?(\d\d)\D*$/.exec(input) ?? /^(\d\d)(?:20)?(\d\d)$/.exec(digits)
  if (m) return `${m[1]?.padStart(2, '0')} / ${m[2]}`
  if (!typing) return input
  if (/^\D*\d\d\D*20\d\D*$/.test(input)) return `${digits.slice(0, 2)} / ${digits.slice(2)}`
  const d = `${/^\D*(?:[2-9]\D*|1\D+|1[3-9]\D*)$/.test(input) ? '0' : ''}${digits}`.slice(0, 4)
  return d.length > 2 ? `${d.slice(0, 2)} / ${d.slice(2)}` : d
}

/**
 * How many characters an input takes (`maxlength`): a card number's digits with the separators a
 * paste may bring (`4111 - 1111 - 1111 - 1111`), which `typedValue` takes out and whose digits it
 * keeps as many as the brand has; an expiry as `MM / YYYY`.
 */
export const maxTyped = (id: string): number => (id === 'number' ? 40 : id === 'expiry' ? 9 : id === 'cvv' ? 4 : 100)

/**
 * What an input shows for what the shopper typed, in both card forms: its digits in ASCII whatever
 * script the keyboard typed them in (`asciiDigits`: the gateway takes no other in a card number,
 * an expiry, a CVV, a phone number or a postcode), without the marks that set a text's direction
 * (a paste from a right-to-left page carries them), the number grouped as its brand prints it,
 * the CVV digits alone, and the expiry as typed so far (`formatExpiry`), unless `editing`: the
 * shopper deletes or types elsewhere than at its end, where a value rewritten under the caret
 * would turn an edit into another date. (An input method's text is not given here before it is
 * committed: the forms wait for `compositionend`.)
 */
export function typedValue(id: string, typed: string, editing = false): string {
  const value = asciiDigits(typed.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ''))
  if (id === 'number') return formatCardNumber(value).slice(0, maxCardLength(detectBrand(value)) + 4)
  if (id === 'expiry') return editing ? value : formatExpiry(value, true)
  return id === 'cvv' ? value.replace(/\D/g, '').slice(0, 4) : value
}

/** The brand the form is for: a saved card's, else the number's. */
export const brandOf = (
  mode: 'card' | 'saved-card',
  values: Readonly<Record<string, string>>,
  saved: CardBrand | null,
): CardBrand | undefined => (mode === 'saved-card' ? (saved ?? undefined) : detectBrand(values.number ?? ''))

/** The rule an input's value breaks, or null. */
export function checkInput(
  s: InputSpec,
  values: Readonly<Record<string, string>>,
  brand: CardBrand | undefined,
  now = new Date(),
): FieldErrorCode | null {
  const value = (values[s.id] ?? '').trim()
  if (value === '') {
    if (s.required) return 'required'
    return s.id === 'telnocc' ? telnoccError(values.phone, value) : null
  }
  if (s.id === 'expiry') {
    const m = /^(\d{2}) \/ (\d{2})$/.exec(value)
    if (!m || checkWith(checkExpiryMonth, m[1] ?? '') !== null) return 'format'
    return expiryError(m[1] ?? '', `20${m[2]}`, now)
  }
  // A CVV of digits only is wrong by its length for the brand, which says more than "format".
  if (s.id === 'cvv' && cvvLengthError(value, brand)) return 'length'
  const name = s.fields[0]
  if (!name) return null
  return checkWith(SHOPPER_CHECKS[name], s.id === 'number' ? normalizeCardNumber(value) : wireValue(s.id, value))
}

/**
 * The inputs holding the fields a refusal of the Worker's names (`shipping.street1`: `street`),
 * each with the first rule named for it, in the form's order: the form shows them as it shows its
 * own checks (a card number in the street, refused by the Worker alone). Names no input holds (a
 * body key, the return page) are the notice's alone.
 */
export function refusedInputs(specs: readonly InputSpec[], fields: readonly FieldError[]): [string, FieldErrorCode][] {
  return specs.flatMap((s): [string, FieldErrorCode][] => {
    const f = fields.find((f) => s.fields.some((name) => SHOPPER_FIELDS[name].wire === f.field))
    return f ? [[s.id, f.code]] : []
  })
}

/** The wire fields of a valid form (card data goes only to the pay, never into an event). */
export function collectInputs(
  specs: readonly InputSpec[],
  values: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const s of specs) {
    const value = (values[s.id] ?? '').trim()
    if (value === '') continue
    if (s.id === 'expiry') {
      const [mm = '', yy = ''] = value.split(' / ')
      out['card.expiryMonth'] = mm
      out['card.expiryYear'] = `20${yy}`
    } else if (s.fields[0]) {
      out[SHOPPER_FIELDS[s.fields[0]].wire] =
        s.id === 'number'
          ? normalizeCardNumber(value)
          : s.id === 'country'
            ? value.toUpperCase()
            : wireValue(s.id, value)
    }
  }
  return out
}
