/**
 * @module
 * Stands in for `zod/v4/core` in the Worker bundle (wrangler.toml `[alias]`): hono-openapi would
 * load it only to convert Zod schemas, and this Worker has none (its schemas are Valibot).
 */
export const toJSONSchema = (): never => {
  throw new Error('The Worker has no Zod schemas.')
}
