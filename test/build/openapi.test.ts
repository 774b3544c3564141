/**
 * The API document as the Worker generates it (GET /openapi.json, from its routes and their
 * request schemas): valid OpenAPI by a maintained validator, and the same as the committed
 * docs/openapi.json and server/api.ts (the types the server SDK's client is built on), so a route
 * or schema change without `npm run openapi` fails here. That every route of the app is listed is
 * checked in workerd (test/worker/sessions.test.ts), where the app itself can be walked.
 */
import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import { DOCUMENT_FILE, fetchDocument, render, TYPES_FILE } from '../../scripts/openapi.mjs'

type Doc = {
  openapi: string
  paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { name: string; in: string }[] }>>
  components: { schemas: Record<string, unknown> }
}
let doc: Doc

beforeAll(async () => {
  doc = (await fetchDocument()) as Doc
}, 120_000)

describe('the generated API document', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as Parameters<Validator['validate']>[0])
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('describes request bodies and queries from the route schemas', () => {
    expect(doc.paths['/v1/sessions']?.post?.requestBody).toBeDefined()
    expect(doc.paths['/v1/checkout/{id}/pay']?.post?.requestBody).toBeDefined()
    expect(doc.paths['/v1/payments/{paymentId}/refunds']?.post?.requestBody).toBeDefined()
    expect(doc.paths['/v1/payments']?.get?.parameters?.map((p) => p.name)).toEqual(
      expect.arrayContaining(['status', 'limit', 'starting_after']),
    )
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['SessionCreate', 'CardPayRequest', 'SavedCardPayRequest', 'RefundRequest', 'Error']),
    )
  })

  it('requires a body only where a field is required: a capture, a void, a refund (all of it) and an inquiry may send none, as the Worker takes', () => {
    const required = (path: string) =>
      (doc.paths[path]?.post?.requestBody as { required?: boolean } | undefined)?.required ?? false
    for (const path of [
      '/v1/payments/{paymentId}/capture',
      '/v1/payments/{paymentId}/void',
      '/v1/payments/{paymentId}/refunds',
      '/v1/payments/{paymentId}/inquiry',
    ])
      expect([path, required(path)]).toEqual([path, false])
    expect(required('/v1/sessions')).toBe(true)
    expect(required('/v1/checkout/{id}/pay')).toBe(true)
  })

  it('is what docs/openapi.json and server/api.ts hold (run `npm run openapi` after changing a route)', async () => {
    const out = await render(doc)
    expect(readFileSync(DOCUMENT_FILE, 'utf8')).toBe(out.document)
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(out.types)
  })
})
