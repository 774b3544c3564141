/**
 * @module
 * Who the card frame talks to: for its two scripts (`./frame.ts` and the full checkout's
 * `./frame-page.ts`), a module of its own so that the element's file, which imports
 * `./messages.ts`, does not carry it.
 */

/**
 * The frame's parent's origin, as the browser reports it; undefined with no parent (opened on its
 * own) or an opaque one. The frame's page carries no list of allowed origins (it is the same page
 * for every session, SECURITY.md R21): the Worker's `frame-ancestors` already made the browser
 * refuse to render it under any other origin, so whatever ancestor is reported is an allowed one.
 * Messages are then exchanged with exactly that origin, and only with `window.parent`. (The stub,
 * `shared/frame-stub.ts`, finds it the same way.)
 */
export function parentOrigin(): string | undefined {
  if (window.parent === window) return undefined
  const referrer = document.referrer ? new URL(document.referrer).origin : ''
  // Without `ancestorOrigins`, the Referer says it; but a frame that loaded itself again (another
  // language) was referred by itself, and carries the origin it talked to in its address (`o`).
  // (A page on the Worker's own origin, the demo shop's, refers it so too, and has no `o`.)
  // A wrong one is harmless: messages go to it and come only from it and from `window.parent`.
  const reported =
    location.ancestorOrigins?.[0] ??
    (referrer === location.origin ? (new URLSearchParams(location.search).get('o') ?? referrer) : referrer)
  return /^https?:\/\/[^/]+$/.test(reported) ? reported : undefined
}
