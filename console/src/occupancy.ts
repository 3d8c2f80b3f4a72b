import { api, type Page } from './api.js';
import { clearProblem, h, showProblem } from './dom.js';
import { addDays, dayNumber, localDate, weekday } from './format.js';
import { knownLocations } from './locations.js';
import type { Panel } from './panel.js';
import type { OccupancyCounts as Counts, Occupancy, Room } from './api-types.js';

/** A CSS class per band of use, so the grid reads at a glance (and each cell also says its numbers). */
function level(c: Counts): string {
  const used = c.reserved + c.checkedIn;
  if (c.capacity === 0) return used > 0 ? 'lvl-over' : 'lvl-none';
  const ratio = used / c.capacity;
  if (ratio > 1) return 'lvl-over';
  if (ratio === 1) return 'lvl-4';
  if (ratio >= 0.75) return 'lvl-3';
  if (ratio >= 0.4) return 'lvl-2';
  if (ratio > 0) return 'lvl-1';
  return 'lvl-0';
}

function cell(c: Counts, date: string, row: string): HTMLTableCellElement {
  const used = c.reserved + c.checkedIn;
  return h(
    'td',
    {
      class: `occ ${level(c)}`,
      'data-date': date,
      'data-used': String(used),
      'data-capacity': String(c.capacity),
      title: `${row}, ${date}: ${c.checkedIn} checked in, ${c.reserved} reserved, ${c.available} free of ${c.capacity}`,
    },
    `${used}/${c.capacity}`,
  );
}

export const occupancyPanel: Panel = {
  id: 'occupancy',
  label: 'Occupancy',
  scope: 'bookings.read',
  mount(body, problem, session) {
    const location = h('select', { id: 'occ-location', name: 'locationId', required: true });
    const from = h('input', { type: 'date', id: 'occ-from', name: 'from', value: localDate(new Date()), required: true });
    const grid = h('div', { class: 'grid-scroll', role: 'region', 'aria-label': 'Occupancy grid, 4 weeks', tabindex: '0' });

    async function locations() {
      // Rooms name the locations that board pets; an admin also gets their names.
      const rooms = await api<Page<Room>>('GET', '/v1/boarding/rooms', { query: { limit: '100' } });
      const ids = [...new Set(rooms.data.map((r) => r.locationId))];
      const names = await knownLocations(session);
      location.replaceChildren(...ids.map((id) => h('option', { value: id }, names.get(id) ?? id)));
      return ids.length;
    }

    async function load() {
      clearProblem(problem);
      if (!location.value) {
        grid.replaceChildren(h('p', { class: 'muted' }, 'No boarding rooms yet: add rooms to see occupancy.'));
        return;
      }
      try {
        const start = from.value || localDate(new Date());
        const occ = await api<Occupancy>('GET', '/v1/boarding/occupancy', { query: { locationId: location.value, from: start, to: addDays(start, 27) } });
        const types = [...new Set(occ.nights.flatMap((n) => n.byRoomType.map((t) => t.roomType)))].sort();
        const empty: Counts = { capacity: 0, reserved: 0, checkedIn: 0, available: 0 };
        grid.replaceChildren(
          h(
            'table',
            { class: 'occupancy', 'data-location': occ.locationId },
            h('caption', {}, `Places used (reserved + checked in) of capacity, ${occ.from} to ${occ.to}`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Room type'),
                ...occ.nights.map((n) =>
                  h(
                    'th',
                    { scope: 'col', class: new Date(`${n.date}T12:00:00`).getDay() % 6 === 0 ? 'weekend' : undefined, title: n.date },
                    weekday(n.date),
                    h('br'),
                    dayNumber(n.date),
                  ),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              h('tr', { class: 'total' }, h('th', { scope: 'row' }, 'All rooms'), ...occ.nights.map((n) => cell(n, n.date, 'All rooms'))),
              ...types.map((type) =>
                h(
                  'tr',
                  {},
                  h('th', { scope: 'row' }, type),
                  ...occ.nights.map((n) => cell(n.byRoomType.find((t) => t.roomType === type) ?? empty, n.date, type)),
                ),
              ),
            ),
          ),
        );
      } catch (error) {
        showProblem(problem, error);
      }
    }

    const legend = h(
      'ul',
      { class: 'legend', 'aria-label': 'Legend' },
      ...[
        ['lvl-0', 'empty'],
        ['lvl-1', 'under 40 %'],
        ['lvl-2', '40–74 %'],
        ['lvl-3', '75–99 %'],
        ['lvl-4', 'full'],
        ['lvl-over', 'over capacity'],
      ].map(([cls, text]) => h('li', {}, h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), text ?? '')),
    );
    body.append(
      h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void load();
          },
        },
        h('label', { for: 'occ-location' }, 'Location'),
        location,
        h('label', { for: 'occ-from' }, 'From'),
        from,
        h('button', { type: 'submit' }, 'Show'),
      ),
      grid,
      legend,
    );
    locations().then(load, (error: unknown) => showProblem(problem, error));
  },
};
