/**
 * The API document (docs/openapi.json, what `npm run openapi` generates from the routes) as a
 * contract the Worker's real answers and events are checked against: every 2xx JSON answer against
 * its route's response schema for that status, every webhook body against its event type's schema.
 * A field the document marks `required` that an answer lacks, a type or enum it breaks, an event
 * type it does not list: each is an error naming where. Runs in Node (Ajv compiles schemas to
 * code, which workerd does not allow): the Worker tests send what they saw to the catcher, which
 * checks it here.
 */
import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>
  components: { schemas: Record<string, object> }
}

export interface Contract {
  /** Errors of a JSON answer to `method path` with `status` (none when the route documents no schema for it). */
  answer(method: string, path: string, status: number, body: unknown): string[]
  /** Errors of a webhook body (the event's whole JSON). */
  event(body: unknown): string[]
}

export function loadContract(documentPath: string): Contract {
  const doc = JSON.parse(readFileSync(documentPath, 'utf8')) as Document
  const ajv = new Ajv({ strict: false, allErrors: true })
  ;(addFormats as unknown as (a: Ajv) => void)(ajv)
  // Every component under one id, so `#/components/schemas/X` references resolve.
  ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc')
  const compile = (schema: object): ValidateFunction =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object)
  const cache = new Map<string, ValidateFunction | null>()
  const routes = Object.entries(doc.paths).map(([template, ops]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    ops,
  }))
  const errorsOf = (validate: ValidateFunction, body: unknown, where: string): string[] =>
    validate(body)
      ? []
      : (validate.errors ?? []).map(
          (e) =>
            `${where}: ${e.instancePath || '(body)'} ${e.message ?? ''}${e.params && 'missingProperty' in e.params ? ` (${String(e.params.missingProperty)})` : ''}`,
        )

  return {
    answer(method, path, status, body) {
      const pathname = new URL(path, 'http://x').pathname
      // A literal route wins over a templated one (/v1/payments/search-like literals before {id}).
      const route = routes
        .filter((r) => r.pattern.test(pathname))
        .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0]
      const key = `${route?.template} ${method.toLowerCase()} ${status}`
      if (!cache.has(key)) {
        const schema =
          route?.ops[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema
        cache.set(key, schema ? compile(schema) : null)
      }
      const validate = cache.get(key)
      return validate ? errorsOf(validate, body, `${method} ${route?.template} ${status}`) : []
    },
    event(body) {
      const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined
      const hook = typeof type === 'string' ? doc.webhooks[type] : undefined
      if (!hook) return [`event type ${String(type)} is not in the document's webhooks`]
      const key = `event ${String(type)}`
      if (!cache.has(key)) cache.set(key, compile(hook.post.requestBody.content['application/json']?.schema ?? {}))
      return errorsOf(cache.get(key) as ValidateFunction, body, key)
    },
  }
}
