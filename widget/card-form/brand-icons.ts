/**
 * @module
 * Card brand marks as small inline SVGs (no images to fetch, allowed by a strict CSP): simplified
 * shapes in each scheme's colours, with the brand's name as the accessible label.
 */
import { svg, type SVGTemplateResult } from 'lit'
import type { CardBrand } from '../../shared/card.ts'

const text = (fill: string, label: string, color = '#fff', size = 9) =>
  svg`<rect width="32" height="20" rx="3" fill=${fill}/><text x="16" y="13.5" fill=${color} font-family="Arial,sans-serif" font-size=${size} font-weight="700" text-anchor="middle">${label}</text>`

const circles = (left: string, right: string) =>
  svg`<rect width="32" height="20" rx="3" fill="#1b1b1f"/><circle cx="12.5" cy="10" r="6" fill=${left}/><circle cx="19.5" cy="10" r="6" fill=${right} fill-opacity=".85"/>`

export const BRAND_ICONS: Record<CardBrand, SVGTemplateResult> = {
  visa: text('#1a1f71', 'VISA', '#fff', 10),
  mastercard: circles('#eb001b', '#f79e1b'),
  amex: text('#2e77bc', 'AMEX', '#fff', 8),
  discover: text('#fff', 'DISC', '#e55c20', 9),
  jcb: text('#0b4ea2', 'JCB'),
  diners: text('#0079be', 'DC'),
  unionpay: text('#d6001c', 'UP'),
  maestro: circles('#eb001b', '#00a2e5'),
}
