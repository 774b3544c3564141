/**
 * A merchant's webhook receiver for tests that run a stack of their own: it answers 200 and keeps
 * every body with its `Pay-Signature`, in arrival order.
 */
import { createServer } from 'node:http'
import { freePort } from '../../tools/stacks.mjs'

export interface Receiver {
  readonly url: string
  readonly hooks: { body: string; signature: string | undefined }[]
  close(): Promise<void>
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const hooks: Receiver['hooks'] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      hooks.push({
        body,
        signature: typeof req.headers['pay-signature'] === 'string' ? req.headers['pay-signature'] : undefined,
      })
      res.writeHead(200).end()
    })
  })
  const port = await freePort()
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()))
  return { url: `http://127.0.0.1:${port}${path}`, hooks, close: () => new Promise((r) => server.close(() => r())) }
}
