/**
 * @module
 * The kinds of merchant operation, each a module of its own: the table the Durable Object runs
 * them by (no `kind === ...` branches there).
 */
import type { OperationFlow } from './flow.ts'
import { regenerate, type RegenerateParams } from './regenerate.ts'
import { repeat, type RepeatParams } from './repeat.ts'

export type { OperationContext, OperationFlow, OperationRecord, OpStatus } from './flow.ts'
export type { RegenerateParams, RepeatParams }

export type OperationParams = RepeatParams | RegenerateParams

export const FLOWS: { readonly [K in OperationParams['kind']]: OperationFlow<Extract<OperationParams, { kind: K }>> } =
  { repeat, regenerate }

/** The flow of an operation's kind, typed for its parameters. */
export const flowOf = <P extends OperationParams>(params: P): OperationFlow<P> =>
  FLOWS[params.kind] as unknown as OperationFlow<P>
