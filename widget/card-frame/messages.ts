/**
 * @module
 * The messages between `<pay-checkout isolation="frame">` on the merchant's page and the card
 * frame on the Worker's origin. Both sides post with an exact target origin, check `event.origin`
 * and `event.source`, and accept only messages of exactly these shapes (SECURITY.md R22). Nothing
 * here can carry a card number or a CVV: the frame sends only what the parent needs. The checks
 * of what the frame hears are in `./page-says.ts`, so the page's file does not carry them.
 */

import { CHANNEL } from '../../shared/frame-stub.ts'

export { CHANNEL }

export type ParentToFrame =
  | {
      channel: typeof CHANNEL
      type: 'init'
      clientSecret: string
      locale: string
      theme: 'light' | 'dark' | 'auto'
      collectShipping: boolean
      /** The page's `--pay-*` custom properties, which cannot cross into the frame by CSS. */
      style: Record<string, string>
    }
  /**
   * The page's origin and path, where the result page after 3-D Secure links back to. A message of
   * its own, after `init`: a frame of another release ignores a type it does not know, where it
   * would refuse an `init` with a key it does not know (and never start).
   */
  | { channel: typeof CHANNEL; type: 'page'; page: string }
  | { channel: typeof CHANNEL; type: 'submit' }
  | { channel: typeof CHANNEL; type: 'reset' }
  /** The card method the page's method picker chose (a session may offer a saved card and a new one). */
  | { channel: typeof CHANNEL; type: 'method'; method: 'card' | 'saved-card' }

export interface Redirect {
  url: string
  method?: string
  parameters: { name: string; value: string }[]
}

export type FrameToParent =
  | { channel: typeof CHANNEL; type: 'loaded' }
  /**
   * The frame's name in its locale (its document's title), for the `<iframe>`'s title. A message
   * of its own: an element of another release ignores a type it does not know.
   */
  | { channel: typeof CHANNEL; type: 'title'; title: string }
  | { channel: typeof CHANNEL; type: 'ready'; flow: string; status: string }
  | { channel: typeof CHANNEL; type: 'change'; valid: boolean; brand: string | null }
  /** The shopper submitted (the page's `pay-submit`): the button is busy, a request is on its way. */
  | { channel: typeof CHANNEL; type: 'submitted'; flow: string }
  | { channel: typeof CHANNEL; type: 'resize'; height: number }
  | {
      channel: typeof CHANNEL
      type: 'result'
      status: string
      paymentId: string | null
      brand: string | null
      last4: string | null
      attemptsRemaining: number | null
    }
  | { channel: typeof CHANNEL; type: 'action'; redirect: Redirect }
  | { channel: typeof CHANNEL; type: 'error'; code: string; message: string; fields: { field: string; code: string }[] }
  /** The session's methods and the one under way: the page shows the picker and the other methods. */
  | { channel: typeof CHANNEL; type: 'methods'; methods: string[]; method: string | null }

/** What the page says, without the channel (the element adds it, or calls the light form). */
export type PageSays = ParentToFrame extends infer M
  ? M extends { channel: string }
    ? Omit<M, 'channel'>
    : never
  : never
/** What the card flow says, before the frame adds the channel (`./card-flow.ts`). */
export type FrameSays = FrameToParent extends infer M
  ? M extends { channel: string }
    ? Omit<M, 'channel'>
    : never
  : never

export type Shape = Record<string, (v: unknown) => boolean>

export const str =
  (max = 2048) =>
  (v: unknown) =>
    typeof v === 'string' && v.length <= max
const nullable = (f: (v: unknown) => boolean) => (v: unknown) => v === null || f(v)
export const bool = (v: unknown) => typeof v === 'boolean'
const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100_000
export const oneOf =
  (...xs: string[]) =>
  (v: unknown) =>
    typeof v === 'string' && xs.includes(v)
const last4 = (v: unknown) => typeof v === 'string' && /^\d{4}$/.test(v)
const pairs = (v: unknown) =>
  Array.isArray(v) &&
  v.length <= 50 &&
  v.every(
    (p) =>
      typeof p === 'object' &&
      p !== null &&
      exactly(p as Record<string, unknown>, { name: str(256), value: str(8192) }),
  )
const redirect = (v: unknown) =>
  typeof v === 'object' &&
  v !== null &&
  (exactly(v as Record<string, unknown>, { url: str(), parameters: pairs }) ||
    exactly(v as Record<string, unknown>, { url: str(), method: str(8), parameters: pairs }))
const METHODS = ['card', 'saved-card', 'qr', 'invoice']
const method = oneOf(...METHODS)
const methods = (v: unknown) =>
  Array.isArray(v) && v.length >= 1 && v.length <= METHODS.length && v.every(method) && new Set(v).size === v.length
const fieldErrors = (v: unknown) =>
  Array.isArray(v) &&
  v.length <= 50 &&
  v.every(
    (f) =>
      typeof f === 'object' && f !== null && exactly(f as Record<string, unknown>, { field: str(100), code: str(40) }),
  )

/** The theming custom properties the frame accepts from the page. */
export const THEME_PROPERTIES = [
  '--pay-accent',
  '--pay-accent-text',
  '--pay-bg',
  '--pay-text',
  '--pay-muted',
  '--pay-border',
  '--pay-error',
  '--pay-success',
  '--pay-radius',
  '--pay-font',
  '--pay-spacing',
  '--pay-focus',
] as const

/** Colours, lengths and font lists only: no url(), no expressions, nothing that fetches. */
export function isSafeCssValue(v: string): boolean {
  return v.length <= 100 && /^[\w\s#.,%()'"-]+$/.test(v) && !/url\s*\(|expression|image-set|@/i.test(v)
}

const FRAME_TO_PARENT: Record<string, Shape> = {
  loaded: {},
  title: { title: str(100) },
  ready: { flow: str(20), status: str(20) },
  change: { valid: bool, brand: nullable(str(20)) },
  submitted: { flow: str(20) },
  resize: { height: count },
  result: {
    status: str(20),
    paymentId: nullable(str(64)),
    brand: nullable(str(20)),
    last4: nullable(last4),
    attemptsRemaining: nullable(count),
  },
  action: { redirect },
  error: { code: str(40), message: str(500), fields: fieldErrors },
  methods: { methods, method: nullable(method) },
}

/** True when `o` has exactly the shape's keys (plus channel and type) and every value passes. */
function exactly(o: Record<string, unknown>, shape: Shape, extra: readonly string[] = []): boolean {
  const keys = Object.keys(o)
  const expected = [...Object.keys(shape), ...extra]
  return (
    keys.length === expected.length &&
    expected.every((k) => k in o) &&
    Object.entries(shape).every(([k, check]) => check(o[k]))
  )
}

export function parse<T>(data: unknown, shapes: Record<string, Shape>): T | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const o = data as Record<string, unknown>
  if (o.channel !== CHANNEL || typeof o.type !== 'string' || !Object.hasOwn(shapes, o.type)) return undefined
  return exactly(o, shapes[o.type] ?? {}, ['channel', 'type']) ? (o as T) : undefined
}

export const parseFrameMessage = (data: unknown): FrameToParent | undefined => parse(data, FRAME_TO_PARENT)
