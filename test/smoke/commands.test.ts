/**
 * The README's promises, run as a user would: `npm run sandbox` answers a correctly signed
 * payment, and `npm start` answers /healthz. Real processes, real HTTP, on the fixed ports.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { wirePayment } from '../fixtures/payment.ts'
import { SANDBOX } from '../support/credentials.ts'
import { offlineEnv, root, stopProcess, waitFor } from '../support/processes.mjs'

let running: ChildProcess | undefined
afterEach(async () => {
  if (running) await stopProcess(running)
  running = undefined
})

function npm(script: string): ChildProcess {
  running = spawn('npm', ['run', script, '--silent'], { cwd: root, env: offlineEnv(), stdio: 'ignore', detached: true })
  return running
}

describe('commands in the README', () => {
  it('npm run sandbox answers a signed POST /payments with 4111 1111 1111 1111 with 00001', async () => {
    const child = npm('sandbox')
    await waitFor('http://127.0.0.1:8788/healthz', 90_000, child)
    const mtid = `smoke-${Date.now()}`
    // Signed independently of the Worker's code: node:crypto's MD5.
    const sum = createHash('md5').update([SANDBOX.memberId, SANDBOX.secureKey, mtid, '100.00'].join('|')).digest('hex')
    const res = await fetch('http://127.0.0.1:8788/transactionServices/REST/v1/payments', {
      method: 'POST',
      headers: { AuthToken: SANDBOX.authToken, Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(
        wirePayment({ 'authentication.checksum': sum, merchantTransactionId: mtid, 'card.expiryYear': String(new Date().getFullYear() + 3) }),
      ),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ result: { code: '00001' }, transactionStatus: 'Y', merchantTransactionId: mtid })
  })

  it('npm start answers GET http://127.0.0.1:8787/healthz', async () => {
    const child = npm('start')
    await waitFor('http://127.0.0.1:8787/healthz', 120_000, child)
    const res = await fetch('http://127.0.0.1:8787/healthz')
    expect(await res.json()).toEqual({ ok: true, gateway: 'http://127.0.0.1:8788' })
  })
})
