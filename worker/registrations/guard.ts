/**
 * @module
 * The one registration guard: every path that can charge a saved card (a saved-card pay, a merchant
 * repeat of a payment made with it, the repeat's own re-send from the alarm) asks it right before
 * the gateway call. A card is refused from the moment its deletion is asked (`deleting`), while the
 * deletion's own gateway call is still in flight, and for good once deleted.
 */
import type { ErrorCode } from '../../shared/errors.ts'
import type { Env } from '../env.ts'
import { scoped } from '../merchants/merchant-env.ts'

export interface RegistrationRefusal {
  readonly code: Extract<ErrorCode, 'registration_deleted'>
  readonly message: string
}

/** Undefined when the registration may be charged; the refusal otherwise. No registration: nothing to guard. */
export async function registrationRefusal(
  env: Env,
  registrationId: string | null | undefined,
): Promise<RegistrationRefusal | undefined> {
  if (!registrationId) return undefined
  const deleted = await env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(scoped(env, registrationId))).isDeleted()
  return deleted
    ? { code: 'registration_deleted', message: 'This saved card was deleted and can no longer be charged.' }
    : undefined
}
