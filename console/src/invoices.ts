import { api, type Page } from './api.js';
import { h, table } from './dom.js';
import { dateTime, longDate, money } from './format.js';
import { pager } from './pager.js';
import type { Panel } from './panel.js';
import { facts, field, locationChoices, nameCache, part, recordLink, recordsView, searchForm, type RecordsView } from './records.js';
import type { Invoice, Payment, Pet, Refund } from './api-types.js';

let view: RecordsView | undefined;

const statuses = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;

const nowrap = (text: string) => h('span', { class: 'nowrap' }, text);

export const invoicesPanel: Panel = {
  id: 'invoices',
  label: 'Invoices',
  scope: 'payments.read',
  mount(body, problem, session) {
    const status = h('select', { id: 'inv-status', name: 'status' }, h('option', { value: '' }, 'Any'), ...statuses.map((s) => h('option', { value: s }, s)));
    const parentId = h('input', { id: 'inv-parent', name: 'parentId', maxlength: '100', placeholder: 'usr_…', autocomplete: 'off' });
    const location = h('select', { id: 'inv-location', name: 'locationId' }, h('option', { value: '' }, 'All my locations'));
    const from = h('input', { id: 'inv-from', name: 'from', type: 'date' });
    const to = h('input', { id: 'inv-to', name: 'to', type: 'date' });
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });
    // Parents' names need pets.read; without it the ids stay.
    const parents = nameCache((id) => `/v1/pet-parents/${encodeURIComponent(id)}`);
    const canName = session.scopes.has('pets.read');
    const { known: placesKnown, place } = locationChoices(session, location, problem);
    const parentCell = (id: string) => (canName ? recordLink('parents', id, parents.names.get(id) ?? id) : h('code', {}, id));

    function draw(rows: Invoice[]) {
      list.replaceChildren(
        rows.length === 0
          ? h('p', { class: 'muted' }, 'No invoices match.')
          : h(
              'table',
              { class: 'data', id: 'invoices-table' },
              h('caption', {}, `${rows.length} invoice${rows.length === 1 ? '' : 's'}, newest first`),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ...['Invoice', 'Status', 'Pet parent', 'Total', 'Amount due', 'Due on', 'Location', 'Created'].map((t) =>
                    h('th', { scope: 'col', class: t === 'Total' || t === 'Amount due' ? 'num' : undefined }, t),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                ...rows.map((i) =>
                  h(
                    'tr',
                    { 'data-id': i.id },
                    h('td', { class: 'nowrap' }, recordLink('invoices', i.id, i.number ?? 'Draft')),
                    h('td', {}, h('span', { class: `badge status-${i.status}` }, i.status)),
                    h('td', { class: 'ellipsis', title: i.parentId }, parentCell(i.parentId)),
                    h('td', { class: 'num', 'data-currency': i.currency }, money(i.total, i.currency)),
                    h('td', { class: 'num' }, i.amountDue ? money(i.amountDue, i.currency) : '—'),
                    h('td', { class: 'nowrap' }, longDate(i.dueOn)),
                    h('td', {}, place(i.locationId)),
                    h('td', { class: 'nowrap' }, longDate(i.createdAt)),
                  ),
                ),
              ),
            ),
      );
    }

    const { load, more } = pager<Invoice>(
      (cursor) =>
        api<Page<Invoice>>('GET', '/v1/invoices', {
          query: {
            limit: '25',
            status: status.value || undefined,
            parentId: parentId.value.trim() || undefined,
            locationId: location.value || undefined,
            from: from.value || undefined,
            to: to.value || undefined,
            cursor,
          },
        }),
      async (rows, added) => {
        await placesKnown;
        draw(rows);
        if (!canName) return;
        await parents.fetch(added.map((i) => i.parentId));
        draw(rows);
      },
      problem,
    );

    async function detail(id: string, box: HTMLElement) {
      const invoice = await api<Invoice>('GET', `/v1/invoices/${encodeURIComponent(id)}`);
      const m = (minor: number) => money(minor, invoice.currency);
      if (canName) await parents.fetch([invoice.parentId]);
      const pet = invoice.petId && canName ? await api<Pet>('GET', `/v1/pets/${encodeURIComponent(invoice.petId)}`).catch(() => undefined) : undefined;
      const lines = h(
        'table',
        { class: 'data', id: 'invoice-lines' },
        h('caption', {}, `${invoice.lines.length} line${invoice.lines.length === 1 ? '' : 's'}, in ${invoice.currency}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Description', 'Quantity', 'Unit', 'Amount', 'Tax'].map((t) => h('th', { scope: 'col', class: t === 'Description' ? undefined : 'num' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          ...invoice.lines.map((l) =>
            h(
              'tr',
              {},
              h('td', {}, l.description),
              h('td', { class: 'num' }, String(l.quantity)),
              h('td', { class: 'num' }, m(l.unitAmount)),
              h('td', { class: 'num' }, m(l.amount)),
              h('td', { class: 'num' }, `${m(l.taxAmount)} (${l.taxRateBps / 100} %)`),
            ),
          ),
        ),
        h(
          'tfoot',
          {},
          ...(
            [
              ['Subtotal', invoice.subtotal],
              ['Tax', invoice.tax],
              ['Total', invoice.total],
            ] as const
          ).map(([label, value]) => h('tr', {}, h('th', { scope: 'row', colspan: '3' }, label), h('td', { class: 'num', colspan: '2' }, m(value)))),
        ),
      );
      const payments = part('Payments', 'invoice-payments', async () => {
        const page = await api<Page<Payment>>('GET', '/v1/payments', { query: { invoiceId: invoice.id, limit: '100' } });
        return page.data.length
          ? table(
              `${page.data.length} payment${page.data.length === 1 ? '' : 's'}`,
              ['When', 'Method', 'Reference', 'Amount', 'Refunded'],
              page.data.map((p) => [
                nowrap(dateTime(p.createdAt)),
                nowrap(p.method.replace(/_/g, ' ')),
                p.reference ?? '—',
                nowrap(money(p.amount, p.currency)),
                p.amountRefunded ? nowrap(money(p.amountRefunded, p.currency)) : '—',
              ]),
            )
          : h('p', { class: 'muted' }, 'No payments yet.');
      });
      const refunds = part('Refunds', 'invoice-refunds', async () => {
        const page = await api<Page<Refund>>('GET', '/v1/refunds', { query: { invoiceId: invoice.id, limit: '100' } });
        return page.data.length
          ? table(
              `${page.data.length} refund${page.data.length === 1 ? '' : 's'}`,
              ['When', 'Payment', 'Reason', 'Amount'],
              page.data.map((r) => [
                nowrap(dateTime(r.createdAt)),
                h('code', { class: 'cut-id', title: r.paymentId }, r.paymentId),
                r.reason ?? '—',
                nowrap(money(r.amount, r.currency)),
              ]),
            )
          : h('p', { class: 'muted' }, 'No refunds.');
      });
      box.replaceChildren(
        h(
          'h2',
          { tabindex: '-1', id: 'invoice-title' },
          invoice.number ?? 'Draft invoice',
          ' ',
          h('span', { class: `badge status-${invoice.status}` }, invoice.status),
        ),
        h('p', { class: 'record-id' }, h('code', {}, invoice.id), ` · ${invoice.currency}`),
        h(
          'dl',
          { class: 'balance', id: 'invoice-balance', 'aria-label': 'Balance' },
          ...(
            [
              ['Total', invoice.total, 'total'],
              ['Paid', invoice.amountPaid, 'paid'],
              ['Refunded', invoice.amountRefunded, 'refunded'],
              ['Amount due', invoice.amountDue, 'due'],
            ] as const
          ).map(([label, value, key]) => h('div', { class: `kpi balance-${key}`, 'data-value': String(value) }, h('dt', {}, label), h('dd', {}, m(value)))),
        ),
        facts([
          [
            'Pet parent',
            canName ? recordLink('parents', invoice.parentId, parents.names.get(invoice.parentId) ?? invoice.parentId) : h('code', {}, invoice.parentId),
          ],
          ['Pet', invoice.petId ? (pet ? recordLink('pets', pet.id, pet.name) : h('code', {}, invoice.petId)) : null],
          ['Location', place(invoice.locationId)],
          ['Due on', longDate(invoice.dueOn)],
          ['Created', dateTime(invoice.createdAt)],
          ['Finalized', invoice.finalizedAt ? dateTime(invoice.finalizedAt) : null],
          ['Paid', invoice.paidAt ? dateTime(invoice.paidAt) : null],
          ['Voided', invoice.voidedAt ? dateTime(invoice.voidedAt) : null],
        ]),
        h(
          'section',
          { class: 'record-part', 'aria-labelledby': 'invoice-lines-title' },
          h('h3', { id: 'invoice-lines-title' }, 'Lines'),
          h('div', { class: 'table-scroll' }, lines),
        ),
        h('div', { class: 'record-parts stacked' }, payments, refunds),
      );
    }

    view = recordsView(body, problem, {
      id: 'invoices',
      back: 'All invoices',
      list: [
        searchForm(
          'Search invoices',
          () => void load(false),
          field('inv-status', 'Status', status),
          field('inv-parent', 'Pet parent', parentId),
          field('inv-location', 'Location', location),
          field('inv-from', 'Created from', from),
          field('inv-to', 'Created to', to),
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
