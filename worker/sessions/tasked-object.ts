/**
 * @module
 * A Durable Object base with named tasks on its one alarm, and an outbox of merchant webhooks.
 * Checkout sessions and merchant operations both need "do this later, even if the Worker
 * restarts" and "tell the merchant exactly once", so they live here once.
 *
 * The outbox: a state change and the event that tells of it are written in one storage batch
 * (`commit`), so neither exists without the other. An event's id derives from the change (the
 * owner, a profile's merchant, and its change number), so the same change always carries the same id. Events are
 * delivered at least once, in the order of the changes, one owner at a time: a failed delivery
 * holds the later ones back until it goes through.
 *
 * Besides events, a change may carry jobs (`Job`, worker/outbox/jobs.ts): work for other parts of
 * the system that must follow the change even if this object is evicted right after it, such as
 * upserting the search index row (D1) or opening the Payment object of a paid session. They are
 * written in the same batch as the change and run after it: one due at once (a payment's record) by
 * this object a moment after the write (or by a webhook delivery that comes sooner), the others by
 * the alarm (an index row a moment later, replaced by a newer change's row while it waits:
 * `jobPlace`, in the run already planned when there is one); the alarm also runs any job the
 * first run did not finish. They are retried with
 * backoff (1 s doubling to 5 minutes) until they succeed. Jobs are idempotent and carry the
 * change number, so they may run more than once and in any order, but for one that waits while
 * another of the same outbox does (`after`: a payment's first index row for its record's
 * opening); they never hold back events (a delivery waits a moment at most for the payments'
 * openings and setup marks already due), and events never hold them back.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { sha256Hex } from '../ids.ts'
import { log } from '../log.ts'
import { JOB_HANDLERS, jobPlace, type Job } from '../outbox/jobs.ts'
import type { EventType } from '../../shared/webhooks/events.ts'
import { signatureHeader, type WebhookEvent } from '../../shared/webhooks/sign.ts'
import { numberVar } from '../env-vars.ts'
import { webhookSecrets } from '../secrets.ts'
import { merchantEnv } from '../merchants/merchant-env.ts'
import { DEFAULT_MERCHANT } from '../merchants/profiles.ts'
import { deliveryLinks, type DeliveryStatus, type OwnerBinding } from '../webhooks/deliveries.ts'

type Tasks = Record<string, number>
/** Tasks a change sets (at a time) or ends (undefined) with its own write. */
export type TaskTimers = Readonly<Record<string, number | undefined>>

interface OutboxItem {
  readonly event: WebhookEvent
  readonly body: string
  /** When the change queued it (ms; the event's `created` is in seconds): a delivery's place on a timeline. */
  readonly queuedAt?: number
  tries: number
  next: number
}

interface JobItem {
  readonly job: Job
  tries: number
  next: number
  /** The change that queued it: a slot's newer change may replace it while it runs. */
  readonly seq: number
}

/** An event to write with a change: its type and payload; the id comes from the change. */
export interface PendingEvent {
  readonly type: EventType
  readonly data: Record<string, unknown>
}

const MAX_BACKOFF_MS = 60 * 60_000
/** How long events wait for a merchant's address to be set again, tried hourly. */
const UNADDRESSED_WAIT_MS = 30 * 24 * 60 * 60_000
/**
 * How long a record past its retention is kept for its own deliveries (events its merchant has not
 * taken yet, jobs not yet done), from the first purge they held up or the newest event: a month,
 * as events wait for an address.
 */
export const DELIVERY_HOLD_MS = UNADDRESSED_WAIT_MS
/** When the first purge was held up for deliveries. */
const HELD_SINCE = 'purge:held-since'
const OUTBOX = 'outbox:'
const JOBS = 'job:'
const JOB_RETRY_BASE_MS = 1_000
/**
 * A job due at once runs right after its change is written, not from an alarm; the alarm runs it
 * if the object stops first, set this much later at the latest (another job of the change, an index
 * row a second later, sets it sooner). Two runs may then overlap: jobs are idempotent, and a job
 * one run finished is not written back by the other (`runJobs`). "Right after" is a moment after
 * the write (`AFTER_ANSWER_MS`), by when the call that made the change has answered in practice,
 * so a pay's answer does not wait while its payment's record opens (the job is on disk with the
 * change either way).
 */
const JOB_SAFETY_NET_MS = 10_000
/**
 * How long a job due at once, and a change's webhook delivery, wait for the call that queued them
 * to answer. Not the next turn (a timer of 0): a pay still writes its Idempotency-Key's answer
 * after its change, such a timer can fire at that write's await, and the payment's record then
 * opened first: where the objects share a thread (every local run), the shopper's answer waited
 * while workerd created the record's object (in-process, three A/B rounds of 200 pays: +10.56 /
 * +9.95 / +9.46 ms p50 became +8.71 / +8.81 / +8.59). A delivery's alarm due at once did the same
 * with a webhook URL set (the product beyond the ledger floor, three A/B rounds: +4.93 / +4.96 /
 * +4.53 ms p50 became +2.67 / +2.85 / +2.73, as without a webhook URL).
 */
const AFTER_ANSWER_MS = 20
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
/** How long an object's webhook delivery waits, at most, for the payments' openings already due. */
const OPENINGS_WAIT_MS = 2_000
/** Jobs back off up to this interval: how far behind an index can fall once its store is back. */
export const JOB_MAX_BACKOFF_MS = 5 * 60_000

/** The event id of change number `seq` of `owner`: the same change, the same id. */
export async function eventId(owner: string, seq: number, type: string): Promise<string> {
  return `evt_${(await sha256Hex(`${owner}|${seq}|${type}`)).slice(0, 24)}`
}

/** The storage key naming the merchant profile an object belongs to (absent: the default merchant). */
const MERCHANT = 'merchant'

/**
 * The tasks an alarm's run has begun and not finished, one storage key each
 * (`tasks:begun:<run>:<task>`): a run cut short (the object reset by a deploy or an eviction)
 * leaves its keys, and the next run takes those tasks up again. Keyed by run, so that two runs of
 * one instance (the resume firing during a long task) neither take nor clear each other's.
 */
const BEGUN = 'tasks:begun:'
/** Consecutive alarm runs that could not start (storage key): the merchant's profile unreadable. */
const DEFERRED = 'tasks:deferred'
/**
 * Every run, once it has begun its tasks, sets the alarm this far on, so a run that does not
 * finish is taken up again by the object itself: the runtime retries an alarm that failed only a
 * few times, then drops it. A run that ends sets the alarm as its tasks say. One that could not
 * start backs off, doubling up to an hour (a profile deleted for good is asked hourly, not every
 * half-minute).
 */
const RESUME_MS = 30_000

export abstract class TaskedObject extends DurableObject<Env> {
  /**
   * An object belongs to the merchant that created it, for its whole life: from the first request
   * of each instance on, `this.env` is that merchant's configuration (its gateway credentials,
   * webhook URL and secrets: worker/merchants/merchant-env.ts), alarms included.
   */
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#base = env
    void ctx.blockConcurrencyWhile(async () => {
      this.#merchant = await ctx.storage.get<string>(MERCHANT)
      await this.fresh()
    })
  }

  /** The deployment's own configuration, and the profile this object belongs to (none: the default merchant). */
  readonly #base: Env
  #merchant: string | undefined

  /**
   * Brings the merchant's configuration up to date (at most FRESH_MS old: merchant-env.ts): the
   * first step of every call into the object and of its alarm, so a profile's change (a disable, a
   * rotated secure key, a retired webhook secret) holds here too.
   */
  protected async fresh(): Promise<void> {
    if (this.#merchant !== undefined) this.env = await merchantEnv(this.#base, this.#merchant)
  }

  /**
   * Makes a new object the merchant's (its creation's first step). False when it already belongs
   * to another: the caller must not touch it.
   */
  protected async belongTo(merchant: string): Promise<boolean> {
    const held = (await this.ctx.storage.get<string>(MERCHANT)) ?? DEFAULT_MERCHANT
    if (held !== DEFAULT_MERCHANT || merchant === DEFAULT_MERCHANT) return held === merchant
    if ((await this.ctx.storage.list({ limit: 1 })).size > 0) return false
    await this.ctx.storage.put(MERCHANT, merchant)
    this.#merchant = merchant
    await this.fresh()
    return true
  }

  /** The merchant this object belongs to. */
  async merchant(): Promise<string> {
    // Read from storage when the object starts and kept with each change (belongTo).
    return Promise.resolve(this.#merchant ?? DEFAULT_MERCHANT)
  }

  /** Runs a task whose time has come. */
  protected abstract runTask(name: string): Promise<void>

  /**
   * Whether a purge due now waits for this object's own deliveries: an event its merchant has not
   * taken yet (a final one among them: money taken must reach the merchant once, whatever its
   * endpoint did for a week), or a job not done yet (the payment's record, a delivery's row). They
   * hold the record a month at most from the first purge they held up, or from the newest event
   * if later; then what is left is dropped with the record, and logged.
   */
  protected async deliveriesHold(): Promise<boolean> {
    // The jobs left run first, due or not: a week after the record's last change they would
    // have; one that fails again holds the record.
    await this.runJobs(() => true, true)
    const [outbox, jobs] = await Promise.all([
      this.ctx.storage.list<OutboxItem>({ prefix: OUTBOX }),
      this.ctx.storage.list<JobItem>({ prefix: JOBS }),
    ])
    if (outbox.size === 0 && jobs.size === 0) {
      await this.ctx.storage.delete(HELD_SINCE)
      return false
    }
    // The month runs from the first purge held up, or from the newest event if it came later (a
    // change after a hold ended gets its own month).
    const held = (await this.ctx.storage.get<number>(HELD_SINCE)) ?? Date.now()
    const newest = Math.max(0, ...[...outbox.values()].map((item) => item.queuedAt ?? item.event.created * 1000))
    if (Date.now() - Math.max(held, newest) >= DELIVERY_HOLD_MS) {
      log.error('deliveries_dropped', {
        owner: `${this.binding}:${this.ctx.id.toString()}`,
        events: [...outbox.values()].map((item) => item.event.id),
        jobs: [...jobs.values()].map((item) => item.job.kind),
      })
      return false
    }
    await this.ctx.storage.put(HELD_SINCE, held)
    // Tried again now, and each day the purge is asked again: events that outlived the month an
    // unaddressed outbox waits (its address set again since) are not left asleep.
    if (outbox.size > 0) await this.schedule('webhook', Date.now(), true)
    return true
  }

  /** The binding objects of this class are reached through (a webhook delivery's row names its owner by it). */
  protected abstract readonly binding: OwnerBinding

  /** Sets task `name` to run at `at`; `earliest` keeps a sooner time already set (by a commit meanwhile). */
  protected async schedule(name: string, at: number, earliest = false): Promise<void> {
    const tasks = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
    tasks[name] = earliest ? Math.min(tasks[name] ?? Infinity, at) : at
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
    // While a run has tasks begun, the alarm stays no later than the resume time: should that run
    // not finish, the object wakes for them (a run going on meanwhile leaves them to that run).
    // This instance's begun tasks are known here (not its runs: a run's own end arms the alarm
    // for what is left, with nothing of it begun); what a run cut short left is read once per
    // instance (this is on every commit's path), until a run takes it up.
    this.#left ??= (await this.ctx.storage.list({ prefix: BEGUN, limit: 1 })).size > 0
    const begun = this.#open.size > 0 || this.#left
    const next = Math.min(...Object.values(tasks), begun ? Date.now() + RESUME_MS : Infinity)
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next)
    else await this.ctx.storage.deleteAlarm()
  }

  override async alarm(): Promise<void> {
    const run = crypto.randomUUID()
    this.#runs.add(run)
    try {
      await this.#run(run)
    } finally {
      this.#runs.delete(run)
    }
  }

  /** The runs of its alarm this instance has going (a reset starts a new instance, with none). */
  readonly #runs = new Set<string>()
  /** The begun keys of this instance's runs whose tasks have not finished. */
  readonly #open = new Set<string>()
  /** Whether a run of an instance before this one left tasks begun (unread yet: undefined). */
  #left: boolean | undefined

  async #run(run: string): Promise<void> {
    try {
      await this.fresh()
    } catch (e) {
      // Nothing acts for a merchant without its configuration: every task waits, kept.
      const deferred = ((await this.ctx.storage.get<number>(DEFERRED)) ?? 0) + 1
      log.error('alarm_deferred', { owner: `${this.binding}:${this.ctx.id.toString()}`, deferred, error: e })
      await this.ctx.storage.put(DEFERRED, deferred)
      await this.ctx.storage.setAlarm(Date.now() + Math.min(RESUME_MS * 2 ** (deferred - 1), MAX_BACKOFF_MS))
      return
    }
    if ((await this.ctx.storage.get<number>(DEFERRED)) !== undefined) await this.ctx.storage.delete(DEFERRED)
    const [tasks = {}, begun] = await Promise.all([
      this.ctx.storage.get<Tasks>('tasks'),
      this.ctx.storage.list<number>({ prefix: BEGUN }),
    ])
    const now = Date.now()
    // Each task is safe to run again (a delivery is at least once, an inquiry only reads), so one a
    // run cut short had begun (not a run of this instance still going) runs again, with those due.
    const left = [...begun.keys()].filter((key) => !this.#runs.has(key.slice(BEGUN.length, BEGUN.length + 36)))
    // Taken up by this run (written below): nothing left over from before, from now on.
    this.#left = false
    // The purge last: it may forget the whole object.
    const due = [
      ...new Set([
        ...left.map((key) => key.slice(BEGUN.length + 37)),
        ...Object.entries(tasks)
          .filter(([, at]) => at <= now)
          .map(([name]) => name),
      ]),
    ].sort((a, b) => Number(a === 'purge') - Number(b === 'purge'))
    if (due.length === 0) return this.armAlarm(tasks)
    // A task begun by a run cut short keeps the later time it had set itself (its watchdog).
    for (const name of due) if ((tasks[name] ?? Infinity) <= now) delete tasks[name]
    const mine = (name: string): string => `${BEGUN}${run}:${name}`
    // Issued together, with no wait between them: the left tasks are this run's from now on.
    const writes = [
      this.ctx.storage.put({ tasks, ...Object.fromEntries(due.map((name) => [mine(name), now])) }),
      ...(left.length > 0 ? [this.ctx.storage.delete(left)] : []),
    ]
    await Promise.all(writes)
    for (const key of left) this.#open.delete(key)
    for (const name of due) this.#open.add(mine(name))
    // Should this run not finish (the object reset: a deploy, an eviction), the object wakes for
    // what it began; the run's end sets the alarm as its tasks say.
    await this.ctx.storage.setAlarm(now + RESUME_MS)
    for (const name of due) {
      try {
        await (name === 'webhook' ? this.deliverWebhooks() : name === 'jobs' ? this.runJobs() : this.runTask(name))
      } catch (e) {
        log.error('task_failed', { task: name, error: e })
        // Try again shortly rather than lose the work.
        const retry = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
        retry[name] = Math.min(retry[name] ?? Infinity, Date.now() + 5_000)
        await this.ctx.storage.put('tasks', retry)
      }
      // Forgotten (its record purged): nothing is left to run, nor to wake it.
      if (name === 'purge' && (await this.ctx.storage.list({ limit: 1 })).size === 0) {
        this.#open.clear()
        return void (await this.ctx.storage.deleteAlarm())
      }
      await this.ctx.storage.delete(mine(name))
      this.#open.delete(mine(name))
    }
    await this.armAlarm((await this.ctx.storage.get<Tasks>('tasks')) ?? {})
  }

  /**
   * Writes a record, the events of its change number `seq` and its jobs in one storage batch, and
   * wakes the delivery. Without a webhook URL no event is queued (there is no one to tell); jobs
   * are always queued. `timers` sets (a time) or ends (undefined) tasks of the change in the same
   * batch and the same alarm: a pay that succeeds ends its watchdog with its change, not with
   * another write and another alarm after it.
   */
  protected async commit(
    owner: string,
    seq: number,
    entries: Record<string, unknown>,
    events: readonly PendingEvent[] = [],
    jobs: readonly Job[] = [],
    timers: TaskTimers = {},
  ): Promise<void> {
    const batch: Record<string, unknown> = { ...entries }
    const queued = this.env.MERCHANT_WEBHOOK_URL ? events : []
    if (queued.length === 0 && jobs.length === 0 && Object.keys(timers).length === 0) {
      await this.ctx.storage.put(batch)
      return
    }
    const tasks = (await this.ctx.storage.get<Tasks>('tasks')) ?? {}
    for (const [name, at] of Object.entries(timers)) {
      if (at === undefined) delete tasks[name]
      else tasks[name] = at
    }
    // Each queued event's delivery record starts as pending (a job, like the index rows).
    const recorded: Job[] = []
    if (queued.length > 0) {
      const created = Math.floor(Date.now() / 1000)
      for (const [i, e] of queued.entries()) {
        // A profile's ids carry the profile: two merchants' objects may have one owner (a payment
        // id one merchant's session was told of is another's too), never one event id.
        const named = this.#merchant === undefined ? owner : `${this.#merchant}/${owner}`
        const event: WebhookEvent = { id: await eventId(named, seq, e.type), type: e.type, created, data: e.data }
        const item: OutboxItem = {
          event,
          body: JSON.stringify(event),
          queuedAt: Date.now(),
          tries: 0,
          next: Date.now(),
        }
        batch[`${OUTBOX}${String(seq).padStart(10, '0')}:${i}`] = item
        recorded.push(this.deliveryJob(item, 'pending', null))
      }
      // Delivered a moment after the write too, as the jobs run: an alarm due at once fires while
      // the call that made the change still has writes to await, and its delivery (the payments'
      // openings, the outbox, the signature, the fetch) shares the object's thread with it.
      tasks.webhook = Math.min(tasks.webhook ?? Infinity, Date.now() + AFTER_ANSWER_MS)
    }
    let now = false
    // The job run already planned, if still to come: a job that may wait joins it when it comes
    // sooner than the job's own time (a pay's `processing` row plans a run a second on; its
    // result, a moment later, takes that row's place and is written in the same run, not in a
    // second alarm a few milliseconds after the first).
    const planned = tasks.jobs !== undefined && tasks.jobs > Date.now() ? tasks.jobs : Infinity
    for (const [i, job] of [...jobs, ...recorded].entries()) {
      const { slot, delayMs } = jobPlace(job)
      const next = delayMs === 0 ? Date.now() : Math.min(Date.now() + delayMs, planned)
      batch[`${JOBS}${slot ?? `${String(seq).padStart(10, '0')}:${i}`}`] = {
        job,
        tries: 0,
        next,
        seq,
      } satisfies JobItem
      // A job due at once runs right after this write (below); the alarm is its safety net.
      if (delayMs === 0) now = true
      tasks.jobs = Math.min(tasks.jobs ?? Infinity, delayMs === 0 ? next + JOB_SAFETY_NET_MS : next)
    }
    batch.tasks = tasks
    // No await between the two: workerd commits them together.
    const written = this.ctx.storage.put(batch)
    const armed = this.armAlarm(tasks)
    await Promise.all([written, armed])
    if (now)
      this.ctx.waitUntil(
        sleep(AFTER_ANSWER_MS)
          .then(() => this.runJobs())
          .catch((e: unknown) => log.error('task_failed', { task: 'jobs', error: e })),
      )
  }

  /**
   * Runs every due job (of the kinds `only` keeps; the others keep their time), or with `early`
   * every job, due or not; one that fails backs off alone and is tried again later.
   */
  private async runJobs(only: (job: Job) => boolean = () => true, early = false): Promise<void> {
    const items = await this.ctx.storage.list<JobItem>({ prefix: JOBS })
    let next = Infinity
    for (const [key, item] of items) {
      if ((!early && item.next > Date.now()) || !only(item.job)) {
        next = Math.min(next, item.next)
        continue
      }
      // Waits while the job it follows is still in this outbox (it may run later in this run).
      const { after } = jobPlace(item.job)
      const first = after === undefined ? undefined : await this.ctx.storage.get<JobItem>(`${JOBS}${after}`)
      if (first) {
        next = Math.min(next, Math.max(first.next, Date.now() + JOB_RETRY_BASE_MS))
        continue
      }
      let failed: unknown
      try {
        await JOB_HANDLERS[item.job.kind](this.env, item.job as never)
      } catch (e) {
        failed = e ?? new Error('job failed')
      }
      // Gone: another run (the one right after a commit, or the alarm's) finished it meanwhile.
      // A newer change's job that took this slot meanwhile stays, to run in its turn.
      const current = await this.ctx.storage.get<JobItem>(key)
      if (!current) continue
      if (current.seq !== item.seq) {
        next = Math.min(next, current.next)
        continue
      }
      if (failed === undefined) {
        await this.ctx.storage.delete(key)
        continue
      }
      item.tries += 1
      item.next = Date.now() + Math.min(JOB_MAX_BACKOFF_MS, JOB_RETRY_BASE_MS * 2 ** (item.tries - 1))
      log.warn('job_retry', { job: item.job.kind, tries: item.tries, error: failed })
      await this.ctx.storage.put(key, item)
      next = Math.min(next, item.next)
    }
    // A change committed while these ran may have asked for its jobs sooner: that time stays.
    if (Number.isFinite(next)) await this.schedule('jobs', next, true)
  }

  private async deliverWebhooks(): Promise<void> {
    const url = this.env.MERCHANT_WEBHOOK_URL
    const first = [...(await this.ctx.storage.list<OutboxItem>({ prefix: OUTBOX, limit: 1 })).values()][0]
    if (!first) return
    // Events queued while the merchant had an address, which is gone now (a profile's cleared):
    // they wait, and are tried again within the hour, so an address set again gets them without a
    // change of this object's own to wake it (nothing else would). Events of changes made while
    // there was no address are not queued. After a month the object stops waking for them ("send
    // again" still sends one).
    if (!url) {
      const since = first.queuedAt ?? first.event.created * 1000
      if (Date.now() - since < UNADDRESSED_WAIT_MS) await this.schedule('webhook', Date.now() + MAX_BACKOFF_MS)
      return
    }
    // A merchant told of a success looks its payment up (or repeats it): the payments' openings
    // and setup marks already due run first (they wait for the pay's answer, and this alarm may
    // come sooner), for a moment at most: one that fails backs off, and one slow to open holds no
    // event back for longer than that.
    const openings = this.runJobs((job) => job.kind === 'payment' || job.kind === 'setup')
    this.ctx.waitUntil(openings.catch((e: unknown) => log.error('task_failed', { task: 'jobs', error: e })))
    await Promise.race([openings.catch(() => undefined), sleep(OPENINGS_WAIT_MS)])
    // Read after the openings: a "send again" meanwhile is seen.
    const outbox = await this.ctx.storage.list<OutboxItem>({ prefix: OUTBOX })
    const base = numberVar(this.env.WEBHOOK_RETRY_BASE_MS, 10_000)
    // In change order; the first that cannot go yet holds back the rest (causal order).
    for (const [key, item] of outbox) {
      if (item.next > Date.now()) {
        await this.schedule('webhook', item.next)
        return
      }
      let delivered = false
      let answered: number | null = null
      const secrets = webhookSecrets(this.env)
      // No secret, no delivery: an unsigned event would be refused by every receiver anyway.
      if (secrets.length === 0) log.error('webhook_secret_missing', { eventId: item.event.id })
      else
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              'Pay-Signature': await signatureHeader(secrets, item.body),
              'Pay-Event-Id': item.event.id,
            },
            body: item.body,
            signal: AbortSignal.timeout(10_000),
            // Never followed: a redirect would take the signed event (or, as a GET, nothing of it) to
            // another address, and the target's 200 would count as delivered. A 3xx is a failed try.
            redirect: 'manual',
          })
          delivered = res.ok
          answered = res.status
          await res.body?.cancel()
        } catch {
          delivered = false
        }
      if (!delivered) {
        item.tries += 1
        item.next = Date.now() + Math.min(MAX_BACKOFF_MS, base * 2 ** (item.tries - 1))
        log.warn('webhook_retry', { eventId: item.event.id, tries: item.tries })
        // The item as stored now, not as read before the try: the retention's erasure may have
        // rewritten its body meanwhile (`eraseWaitingEvents`), which must not come back.
        const stored = await this.ctx.storage.get<OutboxItem>(key)
        if (stored) await this.ctx.storage.put(key, { ...stored, tries: item.tries, next: item.next })
        await this.recordDelivery(item, 'failing', answered)
        await this.schedule('webhook', item.next)
        return
      }
      item.tries += 1
      await this.ctx.storage.delete(key)
      await this.recordDelivery(item, 'delivered', answered)
    }
  }

  /**
   * The retention's erasure, in the events still waiting for the merchant: each keeps its id and
   * its place, and carries what `erase` leaves of its data, so a delivery after the retention (the
   * endpoint back after refusing for weeks) or a send-again never brings erased data back.
   */
  protected async eraseWaitingEvents(erase: (data: WebhookEvent['data']) => WebhookEvent['data']): Promise<void> {
    const outbox = await this.ctx.storage.list<OutboxItem>({ prefix: OUTBOX })
    const erased: Record<string, OutboxItem> = {}
    for (const [key, item] of outbox) {
      const event = { ...item.event, data: erase(item.event.data) }
      const body = JSON.stringify(event)
      if (body !== item.body) erased[key] = { ...item, event, body }
    }
    if (Object.keys(erased).length > 0) await this.ctx.storage.put(erased)
  }

  /**
   * Queues the record of where an event's delivery stands (worker/webhooks/deliveries.ts) as a
   * job: the delivery never waits on D1, and the record follows even if the object stops here.
   */
  private async recordDelivery(item: OutboxItem, status: DeliveryStatus, lastStatus: number | null): Promise<void> {
    const job = this.deliveryJob(item, status, lastStatus)
    const { slot, delayMs } = jobPlace(job)
    const at = Date.now()
    // A newer state of the same event takes the slot: `seq` tells a replaced job (runJobs).
    await this.ctx.storage.put(`${JOBS}${slot}`, { job, tries: 0, next: at + delayMs, seq: at } satisfies JobItem)
    await this.schedule('jobs', at + delayMs, true)
  }

  /** The job that writes where an event's delivery stands, as of now. */
  private deliveryJob(item: OutboxItem, status: DeliveryStatus, lastStatus: number | null): Job {
    return {
      kind: 'delivery',
      row: {
        eventId: item.event.id,
        type: item.event.type,
        ...deliveryLinks(item.event),
        status,
        tries: item.tries,
        lastStatus,
        nextAt: status === 'delivered' ? null : item.next,
        createdAt: item.queuedAt ?? item.event.created * 1000,
        version: Date.now(),
        owner: `${this.binding}:${this.ctx.id.toString()}`,
      },
    }
  }

  /**
   * The console's "send again" (worker/webhooks/deliveries.ts): an event of `merchant`'s still in
   * this object's outbox is tried at once, in its place (the order of this object's events holds).
   * `not_waiting`: it went through already (delivered events are not sent again); `not_found`:
   * this object is not the merchant's, or keeps nothing any more (its record was purged, and with
   * it an event a month of tries past the retention never delivered: not one that went through).
   */
  async sendAgain(merchant: string, eventId: string): Promise<'queued' | 'not_waiting' | 'not_found'> {
    await this.fresh()
    if ((this.#merchant ?? DEFAULT_MERCHANT) !== merchant) return 'not_found'
    const outbox = await this.ctx.storage.list<OutboxItem>({ prefix: OUTBOX })
    const waiting = [...outbox].find(([, item]) => item.event.id === eventId)
    if (!waiting) return (await this.ctx.storage.list({ limit: 1 })).size === 0 ? 'not_found' : 'not_waiting'
    const [key, item] = waiting
    const now = { ...item, next: Date.now() }
    await this.ctx.storage.put(key, now)
    await this.recordDelivery(now, 'pending', null)
    await this.schedule('webhook', Date.now(), true)
    return 'queued'
  }
}
