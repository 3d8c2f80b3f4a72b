import { api } from './api.js';
import { append, clearProblem, h, showProblem } from './dom.js';
import { dateTime } from './format.js';
import type { Panel } from './panel.js';
import type { Job, JobDetail, JobRun } from './api-types.js';

const scheduleText = (s: Job['schedule']): string =>
  s === null
    ? 'on demand'
    : s.type === 'cron'
      ? `cron ${s.expression} (UTC)`
      : s.everyMs < 1000
        ? `every ${s.everyMs} ms`
        : `every ${Math.round(s.everyMs / 1000)} s`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const jobsPanel: Panel = {
  id: 'jobs',
  label: 'Jobs',
  scope: 'admin.read',
  adminOnly: true,
  mount(body, problem, session) {
    const list = h('div', { class: 'table-scroll' });
    const canRun = session.scopes.has('admin');

    /** Queues a run, then follows it (GET /v1/jobs/{name} lists recent runs) until it has finished. */
    async function run(job: Job, button: HTMLButtonElement, progress: HTMLElement, lastRun: HTMLElement) {
      clearProblem(problem);
      button.disabled = true;
      progress.replaceChildren(h('progress', { 'aria-label': `${job.name} running` }), ' queued');
      try {
        const queued = await api<JobRun>('POST', `/v1/jobs/${encodeURIComponent(job.name)}/run`, { body: {} });
        let current: JobRun | undefined = queued;
        for (let i = 0; i < 300 && current && (current.status === 'queued' || current.status === 'running'); i++) {
          progress.replaceChildren(h('progress', { 'aria-label': `${job.name} ${current.status}` }), ` ${current.status}`);
          await pause(i < 10 ? 300 : 1000);
          const detail = await api<JobDetail>('GET', `/v1/jobs/${encodeURIComponent(job.name)}`);
          current = detail.recentRuns.find((r) => r.id === queued.id) ?? current;
        }
        if (current?.finishedAt) lastRun.textContent = `${current.status} · ${dateTime(current.finishedAt)}`;
        const summary = current?.result
          ? Object.entries(current.result)
              .map(([k, v]) => `${k} ${String(v)}`)
              .join(', ')
          : '';
        progress.replaceChildren();
        append(
          progress,
          h('span', { class: `badge status-${current?.status ?? 'queued'}`, 'data-run': queued.id }, current?.status ?? 'queued'),
          summary ? ` ${summary}` : '',
          current?.error ? h('div', { class: 'error-text' }, current.error) : null,
        );
      } catch (error) {
        progress.replaceChildren();
        showProblem(problem, error);
      } finally {
        button.disabled = false;
      }
    }

    async function load() {
      clearProblem(problem);
      try {
        const { data } = await api<{ data: Job[] }>('GET', '/v1/jobs');
        list.replaceChildren(
          h(
            'table',
            { class: 'data', id: 'jobs-table' },
            h('caption', {}, `${data.length} background jobs`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ...['Job', 'Schedule', 'Last run', 'Next run', canRun ? 'Run' : null].filter((t): t is string => !!t).map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            h(
              'tbody',
              {},
              ...data.map((job) => {
                const progress = h('div', { class: 'progress', role: 'status' });
                const button = h('button', { type: 'button', class: 'small', 'aria-label': `Run ${job.name} now` }, 'Run now');
                const lastRun = h(
                  'td',
                  {},
                  job.lastRun ? `${job.lastRun.status} · ${dateTime(job.lastRun.at)}` : '—',
                  job.lastRun?.error ? h('div', { class: 'error-text' }, job.lastRun.error) : null,
                );
                button.addEventListener('click', () => void run(job, button, progress, lastRun));
                return h(
                  'tr',
                  { 'data-job': job.name },
                  h('td', {}, h('strong', { class: 'mono' }, job.name), h('div', { class: 'muted clamp', title: job.description }, job.description)),
                  h('td', { class: 'nowrap' }, scheduleText(job.schedule), job.openRuns ? h('div', { class: 'muted' }, `${job.openRuns} open`) : null),
                  lastRun,
                  h('td', { class: 'nowrap' }, dateTime(job.nextRunAt)),
                  canRun ? h('td', { class: 'run-cell' }, button, progress) : null,
                );
              }),
            ),
          ),
        );
      } catch (error) {
        showProblem(problem, error);
      }
    }

    const refresh = h('button', { type: 'button' }, 'Refresh');
    refresh.addEventListener('click', () => void load());
    body.append(h('div', { class: 'toolbar' }, refresh), list);
    void load();
  },
};
