import { api, type Page } from './api.js';
import { h, table } from './dom.js';
import { dateTime, longDate, money, slug } from './format.js';
import { pager } from './pager.js';
import type { Panel } from './panel.js';
import { facts, field, locationChoices, part, recordLink, recordsView, searchForm, type RecordsView } from './records.js';
import type { Invoice, PetListItem, PetParent } from './api-types.js';

let view: RecordsView | undefined;

export const parentsPanel: Panel = {
  id: 'parents',
  label: 'Pet parents',
  scope: 'pets.read',
  mount(body, problem, session) {
    const name = h('input', { id: 'parents-name', name: 'name', maxlength: '100', placeholder: 'Part of a name', autocomplete: 'off', type: 'search' });
    const email = h('input', { id: 'parents-email', name: 'email', maxlength: '254', placeholder: 'Exact address', autocomplete: 'off', type: 'email' });
    const location = h('select', { id: 'parents-location', name: 'locationId' }, h('option', { value: '' }, 'All my locations'));
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });
    const { known: placesKnown, place } = locationChoices(session, location, problem);

    function draw(rows: PetParent[]) {
      list.replaceChildren(
        rows.length === 0
          ? h('p', { class: 'muted' }, 'No pet parents match.')
          : h(
              'table',
              { class: 'data', id: 'parents-table' },
              h('caption', {}, `${rows.length} pet parent${rows.length === 1 ? '' : 's'}, newest first`),
              h('thead', {}, h('tr', {}, ...['Name', 'Email', 'Phone', 'Location', 'Reminders', 'Since'].map((t) => h('th', { scope: 'col' }, t)))),
              h(
                'tbody',
                {},
                ...rows.map((p) =>
                  h(
                    'tr',
                    { 'data-id': p.id },
                    h('td', {}, recordLink('parents', p.id, p.name)),
                    h('td', { class: 'ellipsis', title: p.email ?? '' }, p.email ?? '—'),
                    h('td', { class: 'nowrap' }, p.phone ?? '—'),
                    h('td', {}, place(p.locationId)),
                    h('td', {}, p.reminderConsent ? 'Yes' : 'No'),
                    h('td', { class: 'nowrap' }, longDate(p.createdAt)),
                  ),
                ),
              ),
            ),
      );
    }

    const { load, more } = pager<PetParent>(
      (cursor) =>
        api<Page<PetParent>>('GET', '/v1/pet-parents', {
          query: { limit: '25', name: name.value.trim() || undefined, email: email.value.trim() || undefined, locationId: location.value || undefined, cursor },
        }),
      async (rows) => {
        await placesKnown;
        draw(rows);
      },
      problem,
    );

    async function detail(id: string, box: HTMLElement) {
      const parent = await api<PetParent>('GET', `/v1/pet-parents/${encodeURIComponent(id)}`);
      const pets = part('Pets', 'parent-pets', async () => {
        const page = await api<Page<PetListItem>>('GET', '/v1/pets', { query: { ownerId: parent.id, limit: '100' } });
        return page.data.length
          ? table(
              `${page.data.length} pet${page.data.length === 1 ? '' : 's'}`,
              ['Name', 'Species · breed', 'Vaccinations', 'Last visit'],
              page.data.map((p) => [
                recordLink('pets', p.id, p.name),
                `${p.species} · ${p.breed}`,
                h('span', { class: `badge vacc-${slug(p.vaccinationStatus)}` }, p.vaccinationStatus),
                longDate(p.lastVisit),
              ]),
            )
          : h('p', { class: 'muted' }, 'No pets registered.');
      });
      const invoices = part('Invoices', 'parent-invoices', async () => {
        const page = await api<Page<Invoice>>('GET', '/v1/invoices', { query: { parentId: parent.id, limit: '50' } });
        if (!page.data.length) return h('p', { class: 'muted' }, 'No invoices.');
        // Owed per currency: amounts of different currencies are never added together.
        const owed = new Map<string, number>();
        for (const i of page.data) if (i.status === 'open') owed.set(i.currency, (owed.get(i.currency) ?? 0) + i.amountDue);
        return h(
          'div',
          {},
          owed.size ? h('p', { class: 'owed' }, 'Owed: ', [...owed].map(([currency, minor]) => money(minor, currency)).join(' · ')) : null,
          table(
            `${page.data.length}${page.hasMore ? ' latest' : ''} invoice${page.data.length === 1 ? '' : 's'}, newest first`,
            ['Invoice', 'Status', 'Total', 'Due', 'Created'],
            page.data.map((i) => [
              recordLink('invoices', i.id, i.number ?? 'Draft'),
              h('span', { class: `badge status-${i.status}` }, i.status),
              money(i.total, i.currency),
              i.status === 'open' ? money(i.amountDue, i.currency) : '—',
              longDate(i.createdAt),
            ]),
          ),
        );
      });
      box.replaceChildren(
        h('h2', { tabindex: '-1', id: 'parent-title' }, parent.name),
        h('p', { class: 'record-id' }, h('code', {}, parent.id)),
        facts([
          ['Email', parent.email],
          ['Phone', parent.phone],
          ['Location', place(parent.locationId)],
          ['Reminders', parent.reminderConsent ? 'Consented' : 'Not consented'],
          ['Registered', dateTime(parent.createdAt)],
        ]),
        h('div', { class: 'record-parts' }, pets, invoices),
      );
    }

    view = recordsView(body, problem, {
      id: 'parents',
      back: 'All pet parents',
      list: [
        searchForm(
          'Search pet parents',
          () => void load(false),
          field('parents-name', 'Name', name),
          field('parents-email', 'Email', email),
          field('parents-location', 'Location', location),
        ),
        list,
        more,
      ],
      detail,
    });
    void load(false);
  },
  show: (detail, focus) => view?.show(detail, focus) ?? false,
};
