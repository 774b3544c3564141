/**
 * @module
 * The platform API, for the partner that runs one deployment for many merchants (README, "Many
 * merchants"): create, read, change and disable merchant profiles, issue and revoke each one's API
 * keys, roll its webhook secrets. Behind `PLATFORM_API_KEY` (platform-auth.ts). A profile's
 * secrets go in and never come out: answers say which are set, and a new API key or webhook
 * secret is shown once, in the answer that made it.
 */
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Env } from '../env.ts'
import { ApiError } from '../errors.ts'
import { jsonBody, type JsonBodyVariables } from '../middleware/json-body.ts'
import { platformAuth } from '../middleware/platform-auth.ts'
import { validate } from '../middleware/validate.ts'
import { reloadMerchant } from '../merchants/merchant-env.ts'
import {
  addWebhookSecret,
  createProfile,
  issueApiKey,
  listProfiles,
  MERCHANT_ID,
  profileView,
  resealProfiles,
  retireWebhookSecret,
  revokeApiKey,
  updateProfile,
  type ProfileResult,
} from '../merchants/profiles.ts'
import { errors, json, ref } from '../schemas/doc.ts'
import { createMerchantBody, merchantListQuery, updateMerchantBody } from '../schemas/platform.ts'

export const platform = new Hono<{ Bindings: Env; Variables: JsonBodyVariables }>()

platform.use('*', platformAuth())

const security = [{ platformKey: [] }]
const idParam = (name: string, pattern: string) => ({
  name,
  in: 'path' as const,
  required: true,
  schema: { type: 'string' as const, pattern },
})
const MERCHANT_PARAM = idParam('merchantId', MERCHANT_ID.source)

/** A profile function's refusal as the HTTP answer; its value otherwise. */
function valueOf<T>(result: ProfileResult<T>): T {
  if (result.ok) return result.value
  switch (result.reason) {
    case 'not_found':
      throw new ApiError('not_found', 'No such merchant, key or secret.')
    case 'limit_reached':
      throw new ApiError('limit_reached', 'The merchant holds two active ones already: revoke the old one first.')
    case 'last_secret':
      throw new ApiError('limit_reached', 'A merchant keeps at least one webhook secret: add the next one first.')
    case 'conflict':
      throw new ApiError('profile_conflict', 'The merchant changed meanwhile: read it and try again.')
    case 'member_taken':
      throw new ApiError('invalid_request', 'Another merchant of this deployment is this gateway member.', [
        { field: 'gateway.memberId', code: 'invalid_value', expected: 'a gateway member no other merchant here uses' },
      ])
    case 'no_master_key':
      // The deployment's configuration, not the caller's request: said plainly in the log too.
      throw new ApiError('internal_error', 'MERCHANT_SECRETS_KEY is not set (32 characters or more).')
  }
}

const merchantId = (id: string): string => {
  if (!MERCHANT_ID.test(id)) throw new ApiError('not_found', 'No such merchant.')
  return id
}

platform.post(
  '/merchants',
  describeRoute({
    summary: 'Create a merchant profile; the answer holds its first API key and webhook secret, shown once',
    operationId: 'createMerchant',
    security,
    responses: {
      '201': { description: 'Created', ...json(ref('MerchantCreated')) },
      ...errors(400, 401, 404, 413, 429),
    },
  }),
  jsonBody(),
  validate('json', createMerchantBody),
  async (c) => {
    const b = c.req.valid('json')
    const { secureKey, authToken, qrAuthToken, ...gateway } = b.gateway
    const created = valueOf(
      await createProfile(c.env, {
        name: b.name,
        settings: {
          gateway,
          allowedOrigins: b.allowedOrigins ?? [],
          ...(b.webhookUrl ? { webhookUrl: b.webhookUrl } : {}),
          limits: b.limits ?? {},
        },
        secureKey,
        ...(authToken ? { authToken } : {}),
        ...(qrAuthToken ? { qrAuthToken } : {}),
      }),
    )
    return c.json(created, 201)
  },
)

platform.get(
  '/merchants',
  describeRoute({
    summary: 'The merchant profiles, newest first (never their secrets)',
    operationId: 'listMerchants',
    security,
    responses: { '200': { description: 'A page', ...json(ref('MerchantList')) }, ...errors(400, 401, 404, 429) },
  }),
  validate('query', merchantListQuery),
  async (c) => {
    const q = c.req.valid('query')
    const page = await listProfiles(c.env, q.limit ? Number(q.limit) : 10, q.starting_after)
    if (!page)
      throw new ApiError('invalid_request', 'starting_after names no merchant.', [
        { field: 'starting_after', code: 'invalid_value', expected: 'the id of a merchant of this list' },
      ])
    return c.json({ object: 'list', data: page.data, has_more: page.hasMore })
  },
)

platform.post(
  '/merchant-secrets/reseal',
  describeRoute({
    summary:
      'Rotate MERCHANT_SECRETS_KEY: seal a page of profiles (by id) again under it, those the key before it (MERCHANT_SECRETS_KEY_PREVIOUS) sealed',
    operationId: 'resealMerchantSecrets',
    security,
    responses: {
      '200': { description: 'The page', ...json(ref('MerchantSecretsReseal')) },
      ...errors(400, 401, 404, 429),
    },
  }),
  validate('query', merchantListQuery),
  async (c) => {
    const q = c.req.valid('query')
    const page = valueOf(await resealProfiles(c.env, q.limit ? Number(q.limit) : 25, q.starting_after))
    return c.json({
      object: 'merchant_secrets_reseal',
      resealed: page.resealed,
      current: page.current,
      unreadable: page.unreadable,
      has_more: page.hasMore,
      last: page.last,
    })
  },
)

platform.get(
  '/merchants/:merchantId',
  describeRoute({
    summary: 'A merchant profile: its settings, which secrets are set, its active API keys (ids only)',
    operationId: 'getMerchant',
    security,
    parameters: [MERCHANT_PARAM],
    responses: { '200': { description: 'The profile', ...json(ref('Merchant')) }, ...errors(401, 404, 429) },
  }),
  async (c) => c.json(valueOf(await profileView(c.env, merchantId(c.req.param('merchantId'))))),
)

platform.patch(
  '/merchants/:merchantId',
  describeRoute({
    summary:
      'Change a merchant profile. A new gateway.secureKey is used from this moment; notifications signed with the one before still count until endSecureKeyOverlap. status disabled: its API keys stop working and its checkouts take no new pays; what is under way still settles.',
    operationId: 'updateMerchant',
    security,
    parameters: [MERCHANT_PARAM],
    responses: {
      '200': { description: 'The profile', ...json(ref('Merchant')) },
      ...errors(400, 401, 404, 409, 413, 429),
    },
  }),
  jsonBody(),
  validate('json', updateMerchantBody),
  async (c) => {
    const id = merchantId(c.req.param('merchantId'))
    const b = c.req.valid('json')
    const { secureKey, authToken, qrAuthToken, ...gateway } = b.gateway ?? {}
    const clear = new Set(b.clear ?? [])
    const view = valueOf(
      await updateProfile(c.env, id, {
        ...(b.name !== undefined ? { name: b.name } : {}),
        ...(b.status !== undefined ? { status: b.status } : {}),
        ...(Object.keys(gateway).length > 0 ? { gateway } : {}),
        ...(secureKey !== undefined ? { secureKey } : {}),
        ...(clear.has('authToken') ? { authToken: null } : authToken !== undefined ? { authToken } : {}),
        ...(clear.has('qrAuthToken') ? { qrAuthToken: null } : qrAuthToken !== undefined ? { qrAuthToken } : {}),
        ...(b.endSecureKeyOverlap ? { endSecureKeyOverlap: true } : {}),
        ...(b.allowedOrigins !== undefined ? { allowedOrigins: b.allowedOrigins } : {}),
        ...(clear.has('webhookUrl')
          ? { webhookUrl: null }
          : b.webhookUrl !== undefined
            ? { webhookUrl: b.webhookUrl }
            : {}),
        ...(b.limits !== undefined ? { limits: b.limits } : {}),
      }),
    )
    await reloadMerchant(id)
    return c.json(view)
  },
)

platform.post(
  '/merchants/:merchantId/api-keys',
  describeRoute({
    summary: 'Issue an API key (shown once); at most two are active, for a rotation without downtime',
    operationId: 'issueMerchantApiKey',
    security,
    parameters: [MERCHANT_PARAM],
    responses: { '201': { description: 'The key', ...json(ref('MerchantApiKey')) }, ...errors(401, 404, 409, 429) },
  }),
  async (c) => c.json(valueOf(await issueApiKey(c.env, merchantId(c.req.param('merchantId')))), 201),
)

platform.delete(
  '/merchants/:merchantId/api-keys/:keyId',
  describeRoute({
    summary: 'Revoke an API key: refused on every route from this moment',
    operationId: 'revokeMerchantApiKey',
    security,
    parameters: [MERCHANT_PARAM, idParam('keyId', '^key_[A-Za-z0-9]{16}$')],
    responses: { '200': { description: 'Revoked', ...json(ref('Revoked')) }, ...errors(401, 404, 429) },
  }),
  async (c) =>
    c.json({
      ...valueOf(await revokeApiKey(c.env, merchantId(c.req.param('merchantId')), c.req.param('keyId'))),
      revoked: true,
    }),
)

platform.post(
  '/merchants/:merchantId/webhook-secrets',
  describeRoute({
    summary:
      'Add a webhook secret (shown once): from now on every delivery is signed with both, until the old one is retired',
    operationId: 'addMerchantWebhookSecret',
    security,
    parameters: [MERCHANT_PARAM],
    responses: {
      '201': { description: 'The secret', ...json(ref('MerchantWebhookSecret')) },
      ...errors(401, 404, 409, 429),
    },
  }),
  async (c) => {
    const id = merchantId(c.req.param('merchantId'))
    const added = valueOf(await addWebhookSecret(c.env, id))
    await reloadMerchant(id)
    return c.json(added, 201)
  },
)

platform.delete(
  '/merchants/:merchantId/webhook-secrets/:secretId',
  describeRoute({
    summary: 'Retire a webhook secret: deliveries are no longer signed with it (one always remains)',
    operationId: 'retireMerchantWebhookSecret',
    security,
    parameters: [MERCHANT_PARAM, idParam('secretId', '^whs_[A-Za-z0-9]{16}$')],
    responses: { '200': { description: 'Retired', ...json(ref('Revoked')) }, ...errors(401, 404, 409, 429) },
  }),
  async (c) => {
    const id = merchantId(c.req.param('merchantId'))
    const retired = valueOf(await retireWebhookSecret(c.env, id, c.req.param('secretId')))
    await reloadMerchant(id)
    return c.json({ ...retired, revoked: true })
  },
)
