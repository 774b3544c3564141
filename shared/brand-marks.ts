/**
 * @module
 * Card brand marks as small inline SVGs (no images to fetch, allowed by a strict CSP): simplified
 * shapes in each scheme's colours. The widget's card form draws them with Lit
 * (`widget/card-form/brand-icons.ts`), the card frame's script from the markup below.
 */
import type { CardBrand } from './card.ts'

/** A wordmark on a coloured card (fill, label, text colour, font size), or two overlapping circles. */
export type BrandMark =
  | { readonly text: string; readonly fill: string; readonly color: string; readonly size: number }
  | { readonly left: string; readonly right: string }

const text = (fill: string, label: string, color = '#fff', size = 9): BrandMark => ({ text: label, fill, color, size })

export const BRAND_MARKS: Readonly<Record<CardBrand, BrandMark>> = {
  visa: text('#1a1f71', 'VISA', '#fff', 10),
  mastercard: { left: '#eb001b', right: '#f79e1b' },
  amex: text('#2e77bc', 'AMEX', '#fff', 8),
  discover: text('#fff', 'DISC', '#e55c20', 9),
  jcb: text('#0b4ea2', 'JCB'),
  diners: text('#0079be', 'DC'),
  unionpay: text('#d6001c', 'UP'),
  maestro: { left: '#eb001b', right: '#00a2e5' },
}

/** A mark's SVG content (constants only: no value of the shopper's goes in). */
export function brandMarkSvg(brand: CardBrand): string {
  const m = BRAND_MARKS[brand]
  return 'text' in m
    ? `<rect width="32" height="20" rx="3" fill="${m.fill}"/><text x="16" y="13.5" fill="${m.color}" font-family="Arial,sans-serif" font-size="${m.size}" font-weight="700" text-anchor="middle">${m.text}</text>`
    : `<rect width="32" height="20" rx="3" fill="#1b1b1f"/><circle cx="12.5" cy="10" r="6" fill="${m.left}"/><circle cx="19.5" cy="10" r="6" fill="${m.right}" fill-opacity=".85"/>`
}
