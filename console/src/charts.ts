import uPlot from 'uplot';
import { h } from './dom.js';
import { metricValue, minorDigits } from './format.js';

export interface SeriesPoint {
  bucket: string;
  value: number;
}

/** One line of a chart: a metric's points, in one currency when it counts money. */
export interface ChartSeries {
  points: SeriesPoint[];
  currency?: string | undefined;
}

/** Line colours, in series order; console.css gives the legend's swatches the same ones (`.series-<i>`). */
const palette = ['#0f766e', '#b45309', '#6d28d9', '#be123c', '#1d4ed8', '#4d7c0f'] as const;
const fills = ['rgba(15,118,110,0.12)', 'rgba(180,83,9,0.10)', 'rgba(109,40,217,0.10)', 'rgba(190,18,60,0.10)', 'rgba(29,78,216,0.10)', 'rgba(77,124,15,0.10)'];

/** Seconds since the epoch of a local date's midnight (uPlot's time axis is in seconds). */
const epochSeconds = (date: string): number => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime() / 1000;
};

/** What the y axis shows: money in major units of its currency, ratios in percent, counts as they are. */
function scaled(value: number, unit: string, currency: string | undefined): number {
  if (unit === 'minor') return value / 10 ** minorDigits(currency);
  if (unit === 'ratio') return value * 100;
  return value;
}

const charts = new Set<uPlot>();

/** Keeps every chart as wide as its box (the page reflows between 1280 px and a tablet). */
const resizer = new ResizeObserver((entries) => {
  for (const entry of entries) {
    for (const chart of charts) {
      if (chart.root.parentElement === entry.target) chart.setSize({ width: Math.max(200, Math.floor(entry.contentRect.width)), height: 180 });
    }
  }
});

/**
 * A line chart of one metric (uPlot, drawn on a canvas) and, under it, the same numbers as a table
 * for keyboards and screen readers: the chart is a picture, the table is the record. A money metric
 * of locations in several currencies comes as one series per currency: each is its own line, named
 * in a legend and in its own table column; amounts of different currencies are never added up.
 */
export function metricChart(box: HTMLElement, title: string, unit: string, series: ChartSeries[]): void {
  for (const chart of charts) {
    if (box.contains(chart.root)) {
      chart.destroy();
      charts.delete(chart);
    }
  }
  const lines = series.length ? series : [{ points: [] }];
  const several = lines.length > 1;
  const name = (s: ChartSeries) => (s.currency && several ? s.currency : title);
  // Every day any series has, in order: the series of one request share their buckets, but a gap must not shift a line.
  const buckets = [...new Set(lines.flatMap((s) => s.points.map((p) => p.bucket)))].sort();
  const byBucket = lines.map((s) => new Map(s.points.map((p) => [p.bucket, p.value])));
  const plot = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `${title}, one point per day${several ? `, one line per currency (${lines.map((s) => s.currency).join(', ')})` : ''}; the numbers are in the table below.`,
  });
  const currencies = lines.map((s) => s.currency).filter((c): c is string => !!c);
  const axisUnit = unit === 'minor' ? currencies.join(' · ') : unit === 'ratio' ? '%' : '';
  const legend = several
    ? h(
        'ul',
        { class: 'legend chart-legend', 'aria-label': `${title}: lines` },
        ...lines.map((s, i) =>
          h('li', { 'data-currency': s.currency }, h('span', { class: `swatch series-${i % palette.length}`, 'aria-hidden': 'true' }), name(s)),
        ),
      )
    : null;
  const rows = buckets.map((bucket) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, bucket),
      ...lines.map((s, i) => {
        const value = byBucket[i]?.get(bucket);
        return h(
          'td',
          { 'data-value': value === undefined ? undefined : String(value), 'data-currency': s.currency },
          value === undefined ? '—' : metricValue(value, unit, s.currency),
        );
      }),
    ),
  );
  const data = h(
    'details',
    { class: 'chart-data' },
    h('summary', {}, `${title}: data`),
    h(
      'table',
      { class: 'data compact' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), ...lines.map((s) => h('th', { scope: 'col' }, several ? name(s) : 'Value')))),
      h('tbody', {}, ...rows),
    ),
  );
  box.replaceChildren(plot, legend ?? '', data);
  const width = Math.max(200, Math.floor(box.clientWidth || 400));
  const chart = new uPlot(
    {
      width,
      height: 180,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: unit === 'ratio' ? { range: [0, 100] } : { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max * 1.1)] } },
      axes: [
        // Day and month in the reader's own format (uPlot's default is month/day).
        {
          stroke: '#475569',
          grid: { stroke: '#e2e8f0' },
          values: (_u, ticks) => ticks.map((t) => new Date(t * 1000).toLocaleDateString(undefined, { day: 'numeric', month: 'short' })),
        },
        {
          stroke: '#475569',
          grid: { stroke: '#e2e8f0' },
          size: 64,
          values: (_u, ticks) => ticks.map((t) => `${Math.round(t * 100) / 100}${axisUnit === '%' ? ' %' : ''}`),
          label: axisUnit && axisUnit !== '%' ? axisUnit : undefined,
        },
      ],
      series: [
        {},
        ...lines.map((s, i) => ({
          label: name(s),
          stroke: palette[i % palette.length],
          width: 2,
          fill: several ? undefined : fills[i % fills.length],
          points: { show: buckets.length <= 31, size: 5 },
        })),
      ],
    },
    [
      buckets.map(epochSeconds),
      ...lines.map((s, i) =>
        buckets.map((bucket) => {
          const value = byBucket[i]?.get(bucket);
          return value === undefined ? null : scaled(value, unit, s.currency);
        }),
      ),
    ],
    plot,
  );
  charts.add(chart);
  resizer.observe(plot);
}
