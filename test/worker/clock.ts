/**
 * Time, as a Durable Object sees it. Tests cannot wait for a session's 30 minutes or an
 * inquiry's backoff, so they make the object's scheduled tasks due now (and, to expire, its own
 * clock run out) and run its alarm: exactly what the passing of time would do.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { vi } from 'vitest'

/**
 * Makes every task of the object due now and runs its alarm ("time passes"). `expire`: the
 * session's own time is up too, and its expiry task due (set if it had none: a test of what a
 * session's expiry does); `'clock'`: only its time is up, and only the tasks it has run (a test
 * that the object kept its expiry task). With either, the QR codes it issued can no longer be paid
 * either (their lifetime, `QR_TTL_MS` from their issue, is over), unless `codesPayable`.
 */
export async function timePasses(
  stub: DurableObjectStub,
  expire: boolean | 'clock' = false,
  { codesPayable = false } = {},
): Promise<void> {
  await runInDurableObject(stub, async (instance, state) => {
    const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
    const now = Date.now()
    for (const name of Object.keys(tasks)) if (name !== 'purge') tasks[name] = now - 1
    if (expire) {
      await timeIsUp(instance, state, { codesPayable })
      if (expire === true) tasks.expire = now - 1
    }
    await state.storage.put('tasks', tasks)
    // The alarm is run here, below; one set for now would also fire by itself, and the test could
    // read the object while that one runs. Set later, only this call runs it (the tasks are due).
    await state.storage.setAlarm(now + 3_600_000)
  })
  await runDurableObjectAlarm(stub)
}

/**
 * A session's own time is up (and the QR codes it issued can no longer be paid, unless
 * `codesPayable`), in its storage and in the instance's copy; nothing runs.
 */
async function timeIsUp(instance: unknown, state: DurableObjectState, { codesPayable = false } = {}): Promise<void> {
  const now = Date.now()
  const session = (instance as { session?: Lifetimes }).session ?? (await state.storage.get<Lifetimes>('session'))
  if (!session) return
  session.expiresAt = now - 1
  if (!codesPayable) for (const code of Object.values(session.codeAsks ?? {})) code.at = now - 1
  await state.storage.put('session', session)
}

/** The session's time is up, and nothing else happens (its expiry task waits where it was). */
export const sessionTimeIsUp = (stub: DurableObjectStub): Promise<void> =>
  runInDurableObject(stub, (instance, state) => timeIsUp(instance, state))

/** The times of a session record that time passing ends. */
interface Lifetimes {
  expiresAt: number
  codeAsks?: Record<string, { at: number }>
}

/**
 * The record's retention ends (its purge is due; nothing else is hurried) and its alarm runs:
 * whether the object forgets the session then (`true`) or keeps it.
 */
export async function retentionEnds(stub: DurableObjectStub): Promise<boolean> {
  await runInDurableObject(stub, async (_instance, state) => {
    const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
    tasks.purge = Date.now() - 1
    await state.storage.put('tasks', tasks)
    await state.storage.setAlarm(Date.now() + 3_600_000)
  })
  await runDurableObjectAlarm(stub)
  return runInDurableObject(stub, async (_instance, state) => (await state.storage.get('session')) === undefined)
}

/**
 * Holds the object's time: every task (but its purge) waits an hour, until `timePasses` makes it
 * due. A test that looks at a state in between (a capture still unknown) is not raced by the
 * object's own inquiry.
 */
export async function timeStandsStill(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, async (_instance, state) => {
    const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
    const later = Date.now() + 3_600_000
    for (const name of Object.keys(tasks)) if (name !== 'purge') tasks[name] = later
    await state.storage.put('tasks', tasks)
    await state.storage.setAlarm(later)
  })
}

/**
 * Lets time pass until the object has nothing left to do but forget (its purge) and write its
 * search index row (a job that waits for newer changes, which `timePasses` does not hurry), at
 * most `max` times: what `max` calls of `timePasses` would do, without the calls that find
 * nothing due.
 */
export async function settles(stub: DurableObjectStub, max = 20): Promise<void> {
  for (let i = 0; i < max && (await hasWork(stub)); i++) await timePasses(stub)
}

async function hasWork(stub: DurableObjectStub): Promise<boolean> {
  return runInDurableObject(stub, async (_instance, state) => {
    const tasks = Object.keys((await state.storage.get<Record<string, number>>('tasks')) ?? {}).filter(
      (name) => name !== 'purge',
    )
    if (tasks.some((name) => name !== 'jobs')) return true
    if (tasks.length === 0) return false
    const now = Date.now()
    return [...(await state.storage.list<{ next: number }>({ prefix: 'job:' })).values()].some((job) => job.next <= now)
  })
}

/** The gateway addresses the Worker calls while `run` runs (time passing: the object's due tasks). */
export async function gatewayCallsWhile(run: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(globalThis, 'fetch')
  try {
    await run()
    return spy.mock.calls
      .map((c) => String(c[0] instanceof Request ? c[0].url : c[0]))
      .filter((url) => url.startsWith(env.GATEWAY_BASE_URL))
  } finally {
    spy.mockRestore()
  }
}
