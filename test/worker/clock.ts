/**
 * Time, as a Durable Object sees it. Tests cannot wait for a session's 30 minutes or an
 * inquiry's backoff, so they make the object's scheduled tasks due now (and, to expire, its own
 * clock run out) and run its alarm: exactly what the passing of time would do.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'

/** Makes every task of the object due now and runs its alarm ("time passes"). */
export async function timePasses(stub: DurableObjectStub, expire = false): Promise<void> {
  await runInDurableObject(stub, async (instance, state) => {
    const tasks = (await state.storage.get<Record<string, number>>('tasks')) ?? {}
    const now = Date.now()
    for (const name of Object.keys(tasks)) if (name !== 'purge') tasks[name] = now - 1
    if (expire) {
      // The session's own clock: its time is up.
      const session = (instance as unknown as { session?: { expiresAt: number } }).session ?? (await state.storage.get<{ expiresAt: number }>('session'))
      if (session) {
        session.expiresAt = now - 1
        await state.storage.put('session', session)
      }
      tasks.expire = now - 1
    }
    await state.storage.put('tasks', tasks)
    await state.storage.setAlarm(now)
  })
  await runDurableObjectAlarm(stub)
}

