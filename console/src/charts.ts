import uPlot from 'uplot';
import { h } from './dom.js';
import { metricValue } from './format.js';

export interface SeriesPoint {
  bucket: string;
  value: number;
}

/** Seconds since the epoch of a local date's midnight (uPlot's time axis is in seconds). */
const epochSeconds = (date: string): number => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime() / 1000;
};

/** What the y axis shows: money in major units, ratios in percent, counts as they are. */
function scaled(value: number, unit: string): number {
  if (unit === 'minor') return value / 100;
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
 * A line chart of one metric's series (uPlot, drawn on a canvas) and, under it, the same numbers as
 * a table for keyboards and screen readers: the chart is a picture, the table is the record.
 */
export function metricChart(box: HTMLElement, title: string, unit: string, points: SeriesPoint[], currency?: string): void {
  for (const chart of charts) {
    if (box.contains(chart.root)) {
      chart.destroy();
      charts.delete(chart);
    }
  }
  const plot = h('div', { class: 'chart', role: 'img', 'aria-label': `${title}, one point per day; the numbers are in the table below.` });
  const axisUnit = unit === 'minor' ? (currency ?? '') : unit === 'ratio' ? '%' : '';
  const rows = points.map((p) =>
    h('tr', {}, h('th', { scope: 'row' }, p.bucket), h('td', { 'data-value': String(p.value) }, metricValue(p.value, unit, currency))),
  );
  const data = h(
    'details',
    { class: 'chart-data' },
    h('summary', {}, `${title}: data`),
    h(
      'table',
      { class: 'data compact' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), h('th', { scope: 'col' }, 'Value'))),
      h('tbody', {}, ...rows),
    ),
  );
  box.replaceChildren(plot, data);
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
      series: [{}, { label: title, stroke: '#0f766e', width: 2, fill: 'rgba(15,118,110,0.12)', points: { show: points.length <= 31, size: 5 } }],
    },
    [points.map((p) => epochSeconds(p.bucket)), points.map((p) => scaled(p.value, unit))],
    plot,
  );
  charts.add(chart);
  resizer.observe(plot);
}
