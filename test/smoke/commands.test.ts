/**
 * The README's promises, run as a user would: `npm run sandbox` answers a correctly signed
 * payment, `npm start` answers /healthz and serves the demo (the demo Worker on 8787 in front of
 * the product Worker on 8790), and the README's runnable snippets
 * (blocks marked `<!-- readme-test -->`) work as written against it. Real processes, real HTTP,
 * on the fixed ports (so in one file, one after the other).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { wirePayment } from '../../tools/wire-payment.ts'
import { SANDBOX } from '../../tools/credentials.ts'
import { offlineEnv, root, stopProcess, waitFor } from '../../tools/stacks.mjs'

/** `npm start`'s merchant key: the one .dev.vars gets from .dev.vars.example. */
const DEV_MERCHANT_KEY =
  /^MERCHANT_API_KEY=(.*)$/m.exec(readFileSync(join(root, '.dev.vars.example'), 'utf8'))?.[1] ?? ''

let running: ChildProcess | undefined
afterEach(async () => {
  if (running) await stopProcess(running)
  running = undefined
})

function npm(script: string, args: string[] = []): ChildProcess {
  running = spawn('npm', ['run', script, '--silent', ...(args.length ? ['--', ...args] : [])], {
    cwd: root,
    env: offlineEnv(),
    stdio: 'ignore',
    detached: true,
  })
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
      headers: {
        AuthToken: SANDBOX.authToken,
        Accept: 'application/json',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(
        wirePayment({
          'authentication.checksum': sum,
          merchantTransactionId: mtid,
          'card.expiryYear': String(new Date().getFullYear() + 3),
        }),
      ),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      result: { code: '00001' },
      transactionStatus: 'Y',
      merchantTransactionId: mtid,
    })
  })

  it('the widget its preflight builds is the production one, whatever NODE_ENV its caller runs with (vitest’s is test)', async () => {
    // Built again, as after any change to the widget: the stamp of the last build is removed.
    rmSync(join(root, 'dist', '.sources'), { force: true })
    expect(process.env.NODE_ENV).toBe('test')
    const child = npm('sandbox', ['--port', '18799'])
    await waitFor('http://127.0.0.1:18799/healthz', 120_000, child)
    const full = readFileSync(join(root, 'dist/public/widget/chunks/pay-checkout-inline.js'), 'utf8')
    expect(full).toContain('customElements')
    expect(full).not.toContain('Lit is in dev mode')
  })

  it('npm run sandbox -- --port N serves the sandbox gateway on that port', async () => {
    const child = npm('sandbox', ['--port', '18798'])
    await waitFor('http://127.0.0.1:18798/healthz', 90_000, child)
    expect((await fetch('http://127.0.0.1:18798/healthz')).status).toBe(200)
  })

  it('npm start -- --port refuses a value that is not a port', () => {
    const out = spawnSync('node', [join(root, 'worker/dev/start.mjs'), '--port', 'eighty'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(out.status).toBe(2)
    expect(out.stderr).toContain('--port needs a port number from 1 to 65535')
  })

  it('npm start answers /healthz, serves the demo shop, and the README snippets run as written', async () => {
    const started = Date.now()
    const child = npm('start')
    await waitFor('http://127.0.0.1:8787/healthz', 120_000, child)
    expect(Date.now() - started).toBeLessThan(60_000)
    const res = await fetch('http://127.0.0.1:8787/healthz', {
      headers: { Authorization: `Bearer ${DEV_MERCHANT_KEY}` },
    })
    expect(await res.json()).toEqual({ ok: true, gateway: 'http://127.0.0.1:8788' })
    const demo = await fetch('http://127.0.0.1:8787/demo/')
    expect(demo.status).toBe(200)
    expect(await demo.text()).toContain('pay-checkout demo shop')
    // The shop is the demo Worker's; the product Worker behind it (8790) has none of it.
    expect((await fetch('http://127.0.0.1:8790/healthz')).status).toBe(200)
    expect((await fetch('http://127.0.0.1:8790/demo/')).status).toBe(404)
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    // `<!-- readme-test -->` blocks must print a session id; `<!-- readme-test: TEXT -->` blocks TEXT.
    const blocks = [...readme.matchAll(/<!-- readme-test(?:: (.+?))? -->\n```(sh|js)\n([\s\S]*?)```/g)].map((m) => ({
      expect: m[1],
      lang: m[2],
      code: m[3] ?? '',
    }))
    expect(blocks.length).toBeGreaterThanOrEqual(3)
    for (const block of blocks) {
      const out =
        block.lang === 'sh'
          ? execFileSync('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: root, encoding: 'utf8' })
          : execFileSync(process.execPath, ['--input-type=module', '-e', block.code], { cwd: root, encoding: 'utf8' })
      if (block.expect) expect(out, block.code.slice(0, 60)).toContain(block.expect)
      else expect(out, block.code.slice(0, 60)).toMatch(/cs_[A-Za-z0-9]{24}/)
    }
  })
})
