/**
 * A stand-in for everything outside the Worker that tests need to observe over real HTTP:
 * - the gateway's notifications (the sandbox POSTs them to PUBLIC_BASE_URL, which points here);
 * - the merchant's webhook receiver (`/webhooks`), which fails the first N deliveries of events
 *   whose merchantTransactionId starts with `failN-`, and answers the first N of those starting
 *   with `moveN-` with a redirect (307) to `/elsewhere`, another receiver;
 * - a gateway that moved (`/moved`): every POST redirected (307) to `/elsewhere-gateway`;
 * - a Cloudflare Access team's signing keys (`/cdn-cgi/access/certs`, a test-only key pair);
 * - Turnstile's siteverify (`/siteverify`): token `pass` passes, `dup` is a reused token,
 *   `outage` answers HTTP 500 with HTML.
 * `GET` on any path returns what was POSTed there; `GET /webhooks?mtid=X` the events about X.
 * - the API document as a contract (test/support/contract.ts): every event POSTed to a `/webhooks`
 *   path is checked against its schema (`GET /contract/events` lists what broke it), and
 *   `POST /contract/answers` checks a batch of the Worker's answers that a test file saw.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { loadContract } from './contract.ts'
import { root } from '../../tools/stacks.mjs'
import accessKeys from '../fixtures/access-keys.json' with { type: 'json' }

interface Received {
  readonly body: string
  readonly signature: string | undefined
}

export function startCatcher(port: number): Promise<() => Promise<void>> {
  const received = new Map<string, Received[]>()
  const failures = new Map<string, number>()
  const contract = loadContract(join(root, 'docs/openapi.json'))
  const eventErrors: string[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://catcher')
    const path = url.pathname
    // A Cloudflare Access team's signing keys (the console's Access sign-in, test/worker/console.test.ts).
    if (req.method !== 'POST' && path === '/cdn-cgi/access/certs')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ keys: [accessKeys.public] }))
    if (req.method !== 'POST' && path === '/contract/events')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ errors: eventErrors }))
    if (req.method !== 'POST') {
      let items = received.get(path) ?? []
      const mtid = url.searchParams.get('mtid')
      if (mtid) items = items.filter((i) => i.body.includes(`"merchantTransactionId":"${mtid}"`))
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(path === '/webhooks' ? items : items.map((i) => i.body)))
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (path === '/contract/answers') {
        const answers = JSON.parse(body) as { method: string; path: string; status: number; body: unknown }[]
        const errors = answers.flatMap((a) => contract.answer(a.method, a.path, a.status, a.body))
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ checked: answers.length, errors: [...new Set(errors)] }))
      }
      if (path.startsWith('/webhooks')) {
        try {
          eventErrors.push(...contract.event(JSON.parse(body)))
        } catch {
          eventErrors.push(`an event that is not JSON: ${body.slice(0, 80)}`)
        }
      }
      // A server that moved (a hostile or misconfigured gateway): every POST is redirected, body
      // and all (307), to /elsewhere-gateway, where it is recorded if a client follows.
      if (path === '/moved') return void res.writeHead(307, { Location: '/elsewhere-gateway' }).end()
      if (path === '/siteverify') {
        const token = new URLSearchParams(body).get('response')
        if (token === 'outage') return void res.writeHead(500, { 'Content-Type': 'text/html' }).end('<h1>down</h1>')
        const success = token === 'pass'
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ success, 'error-codes': success ? [] : ['timeout-or-duplicate'] }))
      }
      if (path === '/webhooks') {
        const failN = /"merchantTransactionId":"fail(\d)-/.exec(body)
        const eventId = String(req.headers['pay-event-id'] ?? '')
        const failed = failures.get(eventId) ?? 0
        if (failN && failed < Number(failN[1])) {
          failures.set(eventId, failed + 1)
          return void res.writeHead(500).end('failing on purpose')
        }
        const moveN = /"merchantTransactionId":"move(\d)-/.exec(body)
        if (moveN && failed < Number(moveN[1])) {
          failures.set(eventId, failed + 1)
          return void res.writeHead(307, { Location: '/elsewhere' }).end()
        }
      }
      const signature = req.headers['pay-signature']
      received.set(path, [
        ...(received.get(path) ?? []),
        { body, signature: typeof signature === 'string' ? signature : undefined },
      ])
      res.writeHead(200).end('ok')
    })
  })
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((r) => server.close(() => r())))),
  )
}
