/**
 * @module
 * Whether an input event edits what is there rather than types at its end, for both card forms
 * (`shared/card-inputs.ts` `typedValue` leaves an edit as written): a deletion, or typing with
 * the caret before the end (a month corrected in `04 / 27`).
 */
export const editing = (e: InputEvent, input: HTMLInputElement | HTMLSelectElement): boolean =>
  !!e.inputType?.startsWith('delete') || ('selectionEnd' in input && (input.selectionEnd ?? 0) < input.value.length)
