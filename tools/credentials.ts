/**
 * The sandbox gateway's published test credentials (worker/sandbox/wrangler.toml), which the
 * Worker's test bindings and .dev.vars.example use too.
 */
export const SANDBOX = {
  memberId: '10001',
  terminalId: '2001',
  secureKey: 'sandbox-secure-key-0123456789',
  partnerId: '3001',
  username: 'sandbox-merchant',
  authToken: 'sandbox-auth-token',
  qrAuthToken: 'sandbox-qr-auth-token',
} as const

/** The Worker's secrets in tests: sandbox values, and test-only merchant and webhook keys. */
export const TEST_SECRETS = {
  SECURE_KEY: SANDBOX.secureKey,
  AUTH_TOKEN: '',
  QR_AUTH_TOKEN: SANDBOX.qrAuthToken,
  MERCHANT_API_KEY: 'sk_test_merchant_key_for_tests',
  WEBHOOK_SECRET: 'whsec_test_webhook_secret',
  CONSOLE_SECRET: 'test-console-session-secret-0123456789',
} as const

/**
 * The Worker tests run mid-rotation (SECURITY.md, "Secrets and their rotation"): a second merchant
 * API key, the next webhook secret and the secure key before the gateway's switch. The demo, the
 * end-to-end and the browser stacks run without them, so both ways are exercised.
 */
export const ROTATION_SECRETS = {
  MERCHANT_API_KEY_NEXT: 'sk_test_next_merchant_key_for_tests',
  WEBHOOK_SECRET_NEXT: 'whsec_test_next_webhook_secret',
  SECURE_KEY_PREVIOUS: 'sandbox-secure-key-before-the-switch',
} as const

/** The sandbox's extra gateway member `n` (1 to SANDBOX_EXTRA_MEMBERS, 50 by default): a merchant profile's own member. */
import { extraMember } from '../worker/sandbox/members.ts'
export { extraMember }

/** A merchant profile's `gateway` settings on the sandbox's extra member `n` (the platform API's shape). */
export function extraMemberGateway(n: number) {
  const m = extraMember(n)
  return {
    memberId: m.memberId,
    terminalId: m.terminalId,
    partnerId: SANDBOX.partnerId,
    username: m.username,
    secureKey: m.secureKey,
  }
}

/**
 * The platform API of the Worker tests (merchant profiles, README "Many merchants"): the
 * partner's key and the key that seals profiles' secrets.
 */
export const PLATFORM_SECRETS = {
  PLATFORM_API_KEY: 'pk_test_platform_key_for_tests_0123456789',
  MERCHANT_SECRETS_KEY: 'test-merchant-secrets-master-key-0123456789',
} as const
