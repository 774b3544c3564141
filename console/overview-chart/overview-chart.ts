/**
 * @module
 * `<overview-chart>`: the last 14 days at a glance: payments and volume per day (an SVG bar chart
 * drawn here: a charting library would weigh more than the whole console for fourteen bars, and
 * the same figures are in a table beside it for screen readers and for reading exact values), the
 * checkout attempts' success rate and the top decline reasons. Days are UTC days, as the API
 * counts them.
 */
import { css, html, LitElement, svg, type PropertyValues } from 'lit'
import { describeError, signedOut, type ConsoleApi, type Overview } from '../api.ts'
import { formatAmount, parseAmount } from '../../shared/money.ts'
import { count, day, money, percent } from '../format.ts'
import { shared } from '../styles.ts'

const DAYS = 14
const DAY_MS = 86_400_000

export class OverviewChart extends LitElement {
  static override styles = [
    shared,
    css`
      .figures {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
        gap: 1rem;
        margin-bottom: 1rem;
      }
      .figure {
        font-size: 1.6rem;
        font-weight: 700;
      }
      svg {
        width: 100%;
        height: auto;
        display: block;
      }
      .bar {
        fill: var(--c-accent);
      }
      .axis {
        stroke: var(--c-border);
      }
      .label {
        fill: var(--c-muted);
        font-size: 11px;
      }
      /* The chart scales with its width: on a phone its days would be 5 px, so they are drawn twice
         as large and every other one is left to the table (today's is always drawn). */
      .chart {
        container-type: inline-size;
      }
      @container (max-width: 32rem) {
        .label {
          font-size: 22px;
        }
        .label.odd {
          display: none;
        }
      }
      details {
        margin-top: 0.75rem;
      }
      ol {
        margin: 0;
        padding-inline-start: 1.25rem;
      }
    `,
  ]
  static override properties = {
    api: { attribute: false },
    locale: {},
    overview: { state: true },
    error: { state: true },
  }

  declare api: ConsoleApi
  declare locale: string
  declare private overview: Overview | undefined
  declare private error: string

  constructor() {
    super()
    this.locale = 'en'
    this.error = ''
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('api')) void this.load()
  }

  private async load(): Promise<void> {
    const { data, error, response } = await this.api.GET('/v1/reports/overview', {
      params: { query: { days: DAYS } },
    })
    if (response.status === 401) return signedOut(this)
    if (!data) this.error = describeError(error, response.status)
    else this.overview = data
  }

  override render() {
    const o = this.overview
    return html`
      <h1>Overview</h1>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : ''}
      ${o ? this.figures(o) : this.error ? '' : html`<p role="status">Loading the overview…</p>`}
    `
  }

  private figures(o: Overview) {
    // The chart shows the currency with the most payments; the table lists every one.
    const byCurrency = new Map<string, number>()
    for (const d of o.days) byCurrency.set(d.currency, (byCurrency.get(d.currency) ?? 0) + d.count)
    const currency = [...byCurrency].sort((a, b) => b[1] - a[1])[0]?.[0]
    const start = Date.parse(o.since)
    const days = Array.from({ length: DAYS }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10))
    const volumes = days.map((date) =>
      Number(o.days.find((d) => d.date === date && d.currency === currency)?.volume ?? 0),
    )
    // Summed in hundredths, as the API sums each day.
    const totals = [...byCurrency.keys()].map((c) => ({
      currency: c,
      volume: formatAmount(
        o.days.filter((d) => d.currency === c).reduce((sum, d) => sum + (parseAmount(d.volume) ?? 0), 0),
      ),
    }))
    const paymentsCount = o.days.reduce((sum, d) => sum + d.count, 0)
    const a = o.attempts
    return html`
      <div class="figures">
        <section class="card" aria-labelledby="f-count">
          <h2 id="f-count">Payments</h2>
          <p class="figure">${count(paymentsCount, this.locale)}</p>
          <p class="muted">last ${DAYS} days</p>
        </section>
        <section class="card" aria-labelledby="f-volume">
          <h2 id="f-volume">Volume authorised</h2>
          ${
            totals.length
              ? totals.map((t) => html`<p class="figure ltr">${money(t.volume, t.currency, this.locale)}</p>`)
              : html`<p class="figure">—</p>`
          }
          <p class="muted">last ${DAYS} days, before captures and refunds</p>
        </section>
        <section class="card" aria-labelledby="f-rate">
          <h2 id="f-rate">Success rate</h2>
          <p class="figure">${a.successRate === null ? '—' : percent(a.successRate, this.locale)}</p>
          <p class="muted">
            ${count(a.succeeded, this.locale)} paid, ${count(a.declined, this.locale)} declined,
            ${count(a.failed, this.locale)} failed attempts
          </p>
        </section>
        <section class="card" aria-labelledby="f-declines">
          <h2 id="f-declines">Top decline reasons</h2>
          ${
            o.declineReasons.length
              ? html`<ol>
                ${o.declineReasons.map(
                  (r) => html`<li>${r.description ?? r.code ?? 'unknown'} (${count(r.count, this.locale)})</li>`,
                )}
              </ol>`
              : html`<p class="muted">No declines.</p>`
          }
        </section>
      </div>
      <section class="card" aria-labelledby="chart-title">
        <h2 id="chart-title">Volume authorised per day${currency ? ` (${currency})` : ''}</h2>
        <div class="chart">${this.chart(days, volumes, currency)}</div>
        <details>
          <summary>The figures as a table</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Currency</th>
                <th scope="col" class="num">Payments</th>
                <th scope="col" class="num">Volume authorised</th>
              </tr>
            </thead>
            <tbody>
              ${o.days.map(
                (d) => html`<tr>
                  <td>${day(d.date, this.locale)}</td>
                  <td>${d.currency}</td>
                  <td class="num">${count(d.count, this.locale)}</td>
                  <td class="num ltr">${money(d.volume, d.currency, this.locale)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </details>
      </section>
    `
  }

  private chart(days: string[], volumes: number[], currency: string | undefined) {
    const width = 700
    const height = 220
    const bottom = 190
    const max = Math.max(...volumes, 1)
    const step = width / days.length
    const summary = currency
      ? `Volume authorised per day in ${currency}, ${days.length} days, highest ${money(max.toFixed(2), currency, this.locale)}`
      : 'No payments in these days'
    // A margin each side for the first and last days' labels, centred under bars at the edges.
    const margin = 40
    return html`<svg viewBox="${-margin} 0 ${width + 2 * margin} ${height}" role="img" aria-label=${summary}>
      ${svg`<line class="axis" x1="0" x2=${width} y1=${bottom} y2=${bottom}></line>`}
      ${days.map((date, i) => {
        const h = ((volumes[i] ?? 0) / max) * (bottom - 10)
        const x = i * step + step * 0.15
        return svg`<rect class="bar" x=${x} y=${bottom - h} width=${step * 0.7} height=${h} rx="3"></rect>
          <text class=${(days.length - 1 - i) % 2 ? 'label odd' : 'label'} x=${x + step * 0.35} y=${bottom + 6} text-anchor="middle" dominant-baseline="hanging">${day(date, this.locale)}</text>`
      })}
    </svg>`
  }
}

if (!customElements.get('overview-chart')) customElements.define('overview-chart', OverviewChart)

declare global {
  interface HTMLElementTagNameMap {
    'overview-chart': OverviewChart
  }
}
