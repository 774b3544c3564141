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
} as const
