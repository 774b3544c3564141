/**
 * @module
 * The sandbox gateway's memory: payments, registrations, invoices, scheduled notifications and
 * injected faults, in one SQLite-backed Durable Object so state survives a restart of
 * `wrangler dev`. One object serialises every check-and-write, which is what lets the sandbox
 * count charges exactly and refuse a duplicate merchantTransactionId under concurrency.
 *
 * Like the real gateway it keeps no card number: only BIN, last 4 and the test behaviour.
 */
import { DurableObject } from 'cloudflare:workers'
import type {
  PaymentRow,
  RegistrationRow,
  InvoiceRow,
  Fault,
  FaultRule,
  BeginResult,
  BackOfficeResult,
} from './rows.ts'
import { registrationOf } from './rows.ts'

export type {
  PaymentKind,
  BackOfficeKind,
  PaymentRow,
  RegistrationRow,
  InvoiceRow,
  Fault,
  FaultRule,
  BeginResult,
  BackOfficeResult,
} from './rows.ts'

const PAYMENT_COLUMNS: (keyof PaymentRow)[] = [
  'id',
  'kind',
  'mtid',
  'amount',
  'currency',
  'paymentType',
  'recurring',
  'status',
  'code',
  'description',
  'brand',
  'bin',
  'last4',
  'expiryMonth',
  'expiryYear',
  'holder',
  'registrationId',
  'parentId',
  'notificationUrl',
  'redirectUrl',
  'redirectMethod',
  'walletId',
  'merchantWalletId',
  'email',
  'behaviour',
  'createRegistration',
  'created',
]

/** Statuses that hold a merchantTransactionId: a new charge with the same one is a duplicate. */
const LIVE = ['Y', 'P', '3D']

/** Amount text to integer hundredths (the sandbox's own, so it shares no code with the Worker's bounds). */
const cents = (amount: string): number => {
  const [whole = '0', frac = '0'] = amount.split('.')
  return Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2))
}

/** What `GET /sandbox/stats` answers: charges in total, for one order or one payment, and tokens issued. */
export interface SandboxStats {
  charges: number
  succeeded: number
  byMtid?: number
  records?: number
  captures?: number
  refunds?: number
  reversals?: number
  /** AuthTokens issued since the sandbox started with this state. */
  tokens: number
}

export class SandboxLedger extends DurableObject<Record<string, unknown>> {
  private readonly sql: SqlStorage

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    this.sql = ctx.storage.sql
    ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(
        `CREATE TABLE IF NOT EXISTS payments (${PAYMENT_COLUMNS.map((c) => (c === 'id' ? 'id TEXT PRIMARY KEY' : c === 'createRegistration' ? `${c} INTEGER` : `${c} TEXT`)).join(', ')})`,
      )
      this.sql.exec('CREATE INDEX IF NOT EXISTS payments_mtid ON payments (mtid)')
      this.sql.exec(
        'CREATE TABLE IF NOT EXISTS registrations (id TEXT PRIMARY KEY, brand TEXT, bin TEXT, last4 TEXT, expiryMonth TEXT, expiryYear TEXT, holder TEXT, behaviour TEXT, initialDone INTEGER)',
      )
      this.sql.exec(
        "CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, merchantInvoiceId TEXT UNIQUE, amount TEXT, currency TEXT, period INTEGER, createdMs INTEGER, email TEXT, description TEXT, redirectUrl TEXT, notificationUrl TEXT, paymentId TEXT, sourceId TEXT DEFAULT '')",
      )
      this.sql.exec(
        'CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT, body TEXT, due INTEGER, settleId TEXT, settleStatus TEXT, settleCode TEXT, settleDescription TEXT)',
      )
      this.sql.exec(
        'CREATE TABLE IF NOT EXISTS faults (id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT, fault TEXT, field TEXT, value TEXT, remaining INTEGER)',
      )
      // Every AuthToken issued: how many token requests the merchant's deployment made.
      this.sql.exec('CREATE TABLE IF NOT EXISTS tokens (n INTEGER PRIMARY KEY AUTOINCREMENT, service TEXT, at INTEGER)')
    })
  }

  /** Counts an AuthToken issued for a service (`transaction` or `invoice`). */
  tokenIssued(service: string): void {
    this.sql.exec('INSERT INTO tokens (service, at) VALUES (?, ?)', service, Date.now())
  }

  /**
   * Records a new payment, refusing a second live charge with the same merchantTransactionId
   * (a declined one may be retried with it). Check and insert are one step: nothing interleaves.
   */
  begin(row: PaymentRow, uniqueMtid: boolean): BeginResult {
    if (uniqueMtid) {
      const live = this.sql
        .exec(
          `SELECT COUNT(*) AS n FROM payments WHERE mtid = ? AND kind = ? AND status IN (${LIVE.map(() => '?').join(',')})`,
          row.mtid,
          row.kind,
          ...LIVE,
        )
        .one()
      if (Number(live.n) > 0) return { ok: false, reason: 'duplicate' }
    }
    this.sql.exec(
      `INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${PAYMENT_COLUMNS.map(() => '?').join(', ')})`,
      ...PAYMENT_COLUMNS.map((c) => row[c]),
    )
    return { ok: true }
  }

  /**
   * Records a capture, refund or reversal of `row.parentId`, if the parent's state and amounts
   * allow it, in one step (a second refund of the whole amount racing the first is refused):
   * - capture: an authorisation (PA, succeeded) not captured or reversed yet, up to its amount;
   * - reversal: an authorisation not captured or reversed yet;
   * - refund: a captured payment (DB succeeded, or PA captured), up to what was captured less what
   *   was refunded.
   */
  backOffice(row: PaymentRow): BackOfficeResult {
    const parent = this.payment(row.parentId)
    if (!parent || !['card', 'token', 'repeat', 'qr', 'invoice'].includes(parent.kind) || parent.status === 'V')
      return { ok: false, reason: 'not_found' }
    if (parent.status !== 'Y') return { ok: false, reason: 'not_permitted' }
    const children = this.children(parent.id)
    if (row.mtid && children.some((c) => c.mtid === row.mtid)) return { ok: false, reason: 'duplicate' }
    const sum = (kind: string) =>
      children.filter((c) => c.kind === kind).reduce((n, c) => n + cents(c.amount || '0.00'), 0)
    const captured = parent.paymentType === 'PA' ? sum('capture') : cents(parent.amount)
    const reversed = children.some((c) => c.kind === 'reversal')
    const authorisation = parent.paymentType === 'PA' && !reversed && !children.some((c) => c.kind === 'capture')
    if (row.kind !== 'reversal' && row.currency !== parent.currency) return { ok: false, reason: 'currency' }
    if (row.kind === 'capture') {
      if (!authorisation) return { ok: false, reason: 'not_permitted' }
      if (cents(row.amount) > cents(parent.amount)) return { ok: false, reason: 'amount' }
    } else if (row.kind === 'reversal') {
      if (!authorisation) return { ok: false, reason: 'not_permitted' }
    } else if (row.kind === 'refund') {
      if (captured === 0) return { ok: false, reason: 'not_permitted' }
      if (cents(row.amount) > captured - sum('refund')) return { ok: false, reason: 'amount' }
    }
    this.sql.exec(
      `INSERT INTO payments (${PAYMENT_COLUMNS.join(', ')}) VALUES (${PAYMENT_COLUMNS.map(() => '?').join(', ')})`,
      ...PAYMENT_COLUMNS.map((c) => row[c]),
    )
    return { ok: true }
  }

  /** The captures, refunds and reversals recorded on a payment. */
  children(parentId: string): PaymentRow[] {
    return this.sql
      .exec<Record<string, SqlStorageValue>>(
        "SELECT * FROM payments WHERE parentId = ? AND kind IN ('capture', 'refund', 'reversal') ORDER BY rowid",
        parentId,
      )
      .toArray() as unknown as PaymentRow[]
  }

  /** Deletes a registration; false when there was none. */
  deleteRegistration(id: string): boolean {
    return this.sql.exec('DELETE FROM registrations WHERE id = ?', id).rowsWritten > 0
  }

  payment(id: string): PaymentRow | undefined {
    return this.sql.exec<Record<string, SqlStorageValue>>('SELECT * FROM payments WHERE id = ?', id).toArray()[0] as
      PaymentRow | undefined
  }

  /** The latest payment with this merchantTransactionId (what an inquiry by MID reports). */
  paymentByMtid(mtid: string): PaymentRow | undefined {
    return this.sql
      .exec<Record<string, SqlStorageValue>>(
        'SELECT * FROM payments WHERE mtid = ? ORDER BY created DESC, rowid DESC LIMIT 1',
        mtid,
      )
      .toArray()[0] as PaymentRow | undefined
  }

  settle(id: string, status: string, code: string, description: string, paymentType?: string): PaymentRow | undefined {
    this.sql.exec(
      'UPDATE payments SET status = ?, code = ?, description = ? WHERE id = ?',
      status,
      code,
      description,
      id,
    )
    if (paymentType) this.sql.exec('UPDATE payments SET paymentType = ? WHERE id = ?', paymentType, id)
    return this.payment(id)
  }

  addRegistration(row: RegistrationRow): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO registrations (id, brand, bin, last4, expiryMonth, expiryYear, holder, behaviour, initialDone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      row.id,
      row.brand,
      row.bin,
      row.last4,
      row.expiryMonth,
      row.expiryYear,
      row.holder,
      row.behaviour,
      row.initialDone,
    )
  }

  registration(id: string): RegistrationRow | undefined {
    return this.sql
      .exec<Record<string, SqlStorageValue>>('SELECT * FROM registrations WHERE id = ?', id)
      .toArray()[0] as RegistrationRow | undefined
  }

  markInitialDone(id: string): void {
    this.sql.exec('UPDATE registrations SET initialDone = 1 WHERE id = ?', id)
  }

  /** Stores an invoice; refuses a merchantInvoiceId that exists already. */
  addInvoice(row: InvoiceRow): boolean {
    const exists = this.sql
      .exec('SELECT COUNT(*) AS n FROM invoices WHERE merchantInvoiceId = ?', row.merchantInvoiceId)
      .one()
    if (Number(exists.n) > 0) return false
    this.sql.exec(
      'INSERT INTO invoices (id, merchantInvoiceId, amount, currency, period, createdMs, email, description, redirectUrl, notificationUrl, paymentId, sourceId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      row.id,
      row.merchantInvoiceId,
      row.amount,
      row.currency,
      row.period,
      row.createdMs,
      row.email,
      row.description,
      row.redirectUrl,
      row.notificationUrl,
      row.paymentId,
      row.sourceId,
    )
    return true
  }

  invoiceByMerchantId(merchantInvoiceId: string): InvoiceRow | undefined {
    return this.sql
      .exec<Record<string, SqlStorageValue>>('SELECT * FROM invoices WHERE merchantInvoiceId = ?', merchantInvoiceId)
      .toArray()[0] as InvoiceRow | undefined
  }

  invoice(id: string): InvoiceRow | undefined {
    return this.sql.exec<Record<string, SqlStorageValue>>('SELECT * FROM invoices WHERE id = ?', id).toArray()[0] as
      InvoiceRow | undefined
  }

  /** Marks an unpaid invoice paid by this payment; false when it was paid already. */
  payInvoice(id: string, paymentId: string): boolean {
    const cursor = this.sql.exec("UPDATE invoices SET paymentId = ? WHERE id = ? AND paymentId = ''", paymentId, id)
    return cursor.rowsWritten > 0
  }

  /**
   * Queues work for `delayMs` from now: settling a pending payment, and/or one notification POST
   * (skipped when `url` is empty). The alarm does both, settling first, and delivers once.
   */
  async later(
    delayMs: number,
    url: string,
    body: string,
    settle?: { id: string; status: string; code: string; description: string },
  ): Promise<void> {
    const due = Date.now() + delayMs
    this.sql.exec(
      'INSERT INTO outbox (url, body, due, settleId, settleStatus, settleCode, settleDescription) VALUES (?, ?, ?, ?, ?, ?, ?)',
      url,
      body,
      due,
      settle?.id ?? '',
      settle?.status ?? '',
      settle?.code ?? '',
      settle?.description ?? '',
    )
    const current = await this.ctx.storage.getAlarm()
    if (current === null || current > due) await this.ctx.storage.setAlarm(due)
  }

  override async alarm(): Promise<void> {
    const now = Date.now()
    type Item = {
      id: number
      url: string
      body: string
      settleId: string
      settleStatus: string
      settleCode: string
      settleDescription: string
    }
    const due = this.sql.exec<Item>('SELECT * FROM outbox WHERE due <= ? ORDER BY due', now).toArray()
    for (const item of due) {
      this.sql.exec('DELETE FROM outbox WHERE id = ?', item.id)
      if (item.settleId) {
        const settled = this.settle(item.settleId, item.settleStatus, item.settleCode, item.settleDescription)
        // A pending payment that saved its card stores it once it succeeds, as an immediate one does.
        if (settled?.status === 'Y' && settled.registrationId) this.addRegistration(registrationOf(settled))
      }
      if (!item.url) continue
      // Sent once, like the real gateway (no retries were found upstream): a receiver that is down misses it.
      try {
        const res = await fetch(item.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: item.body,
          signal: AbortSignal.timeout(10_000),
        })
        await res.body?.cancel()
      } catch {
        // Delivery failed: the merchant's inquiry is the fallback, as with the real gateway.
      }
    }
    const next = this.sql.exec<{ due: number | null }>('SELECT MIN(due) AS due FROM outbox').one().due
    if (next !== null) await this.ctx.storage.setAlarm(next)
  }

  addFault(rule: FaultRule): void {
    this.sql.exec(
      'INSERT INTO faults (op, fault, field, value, remaining) VALUES (?, ?, ?, ?, ?)',
      rule.op,
      rule.fault,
      rule.field ?? '',
      rule.value ?? '',
      rule.times ?? 1,
    )
  }

  /** Takes one use of the first fault rule matching this request, if any. */
  takeFault(op: string, fields: Record<string, string>): Fault | undefined {
    const rules = this.sql
      .exec<{ id: number; fault: string; field: string; value: string }>(
        'SELECT id, fault, field, value FROM faults WHERE op = ? AND remaining > 0 ORDER BY id',
        op,
      )
      .toArray()
    const hit = rules.find((r) => r.field === '' || fields[r.field] === r.value)
    if (!hit) return undefined
    this.sql.exec('UPDATE faults SET remaining = remaining - 1 WHERE id = ?', hit.id)
    this.sql.exec('DELETE FROM faults WHERE remaining <= 0')
    return hit.fault as Fault
  }

  /** Charges per merchantTransactionId and in total: what the load benchmark and tests count. */
  stats(mtid?: string, parent?: string): SandboxStats {
    const charged = "kind IN ('card','token','repeat','invoice') OR (kind = 'qr' AND status != 'V')"
    const total = this.sql.exec(`SELECT COUNT(*) AS n FROM payments WHERE ${charged}`).one()
    const ok = this.sql.exec(`SELECT COUNT(*) AS n FROM payments WHERE (${charged}) AND status = 'Y'`).one()
    const out: SandboxStats = {
      charges: Number(total.n),
      succeeded: Number(ok.n),
      tokens: Number(this.sql.exec('SELECT COUNT(*) AS n FROM tokens').one().n),
    }
    if (parent !== undefined) {
      // What reached the gateway on one payment: captures, refunds and reversals recorded.
      const rows = this.children(parent)
      out.captures = rows.filter((r) => r.kind === 'capture').length
      out.refunds = rows.filter((r) => r.kind === 'refund').length
      out.reversals = rows.filter((r) => r.kind === 'reversal').length
    }
    if (mtid !== undefined) {
      out.byMtid = Number(
        this.sql.exec(`SELECT COUNT(*) AS n FROM payments WHERE mtid = ? AND (${charged})`, mtid).one().n,
      )
      // Everything the gateway recorded for it, charge or not (a QR verify, a refused repeat...).
      out.records = Number(this.sql.exec('SELECT COUNT(*) AS n FROM payments WHERE mtid = ?', mtid).one().n)
    }
    return out
  }
}
