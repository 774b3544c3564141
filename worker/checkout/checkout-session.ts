/**
 * @module
 * One checkout session per Durable Object. Every state change happens here, one at a time, and is
 * written before any gateway call (an outbound fetch lets other requests in: SECURITY.md R14), so
 * concurrent submits make exactly one charge, a succeeded session is never charged again, and a
 * charge whose answer never came is resolved by status inquiry from the alarm, never re-sent.
 *
 * The state machine and who may move it are in `sessions/types.ts` (and the README's "States").
 * Each change is written together with the merchant event that tells of it (`move`), so every
 * change is told exactly once, with an id that derives from the change.
 *
 * This object keeps the session (load, save, move), its tasks and its lifecycle. The rest is in
 * modules it hands itself to as a `SessionCore`: `attempt.ts` (the gate, keys, outcomes),
 * `inquiry.ts`, `notifications.ts`, and one module per way to pay in `methods/`, each with its row
 * in `methods/table.ts`. Its public methods are its RPC surface, the only way routes reach it.
 */
import { merchantStatusOf } from '../merchants/merchant-env.ts'
import type { Notification } from '../../shared/types.ts'
import { retentionMs } from '../env-vars.ts'
import { log } from '../log.ts'
import { paymentOfSession } from '../payments/opening.ts'
import { sessionIndexJob } from '../search/rows.ts'
import { secretMatches } from '../access.ts'
import type { Admission, PayAnswer, PayRequest } from '../sessions/pay-request.ts'
import type { Reply } from '../reply.ts'
import { registrationEvent, setupOnChange, setupUnsettled, SETUP_VOID_TASK, voidStep } from '../sessions/setup.ts'
import { TaskedObject, type TaskTimers } from '../sessions/tasked-object.ts'
import {
  checkoutView,
  EVENT_OF,
  isFinal,
  isInFlight,
  offers,
  canMove,
  codesAfterEnd,
  codesUnasked,
  nextCodeAsk,
  moneyMayMove,
  type CheckoutView,
  type MerchantView,
  type SessionInput,
  type SessionRecord,
  type Status,
} from '../sessions/types.ts'
import { MINUTE_MS, type SessionCore } from './core.ts'
import { merchantView } from './merchant-view.ts'
import { becomeUnknown, confirmReturn, inquire } from './inquiry.ts'
import { askAboutStrays, STRAY_TASK, watchStrays } from './strays.ts'
import { pay } from './methods/card.ts'
import {
  askAboutInvoice,
  invoiceAtExpiry,
  invoiceUnasked,
  regenerateAgain,
  regenerateInvoice,
} from './methods/invoice.ts'
import { codesAtExpiry, complete, verify } from './methods/qr.ts'
import { settleFromNotification, type NotificationResult } from './notifications.ts'
import {
  askForCard,
  learnRegistration,
  registrationAsked,
  registrationOnSuccess,
  REGISTRATION_TASK,
} from './registration.ts'

export type { PayInput } from './methods/card.ts'
export type { NotificationResult } from './notifications.ts'

const DAY_MS = 24 * 60 * MINUTE_MS

/**
 * At the session's expiry, each way to pay that may have taken money whose notification was lost
 * (QR codes shown, an issued invoice) is asked in turn: true when none did and none is to be asked
 * again, so the session may expire. An invoice and QR codes can both be the session's: a code shown
 * before the invoice was issued stays payable by a wallet. The codes go first: each is asked once
 * a wallet can no longer pay it, then until the gateway says (`codesAsked`), within the hour, where
 * an invoice may be asked again for days.
 */
async function nothingTakenAtExpiry(core: SessionCore, s: SessionRecord): Promise<boolean> {
  for (const ask of [codesAtExpiry, invoiceAtExpiry]) if ((await ask(core, s)) !== 'unpaid') return false
  return true
}

export class CheckoutSession extends TaskedObject {
  protected readonly binding = 'SESSIONS' as const
  private session?: SessionRecord
  /** This object as its modules use it (see `SessionCore`). */
  readonly #core: SessionCore = ((self) => ({
    // Read when used: the object takes its merchant's configuration after construction.
    get env() {
      return self.env
    },
    ctx: this.ctx,
    load: () => this.load(),
    save: (s, also) => this.save(s, also),
    move: (s, to, also, timers) => this.move(s, to, also, timers),
    commit: (owner, seq, entries, events, jobs) => this.commit(owner, seq, entries, events, jobs),
    schedule: (name, at, earliest) => this.schedule(name, at, earliest),
    cancel: (name) => this.cancel(name),
    memory: { lastReturnInquiry: 0 },
  }))(this)

  private async load(): Promise<SessionRecord | undefined> {
    this.session ??= await this.ctx.storage.get<SessionRecord>('session')
    return this.session
  }

  /** Writes the session without a change of state (ids, counters, details). */
  private async save(s: SessionRecord, also: Record<string, unknown> = {}): Promise<void> {
    s.updatedAt = Date.now()
    this.session = s
    await this.ctx.storage.put({ ...also, session: s })
  }

  /**
   * Moves the session if the state machine allows it, writing the event of the change in the same
   * batch, with the tasks it sets or ends (`timers`, and those its new state ends). Moving to the
   * state it is in changes nothing and tells nothing.
   */
  private async move(
    s: SessionRecord,
    to: Status,
    also: Record<string, unknown> = {},
    timers: TaskTimers = {},
  ): Promise<boolean> {
    const from = s.status
    if (from === to || !canMove(from, to)) {
      if (from !== to) log.warn('transition_refused', { session: s.id, from, to })
      await this.save(s, also)
      for (const [name, at] of Object.entries(timers))
        await (at === undefined ? this.cancel(name) : this.schedule(name, at))
      return false
    }
    s.status = to
    s.seq += 1
    s.updatedAt = Date.now()
    this.session = s
    // With the change: its search index row, and on success the payment's own record and that
    // record's first index row (jobs: payments/opening.ts). A
    // setup's success instead starts the void of its authorisation and tells its registration.
    const setupEvents = setupOnChange(s, to)
    // A card session's success that does not know the card its payment saved asks for it.
    const registration = to === 'succeeded' ? registrationOnSuccess(s) : {}
    const jobs = [sessionIndexJob(s), ...(to === 'succeeded' ? paymentOfSession(s) : [])]
    // What the new state ends: a settled payment needs no inquiry or watchdog, a final one no
    // expiry, but for a session that ended with QR codes a wallet may still pay: its expiry asks
    // about them once it no longer can (methods/qr.ts), as that of a session still open would.
    const ended: TaskTimers = {
      ...(isInFlight(to) ? {} : { inquiry: undefined, watchdog: undefined }),
      ...(isFinal(to) ? { expire: codesAfterEnd(s) ? nextCodeAsk(s) : undefined } : {}),
    }
    await this.commit(
      s.id,
      s.seq,
      { ...also, session: s },
      [{ type: EVENT_OF[to], data: { ...merchantView(s), previousStatus: from, sequence: s.seq } }, ...setupEvents],
      jobs,
      {
        ...ended,
        ...(to === 'succeeded' && s.setup ? { [SETUP_VOID_TASK]: Date.now() } : {}),
        ...registration,
        ...timers,
      },
    )
    // An attempt it leaves behind whose money may still move is asked about (strays.ts).
    await watchStrays(this.#core, s)
    // Open again past its time (its expiry waited for the payment, or has QR codes to ask about
    // first: afterNoCharge): the expiry runs now.
    if ((to === 'open' || to === 'declined') && Date.now() >= s.expiresAt)
      await this.schedule('expire', Date.now(), true)
    return true
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  async create(
    input: SessionInput & { id: string; clientSecretHash: string; merchant: string },
  ): Promise<MerchantView> {
    const { merchant, ...fields } = input
    if (!(await this.belongTo(merchant))) throw new Error('a new session id named an object of another merchant')
    const now = Date.now()
    const s: SessionRecord = {
      ...fields,
      createdAt: now,
      updatedAt: now,
      status: 'open',
      attempts: [],
      inquiries: 0,
      seq: 0,
    }
    this.session = s
    await this.commit(s.id, s.seq, { session: s }, [], [sessionIndexJob(s)])
    await this.schedule('expire', s.expiresAt)
    // Kept the retention of personal data after creation, with its idempotency keys, then deleted.
    await this.schedule('purge', now + retentionMs(this.env))
    return merchantView(s)
  }

  /**
   * Everything a browser request needs in one round trip: the allowed origins (for the CORS
   * decision, which comes first) and the merchant whose configuration decides them, and the
   * checkout view only when the client secret matches (constant-time, against the stored hash:
   * SECURITY.md R2), with the customer the session holds (which the view drops once the session is
   * final), for reading a pay as the session reads it (`payInputOf`), and the registration of the
   * saved card it offers (whose deletion the shopper's view is checked for). Undefined: no such
   * session.
   */
  async access(clientSecret: string | undefined): Promise<
    | {
        origins: readonly string[]
        merchant: string
        view?: CheckoutView
        customer?: SessionRecord['customer']
        savedCardRegistration?: string
      }
    | undefined
  > {
    await this.fresh()
    const s = await this.load()
    // A disabled merchant's checkouts are gone for shoppers (what is under way still settles).
    if (!s || merchantStatusOf(this.env) === 'disabled') return undefined
    const seen = { origins: s.allowedOrigins, merchant: await this.merchant() }
    return (await secretMatches(clientSecret, s.clientSecretHash))
      ? {
          ...seen,
          view: checkoutView(s, Date.now()),
          customer: s.customer,
          ...(offers(s, 'saved-card') && s.registrationId ? { savedCardRegistration: s.registrationId } : {}),
        }
      : seen
  }

  /** The merchant's view of the session, for `merchant` only: another merchant finds nothing. */
  async merchantView(merchant: string): Promise<MerchantView | undefined> {
    const s = await this.load()
    return s && (await this.merchant()) === merchant ? merchantView(s) : undefined
  }

  protected async runTask(name: string): Promise<void> {
    const s = await this.load()
    if (name === 'purge') {
      // A payment still in flight, or an invoice still payable or not yet asked about at its
      // expiry, keeps its record: the money it may take must still find its session. So do QR
      // codes a wallet may have paid, until they are asked about (an open session past its time
      // waits for them too), and a session still asking for the card its payment saved (its
      // repeats wait for it). Asked again a day later.
      if (
        s &&
        (isInFlight(s.status) ||
          moneyMayMove(s) ||
          Date.now() < s.expiresAt ||
          setupUnsettled(s) ||
          invoiceUnasked(s) ||
          codesUnasked(s).length > 0 ||
          registrationAsked(s))
      ) {
        // An attempt whose money may still move is asked about, and so are the codes (a record
        // from before those tasks).
        await watchStrays(this.#core, s)
        if (codesUnasked(s).length > 0) await this.schedule('expire', nextCodeAsk(s), true)
        return this.schedule('purge', Date.now() + DAY_MS)
      }
      // So do the merchant's events it has not taken yet (its final one among them).
      if (s && (await this.deliveriesHold())) return this.schedule('purge', Date.now() + DAY_MS)
      await this.ctx.storage.deleteAll()
      this.session = undefined
      return
    }
    if (!s) return
    if (name === 'expire') {
      // Expiry closes only a session with no payment in flight; one in flight settles first, and
      // so does a payment it moved on from (strays.ts ends the session once those settle; the
      // expiry makes sure they are asked about, a record from before that task included). An
      // invoice being issued is waited for, and one issued may have been paid with its
      // notification lost: the gateway is asked first (methods/invoice.ts); so are QR codes shown
      // that no completion of ours carried, which a wallet may have paid (methods/qr.ts).
      if ((s.status === 'open' || s.status === 'declined') && Date.now() >= s.expiresAt) {
        if (moneyMayMove(s)) await watchStrays(this.#core, s)
        else if (await nothingTakenAtExpiry(this.#core, s)) await this.move(s, 'expired')
      } else if (codesAfterEnd(s)) await codesAtExpiry(this.#core, s)
      // Due early (set sooner for a QR code's ask, a record from before): its time stays.
      else if (s.status === 'open' || s.status === 'declined') await this.schedule('expire', s.expiresAt, true)
    } else if (name === 'watchdog') {
      // The Worker went away mid-call: whatever happened upstream is unknown until asked.
      if (s.status === 'processing') await becomeUnknown(this.#core, s)
    } else if (name === 'inquiry') {
      await inquire(this.#core, s)
    } else if (name === STRAY_TASK) {
      await askAboutStrays(this.#core, s)
    } else if (name === 'regenerate') {
      await regenerateAgain(this.#core, s)
    } else if (name === SETUP_VOID_TASK) {
      await this.settleSetup(s)
    } else if (name === REGISTRATION_TASK) {
      await learnRegistration(this.#core, s)
    }
  }

  /**
   * A setup's authorisation is voided, from the alarm, until the gateway says it is (setup.ts);
   * a registrationId the success did not carry (a notification settled it) is asked for first.
   */
  private async settleSetup(s: SessionRecord): Promise<void> {
    if (!setupUnsettled(s)) return
    if (!s.registrationTold && !s.createdRegistrationId && s.paymentId) await askForCard(this.#core, s, s.paymentId)
    if (!s.registrationTold && s.createdRegistrationId) {
      s.seq += 1
      await this.commit(s.id, s.seq, { session: s }, registrationEvent(s))
    }
    const step = await voidStep(this.env, s, () => this.save(s))
    await this.save(s)
    if (!step.done) await this.schedule(SETUP_VOID_TASK, step.at)
  }

  // ---- the ways to pay, and what settles them (RPC; each in its own module) ----------------

  /** A browser's card or saved-card pay (methods/card.ts). */
  async pay(req: PayRequest & { readonly admission: Admission }): Promise<PayAnswer> {
    await this.fresh()
    return pay(this.#core, req)
  }

  async qrVerify(shopper: { walletId: string; givenName: string; surname: string; email: string }): Promise<Reply> {
    await this.fresh()
    return verify(this.#core, shopper)
  }

  async qrComplete(idempotencyKey: string): Promise<Reply> {
    await this.fresh()
    return complete(this.#core, idempotencyKey)
  }

  /** Regenerates the session's invoice once; a second call answers the same invoice. */
  async regenerateInvoice(returnPage?: string): Promise<Reply> {
    await this.fresh()
    return regenerateInvoice(this.#core, returnPage)
  }

  /** The shopper came back from 3-D Secure or a hosted page (inquiry.ts). */
  async confirmReturn(): Promise<
    (NonNullable<Awaited<ReturnType<typeof confirmReturn>>> & { merchant: string }) | undefined
  > {
    await this.fresh()
    // Back from the invoice's page: whether it was paid is asked, as for a payment in flight.
    const confirmed = await confirmReturn(this.#core, (s) =>
      invoiceUnasked(s) ? () => askAboutInvoice(this.#core, s) : undefined,
    )
    return confirmed && { ...confirmed, merchant: await this.merchant() }
  }

  /** A notification whose checksum the route verified. Settles the session only if it is its own. */
  async settleFromNotification(n: Notification): Promise<NotificationResult> {
    await this.fresh()
    return settleFromNotification(this.#core, n)
  }
}
