import { api, type Page } from './api.js';
import { h } from './dom.js';
import { dateTime } from './format.js';
import { pager } from './pager.js';
import type { Panel } from './panel.js';
import type { AuditEvent } from './api-types.js';

/** A datetime-local value (the browser's zone) as an ISO instant for the API. */
const instant = (value: string): string | undefined => (value ? new Date(value).toISOString() : undefined);

export const auditPanel: Panel = {
  id: 'audit',
  label: 'Audit',
  scope: 'admin.read',
  adminOnly: true,
  mount(body, problem) {
    const field = (id: string, label: string, input: HTMLInputElement | HTMLSelectElement) =>
      h('div', { class: 'field' }, h('label', { for: id }, label), input);
    const clientId = h('input', { id: 'audit-client', name: 'clientId', maxlength: '100', placeholder: 'cli_…', autocomplete: 'off' });
    const resourceId = h('input', { id: 'audit-resource', name: 'resourceId', maxlength: '100', placeholder: 'pet_…', autocomplete: 'off' });
    const method = h(
      'select',
      { id: 'audit-method', name: 'method' },
      h('option', { value: '' }, 'Any'),
      ...['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].map((m) => h('option', { value: m }, m)),
    );
    const status = h('input', { id: 'audit-status', name: 'status', type: 'number', min: '100', max: '599', placeholder: 'e.g. 403' });
    const from = h('input', { id: 'audit-from', name: 'from', type: 'datetime-local' });
    const to = h('input', { id: 'audit-to', name: 'to', type: 'datetime-local' });
    const list = h('div', { class: 'table-scroll', 'aria-live': 'polite' });

    function draw(rows: AuditEvent[]) {
      list.replaceChildren(
        rows.length === 0
          ? h('p', { class: 'muted' }, 'No calls match.')
          : h(
              'table',
              { class: 'data audit', id: 'audit-table' },
              h('caption', {}, `${rows.length} calls, newest first`),
              // Fixed columns: a path or id longer than its column is wrapped or cut (the whole of it in the title), never widens the page.
              h('colgroup', {}, ...['time', 'client', 'call', 'resource', 'status', 'latency'].map((c) => h('col', { class: `col-${c}` }))),
              h('thead', {}, h('tr', {}, ...['Time', 'Client', 'Call', 'Resource', 'Status', 'Latency'].map((t) => h('th', { scope: 'col' }, t)))),
              h(
                'tbody',
                {},
                ...rows.map((e) => {
                  const call = `${e.method} ${e.path}`;
                  const who = e.role ? `${e.role} · ${e.ip}` : '';
                  return h(
                    'tr',
                    {},
                    h('td', {}, dateTime(e.occurredAt)),
                    h(
                      'td',
                      { class: 'cut', title: [e.clientId, who].filter(Boolean).join('\n') || undefined },
                      e.clientId ?? '—',
                      who ? h('div', { class: 'muted' }, who) : null,
                    ),
                    h('td', { class: 'wrap', title: call }, h('span', { class: 'mono clamp' }, call)),
                    h('td', { class: 'cut', title: e.resourceId ?? undefined }, e.resourceId ?? '—'),
                    h('td', {}, h('span', { class: `badge http-${Math.floor(e.status / 100)}xx` }, String(e.status))),
                    h('td', { class: 'nowrap' }, `${Math.round(e.latencyMs * 10) / 10} ms`),
                  );
                }),
              ),
            ),
      );
    }

    const { load, more } = pager<AuditEvent>(
      (cursor) =>
        api<Page<AuditEvent>>('GET', '/v1/audit-events', {
          query: {
            limit: '50',
            clientId: clientId.value.trim() || undefined,
            resourceId: resourceId.value.trim() || undefined,
            method: method.value || undefined,
            status: status.value || undefined,
            from: instant(from.value),
            to: instant(to.value),
            cursor,
          },
        }),
      draw,
      problem,
    );
    body.append(
      h(
        'form',
        {
          class: 'filters',
          role: 'search',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void load(false);
          },
        },
        field('audit-client', 'Client', clientId),
        field('audit-resource', 'Resource', resourceId),
        field('audit-method', 'Method', method),
        field('audit-status', 'Status', status),
        field('audit-from', 'From', from),
        field('audit-to', 'To', to),
        h('div', { class: 'field actions' }, h('button', { type: 'submit' }, 'Search')),
      ),
      list,
      more,
    );
    void load(false);
  },
};
