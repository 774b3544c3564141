/**
 * Answers the widget's requests to the Worker with a scripted answer: how the browser tests make
 * the Worker say what it rarely says (a gateway error, a refusal, a slow answer).
 */
export type Answer = { status: number; body: unknown; delayMs?: number }

/** The Worker's answer, scripted: `body` as JSON. */
export const jsonAnswer = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

/** A bare 500 from something between the page and the Worker: a proxy's HTML page. */
export const bare500Answer = (): Response =>
  new Response('<h1>500 Internal Server Error</h1>', { status: 500, headers: { 'Content-Type': 'text/html' } })

/** A pay answered "being confirmed": its charge's answer was lost at the Worker. */
export const BEING_CONFIRMED = { status: 'unknown', attemptsRemaining: 3, message: 'We are confirming your payment.' }

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
      return jsonAnswer(answer.body, answer.status)
    }
    return real(req, init)
  }
  try {
    return await fn()
  } finally {
    window.fetch = real
  }
}
