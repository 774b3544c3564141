/**
 * `<pay-qr-wallet>` alone, from a fixture: the wallet step asks for what the session lacks and
 * checks it in place; the code step shows the code and asks for completion. Each step is a
 * `qr-step` event; the checkout makes the calls.
 */
import { expect, fixture, html } from '@open-wc/testing'
import '../../../widget/qr-wallet/qr-wallet.ts'
import type { PayQrWallet } from '../../../widget/qr-wallet/qr-wallet.ts'
import { messages, view } from './fixtures.ts'

type Step = { step: 'verify' | 'complete'; fields?: Record<string, unknown> }

async function steps(wallet: PayQrWallet, act: () => void): Promise<Step[]> {
  const fired: Step[] = []
  const listener = (e: Event) => fired.push((e as CustomEvent<Step>).detail)
  wallet.addEventListener('qr-step', listener)
  act()
  await wallet.updateComplete
  wallet.removeEventListener('qr-step', listener)
  return fired
}

function fill(wallet: PayQrWallet, name: string, value: string): void {
  const i = wallet.shadowRoot?.querySelector<HTMLInputElement>(`[name="${name}"]`)
  if (!i) throw new Error(`no input ${name}`)
  i.value = value
}

describe('<pay-qr-wallet> from a fixture', () => {
  it('asks for the wallet and only the names the session lacks; a wrong email is refused in place, then the step goes', async () => {
    const m = await messages()
    const wallet = await fixture<PayQrWallet>(
      html`<pay-qr-wallet .messages=${m} .view=${view({ flow: 'qr', methods: ['qr'], customer: { givenName: 'Ada', surname: 'Lovelace', email: undefined, phone: undefined, telnocc: undefined } })}></pay-qr-wallet>`,
    )
    const names = [...(wallet.shadowRoot?.querySelectorAll('input') ?? [])].map((i) => i.name)
    expect(names).to.deep.equal(['walletId', 'customer.email'])
    fill(wallet, 'walletId', 'ada.wallet')
    fill(wallet, 'customer.email', 'not an email')
    expect(await steps(wallet, () => wallet.submit())).to.deep.equal([])
    expect(wallet.shadowRoot?.querySelector('#customer-email')?.getAttribute('aria-invalid')).to.equal('true')
    // Said as the card forms say it: what an email looks like.
    expect(wallet.shadowRoot?.querySelector('#customer-email-error')?.textContent).to.equal(
      'Enter an email address like name@example.com.',
    )
    fill(wallet, 'customer.email', 'ada@example.com')
    expect(await steps(wallet, () => wallet.submit())).to.deep.equal([
      { step: 'verify', fields: { walletId: 'ada.wallet', customer: { email: 'ada@example.com' } } },
    ])
  })

  it('with a code: shows it and its wallet id, and confirming asks for completion; an expired code is replaced by the wallet step, for a new one', async () => {
    const m = await messages()
    const qr = {
      merchantWalletId: 'MW-12345',
      expiresAt: new Date(Date.now() + 300_000).toISOString(),
      withdrawn: false,
    }
    const wallet = await fixture<PayQrWallet>(
      html`<pay-qr-wallet .messages=${m} .view=${view({ flow: 'qr', methods: ['qr'], qr })}></pay-qr-wallet>`,
    )
    expect(wallet.shadowRoot?.querySelector('svg[part=qr]')).to.exist
    expect(wallet.shadowRoot?.querySelector('[part=wallet-id]')?.textContent).to.equal('MW-12345')
    expect(await steps(wallet, () => wallet.submit())).to.deep.equal([{ step: 'complete', fields: undefined }])
    wallet.view = view({
      flow: 'qr',
      methods: ['qr'],
      qr: { ...qr, expiresAt: new Date(Date.now() - 1_000).toISOString() },
    })
    await wallet.updateComplete
    expect(wallet.shadowRoot?.querySelector('svg[part=qr]')).to.equal(null)
    expect(wallet.shadowRoot?.querySelector('[role=status]')?.textContent).to.equal(
      'This QR code has expired. Get a new one below.',
    )
    fill(wallet, 'walletId', 'ada.wallet')
    fill(wallet, 'customer.givenName', 'Ada')
    fill(wallet, 'customer.surname', 'Lovelace')
    fill(wallet, 'customer.email', 'ada@example.com')
    expect((await steps(wallet, () => wallet.submit())).map((x) => x.step)).to.deep.equal(['verify'])
  })

  it('a keyboard shopper whose step went with its button is taken to the next: the code’s instructions, which name the code; the wallet id after an expired code', async () => {
    const m = await messages()
    const wallet = await fixture<PayQrWallet>(
      html`<pay-qr-wallet .messages=${m} .view=${view({ flow: 'qr', methods: ['qr'] })}></pay-qr-wallet>`,
    )
    const root = wallet.shadowRoot as ShadowRoot
    root.querySelector<HTMLButtonElement>('button[type=submit]')?.focus()
    // The checkout disables the step while it asks (the focus drops), then shows the code.
    wallet.busy = true
    await wallet.updateComplete
    const qr = {
      merchantWalletId: 'MW-12345',
      expiresAt: new Date(Date.now() + 300_000).toISOString(),
      withdrawn: false,
    }
    wallet.view = view({ flow: 'qr', methods: ['qr'], qr })
    wallet.busy = false
    await wallet.updateComplete
    expect(root.activeElement?.id).to.equal('scan')
    expect(root.activeElement?.textContent).to.equal(m.scanQr)
    expect(root.querySelector('svg[part=qr]')?.getAttribute('aria-labelledby')).to.equal('scan')
    await expect(wallet).to.be.accessible()
    // Its time up, the wallet step again: the wallet id takes the focus the code had.
    ;(root.activeElement as HTMLElement).blur()
    wallet.view = view({
      flow: 'qr',
      methods: ['qr'],
      qr: { ...qr, expiresAt: new Date(Date.now() - 1_000).toISOString() },
    })
    await wallet.updateComplete
    expect(root.activeElement?.id).to.equal('walletId')
  })

  it('on the first render takes no focus from the page', async () => {
    const m = await messages()
    const outside = document.createElement('input')
    document.body.append(outside)
    outside.focus()
    const qr = { merchantWalletId: 'MW-1', expiresAt: new Date(Date.now() + 300_000).toISOString(), withdrawn: false }
    const wallet = await fixture<PayQrWallet>(
      html`<pay-qr-wallet .messages=${m} .view=${view({ flow: 'qr', methods: ['qr'], qr })}></pay-qr-wallet>`,
    )
    expect(wallet.shadowRoot?.activeElement ?? null).to.equal(null)
    expect(document.activeElement).to.equal(outside)
    outside.remove()
  })
})
