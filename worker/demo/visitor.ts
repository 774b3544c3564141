/**
 * @module
 * The demo's visitors: each browser gets a random id in an HttpOnly cookie, and every order, saved
 * card and webhook the demo shows is looked up by it, so one visitor never sees or charges
 * another's. No accounts: losing the cookie starts an empty shop.
 */
import type { MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'

export const VISITOR_COOKIE = 'pay_demo_visitor'
/** 32 random bytes, base64url: unguessable, and checked by shape before use. */
const SHAPE = /^[A-Za-z0-9_-]{43}$/

function newVisitorId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

export type VisitorVariables = { visitor: string }

/** Reads the visitor cookie, or issues one (HttpOnly: page scripts never see it; SameSite=Lax). */
export function visitor(): MiddlewareHandler<{ Variables: VisitorVariables }> {
  return async function visitor(c, next) {
    let id = getCookie(c, VISITOR_COOKIE)
    if (id === undefined || !SHAPE.test(id)) {
      id = newVisitorId()
      setCookie(c, VISITOR_COOKIE, id, {
        path: '/demo',
        httpOnly: true,
        sameSite: 'Lax',
        secure: new URL(c.req.url).protocol === 'https:',
        maxAge: 60 * 60 * 24 * 30,
      })
    }
    c.set('visitor', id)
    await next()
  }
}
