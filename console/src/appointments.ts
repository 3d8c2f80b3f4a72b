import { api, type Page } from './api.js';
import { clearProblem, h, showProblem } from './dom.js';
import { addDays, localDate, time } from './format.js';
import type { Panel } from './panel.js';

interface Appointment {
  id: string;
  status: string;
  petId: string;
  provider: { id: string; name: string };
  type: string;
  startsAt: string;
  endsAt: string;
  locationId: string;
}

/** Midnight of a local date as an instant with the browser's offset (the list filters on instants). */
const midnight = (date: string): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toISOString();
};

export const appointmentsPanel: Panel = {
  id: 'appointments',
  label: 'Appointments',
  scope: 'bookings.read',
  mount(body, problem) {
    const day = h('input', { type: 'date', id: 'apt-day', name: 'day', value: localDate(new Date()), required: true });
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });
    const more = h('button', { type: 'button', hidden: true }, 'Load more');
    let rows: Appointment[] = [];
    let cursor: string | null = null;

    function draw() {
      const sorted = [...rows].sort((a, b) => a.startsAt.localeCompare(b.startsAt));
      list.replaceChildren(
        sorted.length === 0
          ? h('p', { class: 'muted' }, 'No appointments on this day.')
          : h(
              'table',
              { class: 'data', id: 'appointments-table' },
              h('caption', {}, `${sorted.length} appointment${sorted.length === 1 ? '' : 's'} on ${day.value}`),
              h('thead', {}, h('tr', {}, ...['Time', 'Type', 'Pet', 'Provider', 'Status'].map((t) => h('th', { scope: 'col' }, t)))),
              h(
                'tbody',
                {},
                ...sorted.map((a) =>
                  h(
                    'tr',
                    { 'data-id': a.id },
                    h('td', {}, `${time(a.startsAt)}–${time(a.endsAt)}`),
                    h('td', {}, a.type.replace(/_/g, ' ')),
                    h('td', {}, h('code', {}, a.petId)),
                    h('td', {}, a.provider.name),
                    h('td', {}, h('span', { class: `badge status-${a.status}` }, a.status.replace(/_/g, ' '))),
                  ),
                ),
              ),
            ),
      );
    }

    async function load(next: boolean) {
      clearProblem(problem);
      try {
        const date = day.value || localDate(new Date());
        const page = await api<Page<Appointment>>('GET', '/v1/appointments', {
          query: { from: midnight(date), to: midnight(addDays(date, 1)), limit: '100', cursor: next && cursor ? cursor : undefined },
        });
        rows = next ? [...rows, ...page.data] : page.data;
        cursor = page.nextCursor;
        more.hidden = !page.hasMore;
        draw();
      } catch (error) {
        showProblem(problem, error);
      }
    }

    more.addEventListener('click', () => void load(true));
    body.append(
      h(
        'form',
        { class: 'toolbar', onsubmit: (e: Event) => { e.preventDefault(); void load(false); } },
        h('label', { for: 'apt-day' }, 'Day'),
        day,
        h('button', { type: 'submit' }, 'Show'),
      ),
      list,
      more,
    );
    void load(false);
  },
};
