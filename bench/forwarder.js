// The floors of `bench/direct.mjs`, started and called exactly as the product Worker is.
// - `/...`: a Worker that only forwards each request to the sandbox. Its added latency is what any
//   Worker in this setup adds (the calls in and out, wrangler's proxy Worker on both legs); the
//   product's minus it is what the product's own code costs.
// - `/ledger/...`: the least a pay that cannot be lost needs: the request goes to a Durable Object
//   (one per request, as one per session), which writes the attempt durably before the gateway
//   call and the answer after it, then answers. Any checkout that keeps "nothing is lost" pays this.
import { DurableObject } from 'cloudflare:workers'

export class Ledger extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url)
    await this.ctx.storage.put('attempt', { at: Date.now(), path: url.pathname })
    const answer = await fetch(`${this.env.TARGET}${url.pathname.replace(/^\/ledger/, '')}${url.search}`, request)
    const body = await answer.text()
    await this.ctx.storage.put('answer', { status: answer.status, body })
    return new Response(body, { status: answer.status, headers: answer.headers })
  }
}

export default {
  fetch(request, env) {
    const url = new URL(request.url)
    if (url.pathname.startsWith('/ledger/')) return env.LEDGER.get(env.LEDGER.newUniqueId()).fetch(request)
    return fetch(`${env.TARGET}${url.pathname}${url.search}`, request)
  },
}
