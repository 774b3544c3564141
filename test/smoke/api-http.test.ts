/**
 * The whole chain over real HTTP, as deployed: `wrangler dev` runs the sandbox gateway and the
 * Worker; the sandbox notifies the Worker itself; the Worker signs a webhook to a receiver here.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRETS } from '../../tools/credentials.ts'
import { startStack } from '../../tools/stacks.mjs'
import { startReceiver, type Receiver } from '../support/receiver.ts'
import { verifyWebhook } from '../../shared/webhooks/sign.ts'

let stack: { stop: () => Promise<unknown> }
let worker: { url: string }
let receiver: Receiver
let hooks: Receiver['hooks'] = []
const state = mkdtempSync(join(tmpdir(), 'pay-http-'))

beforeAll(async () => {
  receiver = await startReceiver()
  hooks = receiver.hooks
  const started = await startStack({ stateDir: state, vars: { MERCHANT_WEBHOOK_URL: receiver.url } })
  stack = started
  worker = started.worker
}, 180_000)

afterAll(async () => {
  await stack?.stop()
  await receiver?.close()
  rmSync(state, { recursive: true, force: true })
})

async function createSession(): Promise<{ id: string; clientSecret: string; mtid: string }> {
  const mtid = `http-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
  const res = await fetch(`${worker.url}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_SECRETS.MERCHANT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      flow: 'card',
      amount: '42.00',
      currency: 'EUR',
      merchantTransactionId: mtid,
      returnUrl: 'https://shop.example/thanks',
    }),
  })
  expect(res.status).toBe(201)
  return { ...((await res.json()) as { id: string; clientSecret: string }), mtid }
}

const pay = (s: { id: string; clientSecret: string }, number: string) =>
  fetch(`${worker.url}/v1/checkout/${s.id}/pay`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.clientSecret}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `k-${Math.random().toString(36).slice(2)}`,
    },
    body: JSON.stringify({
      card: { number, expiryMonth: '12', expiryYear: '2030', cvv: '123' },
      customer: { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' },
    }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; redirect?: { url: string } } }))

async function until<T>(f: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const v = await f()
    if (v !== undefined) return v
    await new Promise((r) => setTimeout(r, 150))
  }
  throw new Error('timed out')
}

describe('over real HTTP with wrangler dev', () => {
  it('a pending card is settled by the gateway notifying the Worker, which signs a webhook', async () => {
    const s = await createSession()
    expect((await pay(s, '4000000000000259')).body.status).toBe('pending')
    const hook = await until(async () =>
      hooks.find((h) => h.body.includes(s.mtid) && h.body.includes('"checkout.session.succeeded"')),
    )
    const verified = await verifyWebhook(hook.body, hook.signature, TEST_SECRETS.WEBHOOK_SECRET)
    expect(verified.ok && verified.event).toMatchObject({
      type: 'checkout.session.succeeded',
      data: { id: s.id, status: 'succeeded', amount: '42.00' },
    })
  })

  it('3-D Secure: the ACS returns the shopper to the Worker, which confirms and sends them to the shop', async () => {
    const s = await createSession()
    const res = await pay(s, '4000000000003220')
    expect(res.body.status).toBe('action_required')
    const acs = await fetch(`${res.body.redirect?.url}/complete`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'authenticated' }),
      redirect: 'manual',
    })
    // The return is a POST (its signed checksum stays out of URLs): the page submits a form back.
    const page = await acs.text()
    const action = /<form[^>]*method="post"[^>]*action="([^"]+)"/.exec(page)?.[1] ?? ''
    expect(action).toBe(`${worker.url}/v1/return/${s.id}`)
    const fields = new URLSearchParams(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
    )
    expect(fields.get('checksum')).toMatch(/^[0-9a-f]{32}$/)
    const shop = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' })
    expect(shop.status).toBe(303)
    expect(shop.headers.get('Location')).toBe(`https://shop.example/thanks?session=${s.id}&status=succeeded`)
  })

  it('serves the built widget from the Worker’s origin, as a module script other origins may load', async () => {
    const res = await fetch(`${worker.url}/widget/pay-checkout.js`, { headers: { Origin: 'https://shop.example' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toContain('javascript')
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*')
    const entry = await res.text()
    const chunk = /\.\/chunks\/[\w-]+\.js/.exec(entry)?.[0] ?? ''
    expect(chunk).not.toBe('')
    expect(await (await fetch(`${worker.url}/widget/${chunk.slice(2)}`)).text()).toContain('pay-checkout')
  })

  it('a browser from a foreign origin is refused before any handler runs', async () => {
    const s = await createSession()
    const res = await fetch(`${worker.url}/v1/checkout/${s.id}/pay`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', Authorization: `Bearer ${s.clientSecret}` },
      body: '{}',
    })
    expect(res.status).toBe(403)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })
})
