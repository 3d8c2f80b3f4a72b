/** Decimal places of a currency's minor unit (2 for most; Intl knows the exceptions, e.g. JPY 0). */
export const minorDigits = (currency = 'USD'): number =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** Money in minor units shown in its currency. */
export function money(minor: number, currency = 'USD'): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(minor / 10 ** minorDigits(currency));
}

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)} %`;

export const count = (n: number): string => new Intl.NumberFormat('en').format(n);

/** A metric value as the API's unit says. */
export function metricValue(value: number, unit: string, currency?: string): string {
  if (unit === 'minor') return money(value, currency);
  if (unit === 'ratio') return percent(value);
  return count(value);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The browser's local calendar date, YYYY-MM-DD. */
export const localDate = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return localDate(new Date(y, m - 1, d + days));
}

/** First and last day of the month of `yyyyMm` (YYYY-MM). */
export function monthRange(yyyyMm: string): { from: string; to: string } {
  const [y, m] = yyyyMm.split('-').map(Number) as [number, number];
  return { from: `${yyyyMm}-01`, to: localDate(new Date(y, m, 0)) };
}

export const time = (iso: string): string => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

export const dateTime = (iso: string | null | undefined): string =>
  iso
    ? new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : '—';

const noon = (date: string): Date => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d, 12);
};

export const weekday = (date: string): string => noon(date).toLocaleDateString(undefined, { weekday: 'short' });

export const dayNumber = (date: string): string => String(noon(date).getDate());

/** A calendar date (YYYY-MM-DD) in the reader's format, e.g. 10 Dec 2026. */
export const longDate = (date: string | null | undefined): string =>
  date ? noon(date.slice(0, 10)).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }) : '—';

/** A status as a class name part: "Due soon" → due-soon. */
export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
