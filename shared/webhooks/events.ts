/**
 * @module
 * Every merchant event type, whether it ends what it is about, and when it is sent: the one list
 * the code, the OpenAPI document (`webhooks`) and the README's table follow.
 */

export const EVENT_TYPES = {
  'checkout.attempt.processing': { final: false, about: 'session', when: 'An attempt was sent to the gateway.' },
  'checkout.attempt.action_required': { final: false, about: 'session', when: 'The shopper was sent to 3-D Secure.' },
  'checkout.attempt.pending': { final: false, about: 'session', when: 'The gateway settles the attempt later.' },
  'checkout.attempt.unknown': {
    final: false,
    about: 'session',
    when: 'The answer never came; a status inquiry follows.',
  },
  'checkout.attempt.declined': {
    final: false,
    about: 'session',
    when: 'Declined while attempts remain; a later success may follow.',
  },
  'checkout.attempt.reopened': {
    final: false,
    about: 'session',
    when: 'The attempt took no money (refused, or unknown to the gateway); the session can be paid.',
  },
  'checkout.session.succeeded': { final: true, about: 'session', when: 'Paid.' },
  'checkout.session.failed': {
    final: true,
    about: 'session',
    when: 'No attempt left, or the invoice does not match the session; nothing was charged.',
  },
  'checkout.session.charged_again': {
    final: false,
    about: 'session',
    when: 'Money was taken a second time for this paid session (data.paymentId: a QR code or a card attempt that completed after another way paid). Its payment record is open: refund or void it.',
  },
  'checkout.session.expired': {
    final: true,
    about: 'session',
    when: 'The session ran out of time with no payment in flight.',
  },
  'checkout.breaker.tripped': {
    final: false,
    about: 'deployment',
    when: 'Declines across the deployment passed the threshold: card attempts need Turnstile (or are refused) until data.until.',
  },
  'checkout.breaker.reset': { final: false, about: 'deployment', when: 'Card attempts flow normally again.' },
  'invoice.regenerated': {
    final: false,
    about: 'session',
    when: "The session's invoice was regenerated (data.invoice).",
  },
  'payment.repeat.pending': { final: false, about: 'operation', when: 'A repeat is settled later.' },
  'payment.repeat.unknown': {
    final: false,
    about: 'operation',
    when: "A repeat's answer never came; a status inquiry follows.",
  },
  'payment.repeat.succeeded': { final: true, about: 'operation', when: 'The repeat was charged.' },
  'payment.repeat.declined': { final: true, about: 'operation', when: 'The repeat was declined.' },
  'payment.repeat.failed': {
    final: true,
    about: 'operation',
    when: 'The gateway refused the repeat, or it was refused before it was sent (data.error: registration_deleted); nothing was charged. data.repeatOf and data.amount name the request.',
  },
  'payment.repeat.needs_attention': {
    final: false,
    about: 'operation',
    when: "A repeat's outcome is still unknown after about two hours of inquiries; it is still asked about hourly until the gateway says (GET /v1/operations?needs_attention=true lists them meanwhile).",
  },
  'invoice.regenerate.succeeded': {
    final: false,
    about: 'operation',
    when: 'A merchant-route regeneration made the invoice; invoice.paid or invoice.declined follows when it is paid.',
  },
  'invoice.regenerate.unknown': {
    final: false,
    about: 'operation',
    when: "A regeneration's answer never came; it is asked again.",
  },
  'invoice.regenerate.failed': { final: true, about: 'operation', when: 'The gateway refused the regeneration.' },
  'invoice.regenerate.needs_attention': {
    final: false,
    about: 'operation',
    when: "A regeneration's answer is still missing after about two hours of tries; it is still asked about hourly until the gateway says.",
  },
  'invoice.expired': {
    final: true,
    about: 'operation',
    when: 'The regenerated invoice ran out of time unpaid (its invoiceExpirationPeriod).',
  },
  'invoice.paid': { final: true, about: 'operation', when: 'The regenerated invoice was paid.' },
  'invoice.declined': {
    final: false,
    about: 'operation',
    when: 'A try to pay the regenerated invoice was declined; the shopper may try again on its page, and invoice.paid follows if they pay.',
  },
  'payment.captured': {
    final: true,
    about: 'payment',
    when: 'The authorisation was captured (data.operation: the capture; data.amountCaptured).',
  },
  'payment.capture_failed': {
    final: true,
    about: 'payment',
    when: 'The gateway refused the capture; nothing was captured.',
  },
  'payment.capture_unknown': {
    final: false,
    about: 'payment',
    when: "A capture's answer never came; a status inquiry follows (never a second capture).",
  },
  'payment.capture_needs_attention': {
    final: false,
    about: 'payment',
    when: "A capture's outcome is still unknown after about six hours of inquiries; it is still asked about hourly until the gateway says (GET /v1/payments?needs_attention=true lists such payments meanwhile).",
  },
  'payment.voided': { final: true, about: 'payment', when: 'The authorisation was voided; its funds are released.' },
  'payment.void_failed': { final: true, about: 'payment', when: 'The gateway refused the void.' },
  'payment.void_unknown': {
    final: false,
    about: 'payment',
    when: "A void's answer never came; a status inquiry follows.",
  },
  'payment.void_needs_attention': {
    final: false,
    about: 'payment',
    when: "A void's outcome is still unknown after about six hours of inquiries; it is still asked about hourly until the gateway says.",
  },
  'refund.succeeded': {
    final: true,
    about: 'payment',
    when: 'A refund was made (data.operation: the refund; data.amountRefunded: the total so far).',
  },
  'refund.failed': { final: true, about: 'payment', when: 'The gateway refused the refund; nothing was refunded.' },
  'refund.unknown': {
    final: false,
    about: 'payment',
    when: "A refund's answer never came; a status inquiry follows (never a second refund).",
  },
  'refund.needs_attention': {
    final: false,
    about: 'payment',
    when: "A refund's outcome is still unknown after about six hours of inquiries; it is still asked about hourly until the gateway says.",
  },
  'registration.created': {
    final: false,
    about: 'registration',
    when: "A setup session (flow setup) registered the shopper's card (data.registrationId; its authorisation is being voided by the Worker), or the card a card session's payment saved became known after its checkout.session.succeeded, which said registrationId null (a notification settled the payment before its answer).",
  },
  'registration.deleted': {
    final: true,
    about: 'registration',
    when: 'A saved card was deleted at the gateway; new sessions with it are refused.',
  },
} as const satisfies Record<
  string,
  { final: boolean; about: 'session' | 'operation' | 'deployment' | 'payment' | 'registration'; when: string }
>

export type EventType = keyof typeof EVENT_TYPES
