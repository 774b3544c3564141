/**
 * @module
 * The sandbox's gateway members. The real gateway serves many merchants, each its own member with
 * its own terminal, secure key and username under one partner; the sandbox has its main member
 * (`SANDBOX_MEMBER_ID` and the rest of its variables) and, for tests and the many-merchants load
 * run, `SANDBOX_EXTRA_MEMBERS` more, derived from their number so a test or a bench can name one
 * without any configuration: member `20001` is extra member 1 (`extraMember(1)`).
 *
 * Each member's payments, registrations, invoices and tokens are kept in a ledger of its own, so
 * one member never finds another's payment (an inquiry, a refund or a repeat of it is "not found",
 * as at the gateway) and members do not wait on each other's ledger.
 */

export interface Member {
  readonly memberId: string
  readonly terminalId: string
  readonly secureKey: string
  readonly username: string
  /** The main member: its ledger is the sandbox's first (`/sandbox/stats` without `member`). */
  readonly main: boolean
}

const FIRST_EXTRA = 20_000

/** Extra member `n` (1-based): public test credentials, never a real merchant's. */
export function extraMember(n: number): Omit<Member, 'main'> {
  const memberId = String(FIRST_EXTRA + n)
  return {
    memberId,
    terminalId: String(30_000 + n),
    secureKey: `sandbox-member-${memberId}-secure-key`,
    username: `sandbox-member-${memberId}`,
  }
}

interface MemberEnv {
  SANDBOX_MEMBER_ID: string
  SANDBOX_TERMINAL_ID: string
  SANDBOX_SECURE_KEY: string
  SANDBOX_USERNAME: string
  SANDBOX_EXTRA_MEMBERS?: string
}

export function mainMember(env: MemberEnv): Member {
  return {
    memberId: env.SANDBOX_MEMBER_ID,
    terminalId: env.SANDBOX_TERMINAL_ID,
    secureKey: env.SANDBOX_SECURE_KEY,
    username: env.SANDBOX_USERNAME,
    main: true,
  }
}

/** The member with this id, if the sandbox has it. */
export function memberById(env: MemberEnv, memberId: string | undefined): Member | undefined {
  if (memberId === undefined || memberId === env.SANDBOX_MEMBER_ID) return mainMember(env)
  const n = Number(memberId) - FIRST_EXTRA
  const count = Number(env.SANDBOX_EXTRA_MEMBERS ?? '0') || 0
  return /^\d+$/.test(memberId) && Number.isInteger(n) && n >= 1 && n <= count
    ? { ...extraMember(n), main: false }
    : undefined
}

/** The member whose username (and partner) an AuthToken request names. */
export function memberByUsername(env: MemberEnv, username: string | undefined): Member | undefined {
  if (username === env.SANDBOX_USERNAME) return mainMember(env)
  const id = /^sandbox-member-(\d+)$/.exec(username ?? '')?.[1]
  return id === undefined ? undefined : memberById(env, id)
}
