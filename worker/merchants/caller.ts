/**
 * @module
 * Which merchant a server request's bearer is: the default merchant's `MERCHANT_API_KEY` (or the
 * next one during a rotation), compared in constant time, or an active API key of an active
 * profile, looked up by its hash. Asked once per request: the rate limiter (which counts per key)
 * and `merchantAuth` share the answer.
 */
import type { Env } from '../env.ts'
import { merchantKeyOf } from '../secrets.ts'
import { DEFAULT_MERCHANT, merchantOfKey } from './profiles.ts'

const asked = new WeakMap<Request, Promise<string | undefined>>()

/** The merchant id a request's bearer names, or undefined (no bearer, a guess, a revoked key). */
export function callerOf(request: Request, env: Env): Promise<string | undefined> {
  let found = asked.get(request)
  if (!found) {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.get('Authorization') ?? '')?.[1]
    found = merchantOfBearer(bearer, env)
    asked.set(request, found)
  }
  return found
}

/** The merchant whose API key `bearer` is (the default merchant's, or an active profile's). */
export async function merchantOfBearer(bearer: string | undefined, env: Env): Promise<string | undefined> {
  if (bearer === undefined) return undefined
  if ((await merchantKeyOf(bearer, env)) !== undefined) return DEFAULT_MERCHANT
  return merchantOfKey(env, bearer)
}
