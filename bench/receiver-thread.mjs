// The webhook receiver's thread (bench/receiver.mjs): a merchant's endpoint on loopback that
// answers every delivery 204 after checking its signature against the secrets of its path, and
// keeps what each delivery was (never its body).
import { createServer } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'
import { verifyWebhook } from '../shared/webhooks/sign.ts'

/** By path (`/default`, `/m/3`): the secrets its deliveries are signed with. */
const secrets = new Map(Object.entries(workerData.secrets))
/** Deliveries: path, event id, type, what it is about (`data.id`), and whether the signature held. */
const deliveries = []

parentPort.on('message', (m) => {
  if (m.type === 'secrets') secrets.set(m.path, m.secrets)
  else if (m.type === 'deliveries') parentPort.postMessage({ type: 'deliveries', deliveries })
})

const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', async () => {
    const body = Buffer.concat(chunks).toString('utf8')
    const path = (req.url ?? '').split('?')[0]
    // A path given no secrets (the in-process stack's receiver only counts): nothing to check it
    // against, so not signed as far as this receiver knows; verifyWebhook refuses no secrets.
    const pathSecrets = secrets.get(path) ?? []
    const verified = pathSecrets.length
      ? await verifyWebhook(body, req.headers['pay-signature'], pathSecrets)
      : { ok: false }
    let event = {}
    try {
      event = JSON.parse(body)
    } catch {
      // Counted as a delivery without an id or type: the checks then fail.
    }
    deliveries.push({ path, id: event.id, type: event.type, about: event.data?.id, signed: verified.ok })
    Atomics.add(workerData.count, 0, 1)
    res.writeHead(204).end()
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'port', port: server.address().port }))
