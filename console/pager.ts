/**
 * @module
 * Cursor pages, newest first, as the merchant API lists them: "Older" asks for the page after the
 * last item shown (`starting_after`), "Newer" goes back to the page before, by the cursors kept on
 * the way. The payments and the webhook deliveries page the same way.
 */
import { html } from 'lit'

export class Pager {
  /** The cursor of each page before this one. */
  private before: (string | undefined)[] = []
  /** This page's `starting_after` (undefined: the newest page). */
  cursor: string | undefined

  /** Back to the newest page (a new search). */
  reset(): void {
    this.before = []
    this.cursor = undefined
  }

  older(lastId: string | undefined): void {
    this.before.push(this.cursor)
    this.cursor = lastId
  }

  newer(): void {
    this.cursor = this.before.pop()
  }

  get atNewest(): boolean {
    return this.before.length === 0 && this.cursor === undefined
  }
}

/** The two buttons under a page; `load` reads the page the pager points at then. */
export function pagerButtons(pager: Pager, hasMore: boolean, lastId: string | undefined, load: () => void) {
  return html`<div class="pager">
    <button
      type="button"
      ?disabled=${pager.atNewest}
      @click=${() => {
        pager.newer()
        load()
      }}
    >
      Newer
    </button>
    <button
      type="button"
      ?disabled=${!hasMore}
      @click=${() => {
        pager.older(lastId)
        load()
      }}
    >
      Older
    </button>
  </div>`
}
