/**
 * @module
 * `<console-sign-in>`: signing in without Cloudflare Access, with a merchant API key typed once.
 * The key goes to the Worker in one request and is kept nowhere (not in the page's storage, not in
 * the cookie, which holds only a keyed proof of it); the field is cleared whatever the answer.
 * Behind Access there is nothing to type: the page says why Access's sign-in was not accepted.
 * Fires `signed-in` with the session.
 */
import { html, LitElement } from 'lit'
import { signIn, type ConsoleSession } from '../api.ts'
import { shared } from '../styles.ts'
import { css } from 'lit'

export class ConsoleSignIn extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
        max-width: 26rem;
        margin: 3rem auto;
      }
      form {
        display: grid;
        gap: 1rem;
      }
    `,
  ]
  static override properties = {
    refusal: {},
    withKey: { type: Boolean },
    error: { state: true },
    busy: { state: true },
  }

  /** Why the standing sign-in was refused (Access's, a misconfiguration), shown above the form. */
  declare refusal: string
  /** Sign in with a key here (false: behind Cloudflare Access, which signs in before the page). */
  declare withKey: boolean
  declare private error: string
  declare private busy: boolean

  constructor() {
    super()
    this.refusal = ''
    this.withKey = true
    this.error = ''
    this.busy = false
  }

  private async submit(e: SubmitEvent): Promise<void> {
    e.preventDefault()
    const input = this.renderRoot.querySelector<HTMLInputElement>('#key')
    const key = input?.value.trim() ?? ''
    if (input) input.value = ''
    if (!key) {
      this.error = 'Enter a merchant API key.'
      return
    }
    this.busy = true
    const answer = await signIn(key)
    this.busy = false
    if (answer.session) {
      this.error = ''
      this.dispatchEvent(new CustomEvent<ConsoleSession>('signed-in', { detail: answer.session }))
      return
    }
    this.error =
      answer.status === 401
        ? 'That key was not accepted.'
        : (answer.error?.message ?? `Signing in failed (${answer.status}).`)
  }

  override render() {
    return html`
      <section class="card" aria-labelledby="title">
        <h1 id="title">Sign in to the payments console</h1>
        ${this.refusal ? html`<p class="error" role="alert">${this.refusal}</p>` : ''}
        ${
          this.withKey
            ? this.form()
            : html`<p>This console signs in through Cloudflare Access.</p>
              <button type="button" @click=${() => location.reload()}>Try again</button>`
        }
      </section>
    `
  }

  private form() {
    return html`
        <form @submit=${this.submit} novalidate>
          <label for="key"
            >Merchant API key
            <input
              id="key"
              name="key"
              type="password"
              autocomplete="off"
              spellcheck="false"
              aria-describedby="key-help ${this.error ? 'key-error' : ''}"
              aria-invalid=${this.error ? 'true' : 'false'}
          /></label>
          <p id="key-help" class="muted">
            Sent once to sign you in for an hour; the browser keeps only a session cookie no script can read.
          </p>
          ${this.error ? html`<p id="key-error" class="error" role="alert">${this.error}</p>` : ''}
          <button class="primary" type="submit" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in'}</button>
        </form>
    `
  }
}

if (!customElements.get('console-sign-in')) customElements.define('console-sign-in', ConsoleSignIn)

declare global {
  interface HTMLElementTagNameMap {
    'console-sign-in': ConsoleSignIn
  }
}
