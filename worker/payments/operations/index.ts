/**
 * @module
 * Operation kind -> its handler. A new money operation is one module and one line here (plus
 * its route line and events).
 */
import type { OperationKind } from '../types.ts'
import { capture, type CaptureRequest } from './capture.ts'
import type { OperationHandler } from './handler.ts'
import { refund, type RefundRequest } from './refund.ts'
import { voidAuthorisation, type VoidRequest } from './void.ts'

export interface RequestOf {
  capture: CaptureRequest
  void: VoidRequest
  refund: RefundRequest
}

export const HANDLERS: { readonly [K in OperationKind]: OperationHandler<RequestOf[K]> } = {
  capture,
  void: voidAuthorisation,
  refund,
}
