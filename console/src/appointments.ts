import { api, type Page } from './api.js';
import { h } from './dom.js';
import { addDays, localDate, time } from './format.js';
import { refreshOnEvents } from './live.js';
import { pager } from './pager.js';
import type { Panel } from './panel.js';
import type { Appointment, Pet } from './api-types.js';

/** Midnight of a local date as an instant with the browser's offset (the list filters on instants). */
const midnight = (date: string): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toISOString();
};

export const appointmentsPanel: Panel = {
  id: 'appointments',
  label: 'Appointments',
  scope: 'bookings.read',
  mount(body, problem, session) {
    const day = h('input', { type: 'date', id: 'apt-day', name: 'day', value: localDate(new Date()), required: true });
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });
    const petNames = new Map<string, string>();

    /** Pet names for the day's list (one GET per new pet, at most 25 a load); without pets.read the ids stay. */
    async function names(list: Appointment[]) {
      if (!session.scopes.has('pets.read')) return;
      const missing = [...new Set(list.map((a) => a.petId))].filter((id) => !petNames.has(id)).slice(0, 25);
      const pets = await Promise.all(missing.map((id) => api<Pet>('GET', `/v1/pets/${encodeURIComponent(id)}`)));
      for (const pet of pets) petNames.set(pet.id, pet.name);
    }

    function draw(rows: Appointment[]) {
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
                    h('td', {}, petNames.get(a.petId) ?? h('code', {}, a.petId)),
                    h('td', {}, a.provider.name),
                    h('td', {}, h('span', { class: `badge status-${a.status}` }, a.status.replace(/_/g, ' '))),
                  ),
                ),
              ),
            ),
      );
    }

    const { load, more } = pager<Appointment>(
      (cursor) => {
        const date = day.value || localDate(new Date());
        return api<Page<Appointment>>('GET', '/v1/appointments', { query: { from: midnight(date), to: midnight(addDays(date, 1)), limit: '100', cursor } });
      },
      async (rows, added) => {
        // The schedule shows at once; names follow, and a refused lookup is shown like any other problem.
        draw(rows);
        await names(added);
        draw(rows);
      },
      problem,
    );
    body.append(
      h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void load(false);
          },
        },
        h('label', { for: 'apt-day' }, 'Day'),
        day,
        h('button', { type: 'submit' }, 'Show'),
      ),
      list,
      more,
    );
    void load(false);
    // A booking, a move or a completion made anywhere (the front desk, the SDK, a webhook consumer) shows without a reload.
    refreshOnEvents(
      list,
      (event) => event.type.startsWith('appointment.'),
      () => load(false),
    );
  },
};
