/**
 * A notification about one of the session's earlier payments (the QR payment the shopper gave up
 * on, an earlier card attempt) that arrives while the next attempt is in flight and has no payment
 * id yet must not settle that attempt: the gateway's asynchronous answer about the old payment
 * says nothing about the new one, whose charge may still be taken.
 */
import { describe, expect, it } from 'vitest'
import { browser, createSession, deliverNotification, notificationSentFor, pay, sessionState } from './api.ts'
import { injectFault, uniqueId } from './helpers.ts'

const shopper = { givenName: 'Ada', surname: 'Lovelace', email: 'ada@example.com' }

describe('a late notification about an earlier method', () => {
  it("a declined QR payment's notification arriving while the card payment that followed is unanswered leaves the card payment unknown", async () => {
    const s = await createSession({ methods: ['qr', 'card'] })
    expect(
      (await browser(s, 'POST', '/qr/verify', { walletId: 'wallet-declined', customer: shopper })).body,
    ).toMatchObject({ status: 'verified' })
    expect((await browser(s, 'POST', '/qr/complete', {}, { 'Idempotency-Key': uniqueId('q') })).body).toMatchObject({
      status: 'declined',
    })
    const qrDeclined = await notificationSentFor(s.id)

    // The shopper switches to the card; its answer is lost: the session must ask, never re-send.
    await injectFault({ op: 'payment', fault: 'http500', field: 'merchantTransactionId', value: s.mtid })
    expect((await pay(s, '4111111111111111')).body).toMatchObject({ status: 'unknown' })

    // The QR payment's notification, delivered late, names the QR payment only.
    expect((await deliverNotification(s.id, qrDeclined)).status).toBeLessThan(500)
    const state = await sessionState(s.id)
    expect(state.status).toBe('unknown')
    expect(state.attempts).toEqual([
      expect.objectContaining({ method: 'qr', status: 'declined' }),
      expect.objectContaining({ method: 'card', status: 'unknown' }),
    ])
    // And the shopper cannot start a second card payment while the first may have been charged.
    expect((await pay(s, '4111111111111111')).status).toBe(409)
  })
})
