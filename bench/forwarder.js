// The floor of `bench/direct.mjs`: a Worker that only forwards each request to the sandbox, started
// and called exactly as the product Worker is. Its added latency is what any Worker in this setup
// adds (the calls in and out, wrangler's proxy Worker on both legs); the product's minus it is
// what the product's own code costs.
export default {
  fetch(request, env) {
    const url = new URL(request.url)
    return fetch(`${env.TARGET}${url.pathname}${url.search}`, request)
  },
}
