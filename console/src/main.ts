import 'uplot/dist/uPlot.min.css';
import '../console.css';
import { currentSession, signIn, signOut, type Session } from './api.js';
import { appointmentsPanel } from './appointments.js';
import { auditPanel } from './audit.js';
import { dashboardPanel } from './dashboard.js';
import { byId, clearProblem, h, showProblem } from './dom.js';
import { invoicesPanel } from './invoices.js';
import { jobsPanel } from './jobs.js';
import { onLiveState, stopLive } from './live.js';
import { occupancyPanel } from './occupancy.js';
import { parentsPanel } from './parents.js';
import { allows, type Panel } from './panel.js';
import { petsPanel } from './pets.js';
import { webhooksPanel } from './webhooks.js';

const panels: Panel[] = [dashboardPanel, occupancyPanel, appointmentsPanel, petsPanel, parentsPanel, invoicesPanel, webhooksPanel, jobsPanel, auditPanel];

const signInSection = byId('sign-in');
const signInForm = byId<HTMLFormElement>('sign-in-form');
const signInProblem = byId('sign-in-problem');
const clientIdInput = byId<HTMLInputElement>('client-id');
const secretInput = byId<HTMLInputElement>('client-secret');
const signInButton = byId<HTMLButtonElement>('sign-in-button');
const workspace = byId('workspace');
const nav = byId('nav');
const panelBox = byId('panels');
const sessionBar = byId('session');
const who = byId('session-who');
const liveStatus = byId('live-status');

const mounted = new Map<string, HTMLElement>();

// The policy forbids inline script; a blocked attempt is worth a warning in the developer console.
let violations = 0;
document.addEventListener('securitypolicyviolation', (event) => {
  violations += 1;
  document.documentElement.dataset.cspViolations = String(violations);
  console.warn(`Content-Security-Policy blocked ${event.blockedURI || 'an inline resource'} (${event.violatedDirective})`);
});

function section(panel: Panel, session: Session): HTMLElement {
  let el = mounted.get(panel.id);
  if (el) return el;
  const problem = h('div', { class: 'problem', role: 'alert', hidden: true });
  const body = h('div', { class: 'panel-body' });
  const allowed = allows(panel, session);
  el = h(
    'section',
    { id: `panel-${panel.id}`, class: 'panel', 'aria-labelledby': `title-${panel.id}` },
    h('h1', { id: `title-${panel.id}`, tabindex: '-1' }, panel.label),
    allowed
      ? null
      : h('p', { class: 'notice' }, `This client's token lacks ${panel.scope}${panel.adminOnly ? ' or the admin role' : ''}; here is what the API answers.`),
    problem,
    body,
  );
  panelBox.append(el);
  mounted.set(panel.id, el);
  panel.mount(body, problem, session);
  return el;
}

/** Shows the panel the address names (#audit); the first one the token allows by default. */
function route(focus: boolean): void {
  const session = currentSession();
  if (!session) return;
  const visible = panels.filter((p) => allows(p, session));
  // #pets, or #pets/pet_123 for one pet's detail.
  const [wanted, ...rest] = location.hash.slice(1).split('/');
  const detail = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  // A panel the scopes do not allow is still opened when its address is asked for: the API then answers for itself (403).
  const panel = panels.find((p) => p.id === wanted) ?? visible[0];
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === `#${panel?.id}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  for (const [id, el] of mounted) el.hidden = id !== panel?.id;
  if (!panel) {
    panelBox.replaceChildren(
      h(
        'p',
        { class: 'notice' },
        'This client has none of the scopes the console panels need (analytics.read, bookings.read, pets.read, payments.read, webhooks.read, admin.read).',
      ),
    );
    return;
  }
  const el = section(panel, session);
  el.hidden = false;
  const focused = panel.show?.(panel.id === wanted ? detail : undefined, focus) ?? false;
  if (focus && !focused) el.querySelector<HTMLElement>('h1')?.focus();
}

function enter(session: Session): void {
  const visible = panels.filter((p) => allows(p, session));
  nav.replaceChildren(...visible.map((p) => h('li', {}, h('a', { href: `#${p.id}` }, p.label))));
  who.replaceChildren(
    session.env === 'sandbox' ? h('span', { class: 'env-badge' }, 'sandbox') : '',
    h('span', { class: 'mono' }, session.clientId),
    ` · ${session.role}`,
    session.locations ? ` · ${session.locations.length} location${session.locations.length === 1 ? '' : 's'}` : '',
  );
  signInSection.hidden = true;
  workspace.hidden = false;
  sessionBar.hidden = false;
  route(false);
  nav.querySelector<HTMLElement>('a[aria-current="page"]')?.focus();
}

function leave(problem?: unknown): void {
  stopLive();
  signOut();
  for (const el of mounted.values()) el.remove();
  mounted.clear();
  panelBox.replaceChildren();
  nav.replaceChildren();
  workspace.hidden = true;
  sessionBar.hidden = true;
  signInSection.hidden = false;
  if (problem) showProblem(signInProblem, problem);
  else clearProblem(signInProblem);
  clientIdInput.focus();
}

signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearProblem(signInProblem);
  const clientId = clientIdInput.value.trim();
  const secret = secretInput.value;
  // The secret leaves the page's fields at once; only the token answered for it is kept, in memory.
  secretInput.value = '';
  signInButton.disabled = true;
  signIn(clientId, secret)
    .then(enter, (error: unknown) => {
      showProblem(signInProblem, error);
      secretInput.focus();
    })
    .finally(() => {
      signInButton.disabled = false;
    });
});

// The event stream's state, once a panel follows it (dashboard, appointments).
onLiveState((state) => {
  liveStatus.hidden = state.kind === 'off' && (state.reason === 'not started' || state.reason === 'signed out');
  liveStatus.dataset.state = state.kind;
  liveStatus.textContent =
    state.kind === 'live'
      ? 'Live'
      : state.kind === 'connecting'
        ? 'Connecting…'
        : state.kind === 'retrying'
          ? `Reconnecting in ${state.inSeconds} s`
          : `Live updates off (${state.reason})`;
  liveStatus.title = state.kind === 'live' ? 'Dashboard and appointments refresh from the event stream' : state.kind === 'off' ? 'Use Show to refresh' : '';
});

byId('sign-out').addEventListener('click', () => leave());
// Only panel addresses route; other fragments (the skip link's #main) keep the panel that is open.
window.addEventListener('hashchange', () => {
  if (panels.some((p) => `#${p.id}` === location.hash || location.hash.startsWith(`#${p.id}/`))) route(true);
});

document.addEventListener('api-unauthorized', (event) => leave((event as CustomEvent<unknown>).detail));

clientIdInput.focus();
