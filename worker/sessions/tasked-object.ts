/**
 * @module
 * A Durable Object base with named tasks on its one alarm, and an outbox of merchant webhooks
 * delivered at least once with backoff. Checkout sessions and merchant operations both need
 * "do this later, even if the Worker restarts", so it lives here once.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { newEventId } from '../ids.ts'
import { log } from '../log.ts'
import { signatureHeader, type WebhookEvent } from '../webhooks/sign.ts'

type Tasks = Record<string, number>

interface OutboxItem {
  readonly event: WebhookEvent
  readonly body: string
  tries: number
  next: number
}

const MAX_BACKOFF_MS = 60 * 60_000

export abstract class TaskedObject extends DurableObject<Env> {
  /** Runs a task whose time has come. */
  protected abstract runTask(name: string): Promise<void>

  protected async schedule(name: string, at: number): Promise<void> {
    const tasks = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
    tasks[name] = at
    await this.ctx.storage.put('tasks', tasks)
    await this.armAlarm(tasks)
  }

  protected async cancel(name: string): Promise<void> {
    const tasks = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
    if (!(name in tasks)) return
    delete tasks[name]
    await this.ctx.storage.put('tasks', tasks)
    await this.armAlarm(tasks)
  }

  private async armAlarm(tasks: Tasks): Promise<void> {
    const next = Math.min(...Object.values(tasks))
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next)
    else await this.ctx.storage.deleteAlarm()
  }

  override async alarm(): Promise<void> {
    const now = Date.now()
    const tasks = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
    const due = Object.entries(tasks).filter(([, at]) => at <= now).map(([name]) => name)
    for (const name of due) delete tasks[name]
    await this.ctx.storage.put('tasks', tasks)
    for (const name of due) {
      try {
        await (name === 'webhook' ? this.deliverWebhooks() : this.runTask(name))
      } catch (e) {
        log.error('task_failed', { task: name, error: e })
        // Try again shortly rather than lose the work.
        const retry = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
        retry[name] = Math.min(retry[name] ?? Infinity, Date.now() + 5_000)
        await this.ctx.storage.put('tasks', retry)
      }
    }
    await this.armAlarm((await this.ctx.storage.get<Tasks>('tasks')) ?? {})
  }

  /** Queues a signed webhook for the merchant; delivered at least once, in order, with backoff. */
  protected async enqueueWebhook(type: string, data: Record<string, unknown>): Promise<void> {
    if (!this.env.MERCHANT_WEBHOOK_URL) return
    const event: WebhookEvent = { id: newEventId(), type, created: Math.floor(Date.now() / 1000), data }
    const outbox = (await this.ctx.storage.get<OutboxItem[]>('outbox')) ?? []
    outbox.push({ event, body: JSON.stringify(event), tries: 0, next: Date.now() })
    await this.ctx.storage.put('outbox', outbox)
    await this.schedule('webhook', Date.now())
  }

  private async deliverWebhooks(): Promise<void> {
    const url = this.env.MERCHANT_WEBHOOK_URL
    let outbox = (await this.ctx.storage.get<OutboxItem[]>('outbox')) ?? []
    if (!url || outbox.length === 0) return
    const base = Number(this.env.WEBHOOK_RETRY_BASE_MS ?? '') || 10_000
    const now = Date.now()
    for (const item of outbox.filter((i) => i.next <= now)) {
      let delivered = false
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Pay-Signature': await signatureHeader(this.env.WEBHOOK_SECRET, item.body), 'Pay-Event-Id': item.event.id },
          body: item.body,
          signal: AbortSignal.timeout(10_000),
        })
        delivered = res.ok
        await res.body?.cancel()
      } catch {
        delivered = false
      }
      if (delivered) {
        outbox = outbox.filter((i) => i.event.id !== item.event.id)
      } else {
        item.tries += 1
        item.next = Date.now() + Math.min(MAX_BACKOFF_MS, base * 2 ** (item.tries - 1))
        log.warn('webhook_retry', { eventId: item.event.id, tries: item.tries })
      }
    }
    await this.ctx.storage.put('outbox', outbox)
    const next = Math.min(...outbox.map((i) => i.next))
    if (Number.isFinite(next)) await this.schedule('webhook', next)
  }
}
