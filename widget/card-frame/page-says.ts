/**
 * @module
 * What the card frame accepts from the page (SECURITY.md R22), beside what the page accepts from
 * the frame (`./messages.ts`, with the shapes' rules). A module of its own because only the
 * frame's scripts read it: the merchant page's file (`/widget/pay-checkout.js`) holds the page's
 * side alone.
 */
import {
  bool,
  isSafeCssValue,
  oneOf,
  parse,
  str,
  THEME_PROPERTIES,
  type ParentToFrame,
  type Shape,
} from './messages.ts'

/** An http(s) origin and path: no query, fragment or `;` parameters (they may hold what the page was handed). */
const page = (v: unknown) => typeof v === 'string' && v.length <= 2048 && /^https?:\/\/[^\s?#;]+$/.test(v)

const themeStyle = (v: unknown) =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.entries(v).every(
    ([k, value]) =>
      (THEME_PROPERTIES as readonly string[]).includes(k) && typeof value === 'string' && isSafeCssValue(value),
  )

const PARENT_TO_FRAME: Record<string, Shape> = {
  init: {
    clientSecret: str(200),
    locale: str(35),
    theme: oneOf('light', 'dark', 'auto'),
    collectShipping: bool,
    style: themeStyle,
  },
  page: { page },
  submit: {},
  reset: {},
  method: { method: oneOf('card', 'saved-card') },
}

export const parseParentMessage = (data: unknown): ParentToFrame | undefined => parse(data, PARENT_TO_FRAME)
