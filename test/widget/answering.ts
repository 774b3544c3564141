/**
 * Answers the widget's requests to the Worker with a scripted answer: how the browser tests make
 * the Worker say what it rarely says (a gateway error, a refusal, a slow answer).
 */
export type Answer = { status: number; body: unknown; delayMs?: number }

/** Answers requests whose URL ends with `suffix` (GET view: `''` matches the view URL) with `answer`; the rest go to the Worker. */
export async function answering<T>(suffix: string, answer: Answer, fn: () => Promise<T>, method = 'POST'): Promise<T> {
  const real = window.fetch
  window.fetch = async (req: RequestInfo | URL, init?: RequestInit) => {
    const url = req instanceof Request ? req.url : String(req)
    const m = (init?.method ?? 'GET').toUpperCase()
    if (
      m === method &&
      /\/v1\/checkout\/cs_[A-Za-z0-9]+/.test(url) &&
      url.endsWith(suffix) &&
      (suffix !== '' || /cs_[A-Za-z0-9]+$/.test(url))
    ) {
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs))
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'Content-Type': 'application/json' },
      })
    }
    return real(req, init)
  }
  try {
    return await fn()
  } finally {
    window.fetch = real
  }
}
