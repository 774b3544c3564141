/**
 * @module
 * The demo shop's own memory (development only): the sessions it created and the webhooks it
 * received, as a merchant's backend would keep them.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'

export interface ReceivedWebhook {
  readonly id: string
  readonly type: string
  readonly receivedAt: string
  readonly verified: boolean
  readonly data: Record<string, unknown>
}

const MAX = 100

export class DemoShop extends DurableObject<Env> {
  async addOrder(order: { sessionId: string; kind: string; createdAt: string }): Promise<void> {
    const orders = (await this.ctx.storage.get<(typeof order)[]>('orders')) ?? []
    await this.ctx.storage.put('orders', [order, ...orders].slice(0, MAX))
  }

  async orders(): Promise<{ sessionId: string; kind: string; createdAt: string }[]> {
    return (await this.ctx.storage.get('orders')) ?? []
  }

  /** Stores a verified webhook once per event id (at-least-once delivery, processed once). */
  async addWebhook(hook: ReceivedWebhook): Promise<boolean> {
    const hooks = (await this.ctx.storage.get<ReceivedWebhook[]>('webhooks')) ?? []
    if (hooks.some((h) => h.id === hook.id)) return false
    await this.ctx.storage.put('webhooks', [hook, ...hooks].slice(0, MAX))
    return true
  }

  async webhooks(): Promise<ReceivedWebhook[]> {
    return (await this.ctx.storage.get('webhooks')) ?? []
  }
}
