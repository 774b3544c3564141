/**
 * @module
 * One saved card (gateway registration) per Durable Object, named by its registrationId: its
 * deletion at the gateway (`DL` on `paywithtoken/{registrationId}`, checksum
 * memberId|secureKey|registrationId), and the answer to "may a new saved-card session use it?".
 *
 * `active -> deleting -> deleted`. The card is refused for new sessions from the moment its
 * deletion is asked (`deleting`): a shopper must not start paying with a card the merchant is
 * removing. Deleting moves no money, so a call whose answer was lost is simply sent again from
 * the alarm (with a fresh token if needed) until the gateway answers; "no such registration"
 * counts as deleted, since nothing can pay with it either way.
 */
import { gatewayClient } from '../config.ts'
import { log } from '../log.ts'
import { fail, type Reply } from '../reply.ts'
import { TaskedObject } from '../sessions/tasked-object.ts'
import { askAgainInMs } from '../env-vars.ts'

export type RegistrationStatus = 'active' | 'deleting' | 'deleted'

interface RegistrationRecord {
  readonly registrationId: string
  status: RegistrationStatus
  seq: number
  tries: number
  resultCode?: string
  requestedAt: number
  deletedAt?: number
  /**
   * The gateway knew no such card for this merchant when asked: answered 404, and refused for
   * good; a deletion asked again with another key is sent again (the card may exist by then).
   */
  notFound?: true
}

export interface RegistrationView {
  readonly id: string
  readonly object: 'registration'
  readonly status: RegistrationStatus
  readonly resultCode: string | null
  readonly deletedAt: string | null
}

/** A deletion's answer: the registration as it now stands (`Reply`'s body), or the refusal. */
const deleted = (registration: RegistrationView, replayed = false): Reply => ({
  ok: true,
  body: registration,
  ...(replayed ? { replayed } : {}),
})

function view(r: RegistrationRecord): RegistrationView {
  return {
    id: r.registrationId,
    object: 'registration',
    status: r.status,
    resultCode: r.resultCode ?? null,
    deletedAt: r.deletedAt ? new Date(r.deletedAt).toISOString() : null,
  }
}

export class RegistrationObject extends TaskedObject {
  protected readonly binding = 'REGISTRATIONS' as const
  private record?: RegistrationRecord

  private async load(): Promise<RegistrationRecord | undefined> {
    this.record ??= await this.ctx.storage.get<RegistrationRecord>('registration')
    return this.record
  }

  /** Whether new sessions must refuse this saved card (its deletion was asked or done). */
  async isDeleted(): Promise<boolean> {
    const r = await this.load()
    return r !== undefined && r.status !== 'active'
  }

  /** Deletes the registration at the gateway, once per Idempotency-Key; later keys see the state. */
  async delete(registrationId: string, key: string, merchant: string): Promise<Reply> {
    if (!(await this.belongTo(merchant))) return fail('not_found', 'No such saved card.')
    await this.fresh()
    const existing = await this.load()
    const seen = await this.ctx.storage.get<true>(`idem:${key}`)
    // Unknown to the gateway when first asked, and refused here since. A card still being
    // registered then (its first payment in 3-D Secure) may be stored by now: a deletion asked
    // again with another key is sent again, and the card stays refused whatever the gateway answers.
    if (existing?.notFound && seen) return fail('not_found', 'No such saved card.')
    if (existing && existing.status !== 'active' && !existing.notFound) return deleted(view(existing), seen === true)
    const r: RegistrationRecord = {
      registrationId,
      status: 'deleting',
      seq: existing?.seq ?? 0,
      tries: 0,
      requestedAt: Date.now(),
      ...(existing?.notFound ? { notFound: true as const } : {}),
    }
    this.record = r
    // Refused for new sessions from here on, before the gateway hears of it.
    await this.ctx.storage.put({ registration: r, [`idem:${key}`]: true })
    return this.send(r, !existing)
  }

  /**
   * `first`: the first request ever made of this object (no record before it); `retry`: asked
   * again from the alarm, the merchant answered already (202, `deleting`).
   */
  private async send(r: RegistrationRecord, first = false, retry = false): Promise<Reply> {
    const outcome = await gatewayClient(this.env).deleteRegistration(r.registrationId)
    log.info('registration_delete', { registration: r.registrationId, outcome: outcome.kind })
    // A card the gateway does not know for this merchant's member (a mistyped id, another
    // merchant's card) on the very first ask, or on an ask after that one: there is nothing of
    // this merchant's to delete. A later "not found" of a card it knew (a retry after a lost
    // answer) means the deletion went through.
    // The record stays, deleted: a card still being registered (its first payment in 3-D Secure)
    // must not become chargeable here after the merchant asked for its deletion.
    if (outcome.kind === 'not_found' && (first || r.notFound)) {
      r.status = 'deleted'
      r.deletedAt = Date.now()
      r.notFound = true
      await this.ctx.storage.put('registration', r)
      await this.cancel('retry')
      return fail('not_found', 'No such saved card.')
    }
    if ('code' in outcome) r.resultCode = outcome.code
    if (outcome.kind === 'succeeded' || outcome.kind === 'not_found') {
      r.status = 'deleted'
      r.deletedAt = Date.now()
      delete r.notFound
      r.seq += 1
      await this.commit(`registration:${r.registrationId}`, r.seq, { registration: r }, [
        { type: 'registration.deleted', data: { ...view(r), registrationId: r.registrationId, sequence: r.seq } },
      ])
      await this.cancel('retry')
      return deleted(view(r))
    }
    if ((outcome.kind === 'rejected' || outcome.kind === 'declined' || outcome.kind === 'invalid') && !retry) {
      // The gateway refused to delete it: the card stays usable (one it knew no such card of
      // stays refused), and the merchant is told why, in the answer to its request.
      r.status = r.notFound ? 'deleted' : 'active'
      await this.ctx.storage.put('registration', r)
      const detail = 'code' in outcome ? ` (${outcome.code}: ${outcome.description})` : ''
      return fail(
        outcome.kind === 'rejected' && outcome.reason === 'auth' ? 'gateway_auth_failed' : 'gateway_rejected',
        `The gateway refused to delete the registration${detail}.`,
      )
    }
    // No answer (or none could be sent), or a retry refused (its token, say: the merchant, told
    // `deleting`, hears of no refusal): it stays refused for every charge and is sent again. A
    // card the gateway did not know when first asked may have been deleted by this very call: a
    // "not found" from now on means the deletion went through, as for any card.
    if (retry && 'code' in outcome)
      log.error('registration_delete_refused', { registration: r.registrationId, code: outcome.code })
    delete r.notFound
    r.tries += 1
    await this.ctx.storage.put('registration', r)
    await this.schedule('retry', Date.now() + askAgainInMs(this.env, r.tries - 1))
    return deleted(view(r))
  }

  protected async runTask(name: string): Promise<void> {
    const r = await this.load()
    if (name === 'retry' && r?.status === 'deleting') await this.send(r, false, true)
  }
}
