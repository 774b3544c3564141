/**
 * @module
 * Card brand marks (`shared/brand-marks.ts`) as Lit SVG templates, with the brand's name as the
 * accessible label where they are shown.
 */
import { svg, type SVGTemplateResult } from 'lit'
import { BRAND_MARKS } from '../../shared/brand-marks.ts'
import type { CardBrand } from '../../shared/card.ts'

export function brandIcon(brand: CardBrand): SVGTemplateResult {
  const m = BRAND_MARKS[brand]
  return 'text' in m
    ? svg`<rect width="32" height="20" rx="3" fill=${m.fill}/><text x="16" y="13.5" fill=${m.color} font-family="Arial,sans-serif" font-size=${m.size} font-weight="700" text-anchor="middle">${m.text}</text>`
    : svg`<rect width="32" height="20" rx="3" fill="#1b1b1f"/><circle cx="12.5" cy="10" r="6" fill=${m.left}/><circle cx="19.5" cy="10" r="6" fill=${m.right} fill-opacity=".85"/>`
}
