/**
 * @module
 * How both card forms write back what the shopper typed (`shared/card-inputs.ts` `typedValue`),
 * in the input's event: whether the event edits what is there rather than types at its end, and
 * where the caret goes when the value is written again; and whether the focus may go back.
 */
import { asciiDigits } from '../../shared/card.ts'
import { typedValue } from '../../shared/card-inputs.ts'

/**
 * Whether an input event edits what is there rather than types at its end, for both card forms
 * (`typedValue` leaves an edit as written): a deletion, or typing with the caret before the end
 * (a month corrected in `04 / 27`).
 */
export const editing = (e: InputEvent, input: HTMLInputElement | HTMLSelectElement): boolean =>
  !!e.inputType?.startsWith('delete') || ('selectionEnd' in input && (input.selectionEnd ?? 0) < input.value.length)

/**
 * Writes `input`'s value as `typedValue` writes it for input `id`, and answers it. The caret stays
 * after the digits it was after (writing a value puts it at the end: a digit typed in the middle
 * of a card number sent the caret, and the next digit, to the end). A Backspace or a Delete that
 * took only a space the number's grouping puts back takes the digit beside it, as it would if the
 * space were not there (else it did nothing).
 */
export function retype(e: InputEvent, input: HTMLInputElement, id: string): string {
  let typed = input.value
  let at = input.selectionStart ?? typed.length
  let value = typedValue(id, typed, editing(e, input))
  const back = e.inputType === 'deleteContentBackward'
  if (value[at] === ' ' && value.length > typed.length && (back || e.inputType === 'deleteContentForward')) {
    if (back) at--
    typed = typed.slice(0, at) + typed.slice(at + 1)
    value = typedValue(id, typed, true)
  }
  if (value !== input.value) {
    let digits = asciiDigits(typed.slice(0, at)).replace(/\D/g, '').length
    let i = 0
    for (; digits > 0 && i < value.length; i++) if (/\d/.test(value[i] ?? '')) digits--
    input.value = value
    if (at < typed.length) input.setSelectionRange(i, i)
  }
  return value
}

/**
 * Whether a button that lost the focus by being disabled may take it back: the focus was dropped
 * (to the body) and nothing took it since, while the document still has it. Never from another
 * element the shopper went to; and never in a frame (the card frame, whose document keeps the
 * focus one Tab from the card number: taking it there made WebKit's driver lose the next pay).
 */
export const focusDropped = (): boolean =>
  window.parent === window &&
  document.hasFocus() &&
  (document.activeElement === document.body || document.activeElement === null)
