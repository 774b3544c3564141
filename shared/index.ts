/**
 * @module
 * The shared field table and the validation both the widget and the Worker use.
 * No MD5 here: browsers lack it, so checksums live in `worker/gateway/`.
 */
export * from './card.ts'
export * from './errors.ts'
export * from './fields.ts'
export * from './formats.ts'
export * from './money.ts'
export * from './read.ts'
export * from './result.ts'
export type * from './types.ts'
export * from './validate.ts'
export * from './shopper-fields.ts'
export * from './shopper-formats.ts'
export type * from './checkout.ts'
