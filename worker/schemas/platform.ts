/**
 * @module
 * Request schemas of the platform API (routes/platform.ts): a new merchant profile and a change
 * to one. Secrets are checked for shape only and never echoed: an error names the field and the
 * rule.
 */
import * as v from 'valibot'
import { described, formatText } from './build.ts'
import { originList } from './sessions.ts'

const MAX_ORIGINS = 20

/** The gateway issues it; shorter is a placeholder, not a key (secrets.ts keeps the same floor). */
const secureKey = described(
  v.pipe(v.string('format'), v.minLength(16, 'length'), v.maxLength(256, 'length')),
  '16 to 256 characters',
  { writeOnly: true },
)
const token = (description: string) =>
  described(v.pipe(v.string('format'), v.minLength(1, 'length'), v.maxLength(4096, 'length')), '1 to 4096 characters', {
    writeOnly: true,
    description,
  })
const gatewayId = (description: string) => formatText('gatewayId', { description })
const amount = (description: string) => formatText('amount', { description })

const origins = originList(MAX_ORIGINS)
const limits = v.strictObject({
  amountMin: v.optional(amount('The smallest amount a session may have (default: the deployment’s)')),
  amountMax: v.optional(amount('The largest amount a session may have (default: the deployment’s)')),
})
const name = formatText('text', { description: 'The merchant’s name, for the partner' })
const webhookUrl = formatText('url', { description: 'Where the merchant’s webhooks are sent' })

/** A merchant's gateway credentials: all of them to create it, any of them to change it. */
const gateway = v.strictObject({
  memberId: gatewayId('The merchant’s memberId at the gateway'),
  terminalId: gatewayId('Its terminalId'),
  partnerId: v.optional(gatewayId('authentication.partnerId, for AuthTokens')),
  username: v.optional(gatewayId('The merchant username, for AuthTokens')),
  secureKey,
  authToken: v.optional(token('A fixed AuthToken (else one is generated and kept by a token keeper)')),
  qrAuthToken: v.optional(token('The QR wallet service’s fixed AuthToken')),
})

export const createMerchantBody = v.pipe(
  v.strictObject({
    name,
    gateway,
    allowedOrigins: v.optional(origins),
    webhookUrl: v.optional(webhookUrl),
    limits: v.optional(limits),
  }),
  v.metadata({ ref: 'MerchantCreateRequest' }),
)

export const updateMerchantBody = v.pipe(
  v.strictObject({
    name: v.optional(name),
    status: v.optional(v.picklist(['active', 'disabled'], 'invalid_value')),
    gateway: v.optional(v.partial(gateway)),
    endSecureKeyOverlap: v.optional(
      v.pipe(
        v.boolean('format'),
        v.metadata({
          description:
            'true: notifications signed with the secure key before the last change are refused from now on (the gateway has switched)',
        }),
      ),
    ),
    allowedOrigins: v.optional(origins),
    webhookUrl: v.optional(webhookUrl),
    limits: v.optional(limits),
    clear: v.optional(
      described(
        v.pipe(
          v.array(v.picklist(['authToken', 'qrAuthToken', 'webhookUrl'], 'invalid_value'), 'format'),
          v.maxLength(3, 'format'),
        ),
        'settings to remove: authToken (AuthTokens are then generated), qrAuthToken, webhookUrl (no webhooks)',
      ),
    ),
  }),
  v.metadata({ ref: 'MerchantUpdateRequest' }),
)

/** `limit` and `starting_after` of the merchant list. */
export const merchantListQuery = v.strictObject({
  limit: v.optional(
    described(
      v.pipe(
        v.string('format'),
        v.check((s) => /^[0-9]{1,3}$/.test(s) && Number(s) >= 1 && Number(s) <= 100, 'out_of_range'),
      ),
      'an integer from 1 to 100',
    ),
  ),
  starting_after: v.optional(
    described(
      v.pipe(
        v.string('format'),
        v.check((s) => /^mer_[A-Za-z0-9]{16}$/.test(s), 'format'),
      ),
      'a merchant id',
    ),
  ),
})
