import { api, type Page } from './api.js';
import { h, table } from './dom.js';
import { dateTime, localDate, longDate, slug, time } from './format.js';
import { pager } from './pager.js';
import type { Panel } from './panel.js';
import { facts, field, locationChoices, nameCache, part, recordLink, recordsView, searchForm, type RecordsView } from './records.js';
import type { Appointment, Pet, PetListItem, PetParent, Vaccination } from './api-types.js';

let view: RecordsView | undefined;

/** The latest dose of each vaccine decides; an earlier one is shown as replaced. */
function vaccinationRows(list: Vaccination[]): (Node | string)[][] {
  const latest = new Map<string, Vaccination>();
  for (const v of list) {
    const key = v.vaccine.toLowerCase();
    const seen = latest.get(key);
    if (!seen || v.administeredOn > seen.administeredOn) latest.set(key, v);
  }
  const today = localDate(new Date());
  const soon = localDate(new Date(Date.now() + 30 * 86_400_000));
  return [...list]
    .sort((a, b) => b.administeredOn.localeCompare(a.administeredOn))
    .map((v) => {
      const state = latest.get(v.vaccine.toLowerCase()) !== v ? 'Replaced' : v.dueOn < today ? 'Overdue' : v.dueOn <= soon ? 'Due soon' : 'Up to date';
      return [v.vaccine, longDate(v.administeredOn), longDate(v.dueOn), h('span', { class: `badge vacc-${slug(state)}` }, state), v.lotNumber ?? '—'];
    });
}

export const petsPanel: Panel = {
  id: 'pets',
  label: 'Pets',
  scope: 'pets.read',
  mount(body, problem, session) {
    const name = h('input', { id: 'pets-name', name: 'name', maxlength: '100', placeholder: 'Part of a name', autocomplete: 'off', type: 'search' });
    const location = h('select', { id: 'pets-location', name: 'locationId' }, h('option', { value: '' }, 'All my locations'));
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });
    const owners = nameCache((id) => `/v1/pet-parents/${encodeURIComponent(id)}`);
    const { known: placesKnown, place } = locationChoices(session, location, problem);

    function draw(rows: PetListItem[]) {
      list.replaceChildren(
        rows.length === 0
          ? h('p', { class: 'muted' }, 'No pets match.')
          : h(
              'table',
              { class: 'data', id: 'pets-table' },
              h('caption', {}, `${rows.length} pet${rows.length === 1 ? '' : 's'}, newest first`),
              h(
                'thead',
                {},
                h('tr', {}, ...['Name', 'Species · breed', 'Owner', 'Vaccinations', 'Last visit', 'Location'].map((t) => h('th', { scope: 'col' }, t))),
              ),
              h(
                'tbody',
                {},
                ...rows.map((p) =>
                  h(
                    'tr',
                    { 'data-id': p.id },
                    h('td', {}, recordLink('pets', p.id, p.name)),
                    h('td', {}, `${p.species} · ${p.breed}`),
                    h('td', { class: 'ellipsis', title: p.ownerId }, recordLink('parents', p.ownerId, owners.names.get(p.ownerId) ?? p.ownerId)),
                    h('td', {}, h('span', { class: `badge vacc-${slug(p.vaccinationStatus)}` }, p.vaccinationStatus)),
                    h('td', {}, longDate(p.lastVisit)),
                    h('td', {}, place(p.locationId)),
                  ),
                ),
              ),
            ),
      );
    }

    const { load, more } = pager<PetListItem>(
      (cursor) =>
        api<Page<PetListItem>>('GET', '/v1/pets', {
          query: { limit: '25', name: name.value.trim() || undefined, locationId: location.value || undefined, cursor },
        }),
      async (rows, added) => {
        await placesKnown;
        draw(rows);
        await owners.fetch(added.map((p) => p.ownerId));
        draw(rows);
      },
      problem,
    );

    async function detail(id: string, box: HTMLElement) {
      const pet = await api<Pet>('GET', `/v1/pets/${encodeURIComponent(id)}`);
      const owner = part('Owner', 'pet-owner', async () => {
        const parent = await api<PetParent>('GET', `/v1/pet-parents/${encodeURIComponent(pet.ownerId)}`);
        return facts([
          ['Name', recordLink('parents', parent.id, parent.name)],
          ['Email', parent.email],
          ['Phone', parent.phone],
          ['Reminders', parent.reminderConsent ? 'Consented' : 'Not consented'],
        ]);
      });
      const vaccinations = part('Vaccinations', 'pet-vaccinations', async () => {
        const page = await api<Page<Vaccination>>('GET', `/v1/pets/${encodeURIComponent(pet.id)}/vaccinations`, { query: { limit: '100' } });
        return page.data.length
          ? table(
              `${page.data.length} dose${page.data.length === 1 ? '' : 's'} recorded, latest first`,
              ['Vaccine', 'Given', 'Next due', 'State', 'Lot'],
              vaccinationRows(page.data),
            )
          : h('p', { class: 'muted' }, 'No vaccinations recorded.');
      });
      const upcoming = part('Upcoming appointments', 'pet-appointments', async () => {
        const page = await api<Page<Appointment>>('GET', '/v1/appointments', {
          query: { petId: pet.id, from: new Date().toISOString(), limit: '100' },
        });
        const next = page.data.filter((a) => a.status !== 'cancelled').sort((a, b) => a.startsAt.localeCompare(b.startsAt));
        return next.length
          ? table(
              `${next.length} to come`,
              ['When', 'Type', 'Provider', 'Status'],
              next.map((a) => [
                h('span', { class: 'nowrap' }, `${longDate(a.startsAt)} ${time(a.startsAt)}–${time(a.endsAt)}`),
                a.type.replace(/_/g, ' '),
                a.provider.name,
                h('span', { class: `badge status-${a.status}` }, a.status.replace(/_/g, ' ')),
              ]),
            )
          : h('p', { class: 'muted' }, 'Nothing booked ahead.');
      });
      box.replaceChildren(
        h('h2', { tabindex: '-1', id: 'pet-title' }, pet.name, ' ', h('span', { class: `badge vacc-${slug(pet.vaccinationStatus)}` }, pet.vaccinationStatus)),
        h('p', { class: 'record-id' }, h('code', {}, pet.id)),
        facts([
          ['Species', pet.species],
          ['Breed', pet.breed],
          ['Size', pet.size],
          ['Born', longDate(pet.birthDate)],
          ['Last visit', longDate(pet.lastVisit)],
          ['Location', place(pet.locationId)],
          ['Registered', dateTime(pet.createdAt)],
        ]),
        h('div', { class: 'record-parts' }, owner, vaccinations, upcoming),
      );
    }

    view = recordsView(body, problem, {
      id: 'pets',
      back: 'All pets',
      list: [searchForm('Search pets', () => void load(false), field('pets-name', 'Name', name), field('pets-location', 'Location', location)), list, more],
      detail,
    });
    void load(false);
  },
  show: (detail, focus) => view?.show(detail, focus) ?? false,
};
