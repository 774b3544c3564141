/**
 * Secrets that rotate without downtime (SECURITY.md, "Secrets and their rotation"). These tests'
 * Worker is mid-rotation in all three (ROTATION_SECRETS): two merchant API keys, the next webhook
 * secret, and the secure key before the gateway's switch. Over the public routes, with the
 * sandbox gateway over real HTTP.
 */
import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { checksum } from '../../shared/gateway/checksum.ts'
import { verifyWebhook } from '../../shared/webhooks/sign.ts'
import { ROTATION_SECRETS, SANDBOX, TEST_SECRETS } from '../../tools/credentials.ts'
import { createSession, deliverNotification, merchant, pay, sessionState, webhooksAbout } from './api.ts'
import { uniqueId } from './helpers.ts'
import { THREE_DS } from './outcome-support.ts'

const NEXT = { Authorization: `Bearer ${ROTATION_SECRETS.MERCHANT_API_KEY_NEXT}` }
const sessionBody = () => ({ flow: 'card', amount: '10.00', currency: 'EUR', merchantTransactionId: uniqueId('rot') })

describe('merchant API keys: two at a time while a server switches', () => {
  it('the key and the next key both create sessions and read them; any other key gets 401', async () => {
    const withKey = await merchant<{ id: string }>('POST', '/v1/sessions', sessionBody())
    expect(withKey.status).toBe(201)
    const withNext = await merchant<{ id: string }>('POST', '/v1/sessions', sessionBody(), NEXT)
    expect(withNext.status).toBe(201)
    // Either key reads what the other created: one merchant, two keys.
    expect((await merchant('GET', `/v1/sessions/${withKey.body.id}`, undefined, NEXT)).status).toBe(200)
    const other = await merchant('POST', '/v1/sessions', sessionBody(), { Authorization: 'Bearer sk_not_a_key' })
    expect(other.status).toBe(401)
    expect(other.body).toMatchObject({ error: { code: 'unauthorized' } })
  })

  it('a creation retried with the other key (the server switched between two tries) replays the first session', async () => {
    const key = uniqueId('create')
    const body = sessionBody()
    const first = await merchant<{ id: string; clientSecret: string }>('POST', '/v1/sessions', body, {
      'Idempotency-Key': key,
    })
    expect(first.status).toBe(201)
    const again = await merchant('POST', '/v1/sessions', body, { ...NEXT, 'Idempotency-Key': key })
    expect(again.status).toBe(201)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
  })
})

describe('merchant API keys: the revoke', () => {
  it('once the new key is the key and the next one is unset, the old key gets 401 and the new one works', async () => {
    const { default: app } = await import('../../worker/index.ts')
    // Step 3 and 4 of the rotation: the new key in MERCHANT_API_KEY, MERCHANT_API_KEY_NEXT deleted.
    const revoked = {
      ...env,
      MERCHANT_API_KEY: ROTATION_SECRETS.MERCHANT_API_KEY_NEXT,
      MERCHANT_API_KEY_NEXT: undefined,
    }
    const create = (key: string) =>
      app.fetch(
        new Request('http://worker.test/v1/sessions', {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(sessionBody()),
        }),
        revoked,
      )
    expect((await create(TEST_SECRETS.MERCHANT_API_KEY)).status).toBe(401)
    expect((await create(ROTATION_SECRETS.MERCHANT_API_KEY_NEXT)).status).toBe(201)
  })
})

describe('overlap secrets that are blank or short are ignored', () => {
  it('a short next API key opens nothing, and a placeholder previous secure key signs nothing; each is logged by name', async () => {
    const { default: app } = await import('../../worker/index.ts')
    const logged = vi.spyOn(console, 'error')
    const careless = { ...env, MERCHANT_API_KEY_NEXT: 'test', SECURE_KEY_PREVIOUS: 'old' }
    const created = await app.fetch(
      new Request('http://worker.test/v1/sessions', {
        method: 'POST',
        headers: { Authorization: 'Bearer test', 'Content-Type': 'application/json' },
        body: JSON.stringify(sessionBody()),
      }),
      careless,
    )
    expect(created.status).toBe(401)
    const s = await createSession()
    const res = await pay(s, THREE_DS)
    const fields = {
      paymentId: res.body.paymentId ?? '',
      merchantTransactionId: s.mtid,
      amount: '100.00',
      transactionStatus: 'Y',
    }
    const sum = await checksum('notification', { ...fields, secureKey: 'old' })
    const forged = await app.fetch(
      new Request(`http://worker.test/v1/notifications/${s.id}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...fields, currency: 'EUR', checksum: sum.ok ? sum.value : '' }),
      }),
      careless,
    )
    expect(forged.status).toBe(401)
    expect((await sessionState(s.id)).status).toBe('action_required')
    // By the variable's name, so the operator knows which one to set again (never its value).
    const lines = logged.mock.calls.flat().join('\n')
    logged.mockRestore()
    for (const name of ['MERCHANT_API_KEY_NEXT', 'SECURE_KEY_PREVIOUS'])
      expect(lines).toMatch(new RegExp(`rotation_secret_ignored.*"variable":"${name}"`))
    expect(lines).not.toMatch(/"(test|old)"/)
  })
})

describe('webhook secrets: signed with both while the secret rolls', () => {
  it('each delivery carries one v1 per secret; a receiver holding either verifies it, one holding neither does not', async () => {
    const s = await createSession()
    expect((await pay(s, '4111111111111111')).body.status).toBe('succeeded')
    const [delivered] = await webhooksAbout(s.mtid, 1, 10_000, 'checkout.session.succeeded')
    const header = delivered?.signature ?? ''
    expect(header.match(/v1=/g)).toHaveLength(2)
    const body = delivered?.body ?? ''
    for (const secret of [TEST_SECRETS.WEBHOOK_SECRET, ROTATION_SECRETS.WEBHOOK_SECRET_NEXT])
      expect(await verifyWebhook(body, header, secret)).toMatchObject({ ok: true })
    expect(await verifyWebhook(body, header, 'whsec_someone_else')).toEqual({ ok: false, reason: 'bad_signature' })
  })
})

describe('secure key: notifications signed before the switch still settle their payment', () => {
  /** A signed "paid" notification for the session's payment, under `secureKey`. */
  async function paidNotification(s: { mtid: string }, paymentId: string, secureKey: string): Promise<string> {
    const fields = { paymentId, merchantTransactionId: s.mtid, amount: '100.00', transactionStatus: 'Y' }
    const sum = await checksum('notification', { ...fields, secureKey })
    return JSON.stringify({ ...fields, currency: 'EUR', checksum: sum.ok ? sum.value : '' })
  }

  it('the previous key’s checksum is accepted and settles; a checksum under any other key is 401 and changes nothing', async () => {
    const s = await createSession()
    const res = await pay(s, THREE_DS) // waits on the bank page: nothing settles it meanwhile
    expect(res.body.status).toBe('action_required')
    const paymentId = res.body.paymentId ?? ''
    const forged = await deliverNotification(s.id, await paidNotification(s, paymentId, 'a-key-nobody-has'))
    expect(forged.status).toBe(401)
    expect((await sessionState(s.id)).status).toBe('action_required')
    const before = await deliverNotification(
      s.id,
      await paidNotification(s, paymentId, ROTATION_SECRETS.SECURE_KEY_PREVIOUS),
    )
    expect(before.body).toMatchObject({ received: true, applied: true, status: 'succeeded' })
    // The current key still signs as it did.
    expect((await deliverNotification(s.id, await paidNotification(s, paymentId, SANDBOX.secureKey))).status).toBe(200)
  })
})
