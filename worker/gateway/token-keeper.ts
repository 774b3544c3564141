/**
 * @module
 * The token keeper: one Durable Object per merchant, token service and secure key (named by the
 * credentials: worker/config.ts) holds the generated AuthToken and asks the gateway for a new one only when
 * the one it holds is within the refresh margin of its expiry or was refused. Concurrent callers,
 * from any isolate anywhere, share that one request (single flight). Isolates keep the token in
 * memory in front of it, so a warm isolate does not call the keeper either.
 *
 * The token is held in memory only: a keeper that restarts asks the gateway once more. It is never
 * written to storage, logged or returned beyond the Worker's own isolates.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../env.ts'
import { generate, REFRESH_MARGIN_MS, type KeeperCredentials, type KeptToken, type TokenService } from './auth-token.ts'

export class TokenKeeper extends DurableObject<Env> {
  readonly #held = new Map<TokenService, { token: string; expiresAt: number }>()
  readonly #inflight = new Map<TokenService, Promise<KeptToken>>()

  /**
   * The service's token; a new one, asked for with the caller's credentials, when the held one is
   * about to expire or is `refused`. The keeper is named by the credentials, so callers with other
   * credentials reach another keeper.
   */
  async token(service: TokenService, credentials: KeeperCredentials, refused?: string): Promise<KeptToken> {
    const held = this.#held.get(service)
    if (held && held.token !== refused && held.expiresAt - REFRESH_MARGIN_MS > Date.now()) return { ok: true, ...held }
    let running = this.#inflight.get(service)
    if (!running) {
      running = generate({ ...credentials, fetch: (input, init) => fetch(input, init) }, service)
        .then((got): KeptToken => {
          if (got.ok) this.#held.set(service, { token: got.token, expiresAt: got.expiresAt })
          else if (got.reason === 'refused') this.#held.delete(service)
          // The gateway could not be reached: a held token that is still valid and not refused
          // serves until its end, rather than none at all.
          else if (held && held.token !== refused && held.expiresAt > Date.now()) return { ok: true, ...held }
          return got
        })
        .finally(() => this.#inflight.delete(service))
      this.#inflight.set(service, running)
    }
    return running
  }
}
