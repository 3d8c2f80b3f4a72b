import { api } from './api.js';
import { metricChart, type SeriesPoint } from './charts.js';
import { clearProblem, h, showProblem } from './dom.js';
import { localDate, metricValue, monthRange } from './format.js';
import { refreshOnEvents } from './live.js';
import { knownLocations } from './locations.js';
import type { Panel } from './panel.js';
import type { Metric, Series } from './api-types.js';

const labels: Record<string, string> = {
  revenue_net: 'Revenue (net)',
  invoices_open: 'Open invoices',
  appointments_by_status: 'Appointments',
  no_show_rate: 'No-show rate',
  boarding_occupancy_rate: 'Boarding occupancy',
  grooming_completed: 'Grooms completed',
  vaccination_compliance_rate: 'Vaccination compliance',
  new_pets: 'New pets',
  active_pets: 'Active pets',
  marketplace_gmv: 'Marketplace GMV',
  commission_earned: 'Commission earned',
};

/** The four charts the manager asked for; the summary above them lists every metric. */
const charted = ['revenue_net', 'boarding_occupancy_rate', 'no_show_rate', 'vaccination_compliance_rate'] as const;

export const dashboardPanel: Panel = {
  id: 'dashboard',
  label: 'Dashboard',
  scope: 'analytics.read',
  mount(body, problem, session) {
    const location = h('select', { id: 'dash-location', name: 'locationId' }, h('option', { value: '' }, 'All my locations'));
    const month = h('input', { type: 'month', id: 'dash-month', name: 'month', value: localDate(new Date()).slice(0, 7), required: true });
    const kpis = h('dl', { class: 'kpis', 'aria-live': 'polite' });
    const boxes = new Map(charted.map((name) => [name, h('div', { class: 'chart-box' })]));
    const figures = charted.map((name) =>
      h('figure', { class: 'chart-card', 'data-metric': name }, h('figcaption', {}, labels[name] ?? name), boxes.get(name) ?? null),
    );
    const note = h('p', { class: 'muted' });

    async function load() {
      clearProblem(problem);
      const { from, to } = monthRange(month.value || localDate(new Date()).slice(0, 7));
      kpis.setAttribute('aria-busy', 'true');
      try {
        const locationId = location.value || undefined;
        const summary = await api<{ metrics: Metric[] }>('GET', '/v1/analytics/summary', { query: { from, to, locationId } });
        // Locations in several currencies give one revenue figure each: the chart draws one line per currency.
        const currencies = summary.metrics.filter((m) => m.name === 'revenue_net' && m.currency).map((m) => m.currency);
        const asked = (name: (typeof charted)[number]) => (name === 'revenue_net' && currencies.length > 0 ? currencies : [undefined]);
        const series = await Promise.all(
          charted.map((name) =>
            Promise.all(
              asked(name).map((currency) =>
                api<Series>('GET', `/v1/analytics/metrics/${name}`, { query: { from, to, locationId, interval: 'day', currency } }),
              ),
            ),
          ),
        );
        kpis.replaceChildren(
          ...summary.metrics.flatMap((m) => [
            h(
              'div',
              {
                class: 'kpi',
                'data-metric': m.name,
                'data-value': String(m.value),
                'data-currency': m.currency,
                title: `${m.basis.formula} (${m.basis.date})`,
              },
              h('dt', {}, labels[m.name] ?? m.name, m.currency ? ` (${m.currency})` : ''),
              h('dd', {}, metricValue(m.value, m.unit, m.currency)),
              m.breakdown?.length ? h('dd', { class: 'breakdown' }, m.breakdown.map((b) => `${b.key.replace(/_/g, ' ')} ${b.value}`).join(' · ')) : null,
            ),
          ]),
        );
        const asOf = summary.metrics[0]?.asOf;
        note.textContent = `${from} to ${to}, each location in its own time zone${asOf ? `; as of ${new Date(asOf).toLocaleString()}` : ''}. Hover a figure for how it is counted.`;
        series.forEach((lines, i) => {
          const name = charted[i];
          const box = name && boxes.get(name);
          const first = lines[0];
          if (box && first)
            metricChart(
              box,
              labels[first.name] ?? first.name,
              first.unit,
              lines.map((s) => ({ points: s.points, currency: s.currency })),
            );
        });
      } catch (error) {
        showProblem(problem, error);
      } finally {
        kpis.removeAttribute('aria-busy');
      }
    }

    const form = h(
      'form',
      {
        class: 'toolbar',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void load();
        },
      },
      h('label', { for: 'dash-month' }, 'Month'),
      month,
      h('label', { for: 'dash-location' }, 'Location'),
      location,
      h('button', { type: 'submit' }, 'Show'),
    );
    body.append(form, note, kpis, h('div', { class: 'charts' }, ...figures));
    void load();
    // Every event can move a figure (payments, bookings, stays, pets…): the month is read again after each burst.
    refreshOnEvents(body, () => true, load, { quietMs: 1_000, maxWaitMs: 5_000 });
    knownLocations(session).then(
      (known) => location.append(...[...known].map(([id, name]) => h('option', { value: id }, name))),
      (error: unknown) => showProblem(problem, error),
    );
  },
};
