/**
 * @module
 * The 3-D Secure step on the merchant's page: checked with the shared rule (SECURITY.md R28),
 * announced with a cancelable `pay-action`, then the top window goes to the bank. Used by the
 * frame host and by the inline element, so both follow exactly one rule.
 */
import { safeRedirect } from '../shared/redirect.ts'
import type { ApiError } from './api-client.ts'
import { PayActionEvent } from './events.ts'

/**
 * Follows a redirect that passes the shared rule unless a `pay-action` listener cancels it.
 * Answers false when the redirect fails the rule: it is then never followed nor announced.
 */
export function followRedirect(
  host: HTMLElement,
  given: { url: string; method?: string | undefined; parameters: readonly { name: string; value: string }[] },
): boolean {
  const redirect = safeRedirect(given)
  if (!redirect) return false
  const event = new PayActionEvent({ redirect })
  host.dispatchEvent(event)
  if (event.defaultPrevented) return true
  const form = document.createElement('form')
  form.method = redirect.method === 'GET' ? 'get' : 'post'
  form.action = redirect.url
  form.target = '_top'
  form.hidden = true
  for (const p of redirect.parameters) {
    const input = document.createElement('input')
    input.type = 'hidden'
    input.name = p.name
    input.value = p.value
    form.append(input)
  }
  document.body.append(form)
  form.submit()
  return true
}

/**
 * Whether the Worker answers at all, asked without CORS: when a CORS request (or the frame) failed
 * but this succeeds, the server is there and refused this page's origin.
 */
export async function reachable(endpointOrigin: string): Promise<boolean> {
  try {
    await fetch(`${endpointOrigin}/healthz`, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' })
    return true
  } catch {
    return false
  }
}

/**
 * Why a request got no answer at all: this page's origin refused by the Worker (which answers
 * when asked without CORS), or the Worker not reached. One wording for the frame host and the
 * inline element.
 */
export async function unanswered(
  endpointOrigin: string,
): Promise<{ code: 'origin_not_allowed' | 'network_error'; message: string }> {
  return (await reachable(endpointOrigin))
    ? {
        code: 'origin_not_allowed',
        message: `This page's origin (${location.origin}) is not allowed for this checkout.`,
      }
    : { code: 'network_error', message: `The payment service at ${endpointOrigin} could not be reached.` }
}

/**
 * A request that got no answer at all (status 0) is either this page's origin refused by CORS or
 * the network: asked once more without CORS, a Worker that answers means the origin.
 */
export async function classify(endpoint: string, error: ApiError): Promise<ApiError> {
  if (error.status !== 0) return error
  let origin: string
  try {
    origin = new URL(endpoint).origin
  } catch {
    return { ...error, code: 'network_error' as ApiError['code'] }
  }
  const why = await unanswered(origin)
  return { ...error, code: why.code as ApiError['code'], message: why.message }
}

/**
 * This page's origin and path, for the Worker's result page after 3-D Secure to link back to when
 * the merchant named no `returnUrl`. Never its query, fragment or `;` parameters, which may hold
 * what the page was handed (a client secret, a session id). Nothing for a page that is not http(s)
 * (a blob: or srcdoc page) or whose path is too long for the Worker to take.
 */
export function startingPage(): string | undefined {
  const u = new URL(location.href)
  const url = u.origin + (u.pathname.split(';')[0] ?? '')
  return /^https?:$/.test(u.protocol) && url.length <= 2048 ? url : undefined
}
