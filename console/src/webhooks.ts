import { api, type Page } from './api.js';
import { clearProblem, h, showProblem } from './dom.js';
import { dateTime } from './format.js';
import type { Panel } from './panel.js';
import type { Attempt, Endpoint, EventReplay } from './api-types.js';

export const webhooksPanel: Panel = {
  id: 'webhooks',
  label: 'Webhooks',
  scope: 'webhooks.read',
  mount(body, problem, session) {
    const endpoint = h('select', { id: 'wh-endpoint', name: 'endpointId', required: true });
    const status = h(
      'select',
      { id: 'wh-status', name: 'status' },
      h('option', { value: '' }, 'Any'),
      ...['failed', 'succeeded', 'in_flight', 'interrupted'].map((s) => h('option', { value: s }, s.replace('_', ' '))),
    );
    const list = h('div', { class: 'table-scroll' });
    const done = h('p', { class: 'notice', role: 'status' });
    const canReplay = session.scopes.has('webhooks');

    async function replay(a: Attempt, button: HTMLButtonElement) {
      clearProblem(problem);
      button.disabled = true;
      try {
        const result = await api<EventReplay>('POST', `/v1/events/${encodeURIComponent(a.eventId)}/replay`, {
          body: { endpointId: endpoint.value },
        });
        done.textContent = `Replay of ${result.eventId} queued as ${result.queued.map((q) => q.deliveryId).join(', ') || 'nothing'}.`;
        await load();
      } catch (error) {
        showProblem(problem, error);
      } finally {
        button.disabled = false;
      }
    }

    async function load() {
      clearProblem(problem);
      if (!endpoint.value) {
        list.replaceChildren(h('p', { class: 'muted' }, 'No webhook endpoints yet.'));
        return;
      }
      try {
        const page = await api<Page<Attempt>>('GET', `/v1/webhook-endpoints/${encodeURIComponent(endpoint.value)}/deliveries`, {
          query: { limit: '50', status: status.value || undefined },
        });
        list.replaceChildren(
          page.data.length === 0
            ? h('p', { class: 'muted' }, 'No delivery attempts match.')
            : h(
                'table',
                { class: 'data', id: 'deliveries-table' },
                h('caption', {}, `Latest ${page.data.length} delivery attempts, newest first`),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ...['Started', 'Event', 'Attempt', 'Result', 'Delivery', canReplay ? 'Replay' : null]
                      .filter((t): t is string => !!t)
                      .map((t) => h('th', { scope: 'col' }, t)),
                  ),
                ),
                h(
                  'tbody',
                  {},
                  ...page.data.map((a) => {
                    const button = h('button', { type: 'button', class: 'small', 'aria-label': `Replay event ${a.eventId} (${a.type})` }, 'Replay');
                    button.addEventListener('click', () => void replay(a, button));
                    return h(
                      'tr',
                      { 'data-event': a.eventId },
                      h('td', {}, dateTime(a.startedAt)),
                      h('td', {}, h('span', { class: 'mono' }, a.type), h('br'), h('small', { class: 'muted' }, `${a.eventId} · ${a.kind}`)),
                      h('td', {}, `#${a.attempt}`),
                      h(
                        'td',
                        {},
                        h('span', { class: `badge status-${a.status}` }, a.status.replace('_', ' ')),
                        ' ',
                        a.responseStatus !== null ? `HTTP ${a.responseStatus}` : '',
                        a.latencyMs !== null ? ` · ${Math.round(a.latencyMs)} ms` : '',
                        a.error ? h('div', { class: 'error-text' }, a.error) : null,
                      ),
                      h('td', {}, a.deliveryStatus, a.nextRetryAt ? h('div', { class: 'muted' }, `retry ${dateTime(a.nextRetryAt)}`) : null),
                      canReplay ? h('td', {}, button) : null,
                    );
                  }),
                ),
              ),
        );
      } catch (error) {
        showProblem(problem, error);
      }
    }

    async function endpoints() {
      const page = await api<Page<Endpoint>>('GET', '/v1/webhook-endpoints', { query: { limit: '100' } });
      endpoint.replaceChildren(...page.data.map((e) => h('option', { value: e.id }, `${e.description ?? e.url}${e.enabled ? '' : ' (disabled)'}`)));
    }

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
        h('label', { for: 'wh-endpoint' }, 'Endpoint'),
        endpoint,
        h('label', { for: 'wh-status' }, 'Status'),
        status,
        h('button', { type: 'submit' }, 'Show'),
      ),
      done,
      list,
    );
    endpoints().then(load, (error: unknown) => showProblem(problem, error));
  },
};
