/**
 * The ports the test stacks and `npm start` choose for their `wrangler dev`s. A port is chosen
 * seconds before wrangler binds it; if the OS may meanwhile give it to an outgoing connection (a
 * test run makes thousands to 127.0.0.1), wrangler fails with "Address already in use", as one CI
 * run did.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { freePort, root } from '../../tools/stacks.mjs'

/** The OS's range for ports it picks itself (Linux; elsewhere it starts at 49152). */
function ephemeralRange(): [number, number] {
  const file = '/proc/sys/net/ipv4/ip_local_port_range'
  if (!existsSync(file)) return [49152, 65535]
  const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)
  return [low!, high!]
}

describe('freePort', () => {
  it('hands out ports outside the range the OS gives outgoing connections, each once, and listenable', async () => {
    const [low, high] = ephemeralRange()
    const ports: number[] = []
    for (let i = 0; i < 200; i++) ports.push(await freePort())
    expect(new Set(ports).size).toBe(ports.length)
    for (const port of ports) expect(port < low || port > high, `port ${port}`).toBe(true)
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(ports[0], '127.0.0.1', resolve)
    })
    server.close()
  })

  it('never hands two processes the same port (test files run in processes of their own)', async () => {
    const script = `import { freePort } from ${JSON.stringify(join(root, 'tools/stacks.mjs'))}
      const ports = []; for (let i = 0; i < 300; i++) ports.push(await freePort()); console.log(JSON.stringify(ports))`
    const other = new Promise<number[]>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], (e, out) =>
        e ? reject(e) : resolve(JSON.parse(out) as number[]),
      ),
    )
    const mine: number[] = []
    for (let i = 0; i < 300; i++) mine.push(await freePort())
    const theirs = await other
    expect(theirs).toHaveLength(300)
    expect(theirs.filter((p) => mine.includes(p))).toEqual([])
  })
})
