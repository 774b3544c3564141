/**
 * @module
 * The first words of the card frame, written inline right after its server-rendered form, before
 * the frame's script: the form's inputs exist and accept typing once the HTML up to here is
 * parsed, so the frame tells the page at once (`loaded`, its name in the shopper's language for
 * the `<iframe>`'s title, then `ready` for a card, still loading).
 * Until the frame's script runs it keeps every message from the page in `window.__payInbox`; the
 * script then reads them, and takes the box over (its `push` becomes the script's handler). The
 * frame's CSP allows exactly this text, by its SHA-256.
 *
 * The parent's origin is found as the script finds it (`widget/card-frame/frame.ts`), which
 * checks every message's origin and source itself: this stub only posts to that origin, and keeps.
 */

/** The messages' channel (`widget/card-frame/messages.ts`). */
export const CHANNEL = 'pay-checkout/1'

export const FRAME_STUB = `(()=>{const q=window.__payInbox=[],r=document.referrer?new URL(document.referrer).origin:"",o=location.ancestorOrigins?.[0]??(r===location.origin?new URLSearchParams(location.search).get("o")??r:r);if(parent===window||!/^https?:\\/\\/[^/]+$/.test(o))return;addEventListener("message",e=>q.push(e));parent.postMessage({channel:"${CHANNEL}",type:"loaded"},o);parent.postMessage({channel:"${CHANNEL}",type:"title",title:document.title},o);parent.postMessage({channel:"${CHANNEL}",type:"ready",flow:"card",status:"loading"},o)})()`
