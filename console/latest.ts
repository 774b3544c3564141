/**
 * @module
 * A view's reads, the newest winning: each read takes a ticket, and an answer whose ticket is no
 * longer the newest is dropped. Without it a slow answer about the payment (or the search) the
 * agent left behind would replace the one the address now names, and its buttons would act on it.
 */

/** A new series of reads: call it as a read starts; its result says whether that read is still the newest. */
export function newestReads(): () => () => boolean {
  let newest = 0
  return () => {
    const ticket = ++newest
    return () => ticket === newest
  }
}
