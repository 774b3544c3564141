/**
 * @module
 * The card frame's HTML (served by `worker/routes/frame.ts` at `/frame/{id}`), apart from the
 * route so the size budget can measure exactly what is served.
 */
import { FRAME_SCRIPTS, LOCALE_CHUNKS } from '../../shared/frame-preload.ts'
import { direction, resolveLocale } from '../../shared/locales.ts'

/**
 * One page for every id: it holds nothing of the session (no origins, no amount), so its body says
 * nothing about whether the session exists (SECURITY.md R21). The frame learns its parent from the
 * browser (`location.ancestorOrigins`, else the referrer), which `frame-ancestors` has already
 * held to the allowed origins, and everything else from the API once the parent hands it the
 * client secret. Every script it needs is preloaded at once (`modulepreload`), so the form renders
 * after one parallel round of fetches; the locale's messages too when the URL names a locale
 * (`de-AT` preloads `de`, as the element resolves it), and the page reads in the locale's
 * direction (right to left for Arabic, Hebrew and Persian).
 */
export function framePage(locale: string | undefined): string {
  const resolved = resolveLocale(locale ? [locale] : [])
  const lang = LOCALE_CHUNKS.includes(resolved) ? resolved : 'en'
  const scripts = [...FRAME_SCRIPTS, ...(lang === 'en' ? [] : [`/widget/chunks/${lang}.js`])]
  return `<!doctype html>
<html lang="${lang}" dir="${direction(lang)}" data-pay-frame><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Card payment</title>
${scripts.map((src) => `<link rel="modulepreload" href="${src}">`).join('\n')}
<script type="module" src="/widget/pay-checkout.js"></script></head><body></body></html>`
}
