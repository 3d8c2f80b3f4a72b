import { api, type Session } from './api.js';
import { clearProblem, h, showProblem } from './dom.js';
import { knownLocations } from './locations.js';

type Cell = Node | string;

/**
 * A read view with a searchable list and one record's detail (pets, pet parents, invoices): the
 * address says which (`#pets` the list, `#pets/pet_123` one pet), so the browser's Back returns to
 * the list as it was (search and loaded pages kept) and a detail can link to another panel's.
 */
export interface RecordsView {
  show(detail: string | undefined, focus: boolean): boolean;
}

export function recordsView(
  body: HTMLElement,
  problem: HTMLElement,
  options: {
    /** The panel's id: `#<id>/<record id>` addresses a detail. */
    id: string;
    /** What the back link says: "All pets". */
    back: string;
    /** The search form, the table and the pager's button. */
    list: HTMLElement[];
    /** Draws one record into `box` (its h2 first); a refused or missing record throws the API's problem. */
    detail(id: string, box: HTMLElement): Promise<void>;
  },
): RecordsView {
  const listArea = h('div', { class: 'records-list' }, ...options.list);
  const detailBox = h('div', { class: 'record', 'aria-live': 'polite' });
  const detailArea = h(
    'div',
    { class: 'records-detail', hidden: true },
    h('p', {}, h('a', { href: `#${options.id}`, class: 'back-link' }, `← ${options.back}`)),
    detailBox,
  );
  body.append(listArea, detailArea);
  let shown: string | undefined;
  let failed = false;
  let loading: Promise<void> = Promise.resolve();

  return {
    show(detail, focus) {
      listArea.hidden = detail !== undefined;
      detailArea.hidden = detail === undefined;
      if (detail === undefined) {
        // A detail's problem goes with it; the list's own (a 403) stays.
        if (failed) clearProblem(problem);
        failed = false;
        return false;
      }
      // Read again each time it is opened (a payment may have come in); the same record stays on screen meanwhile.
      if (detail !== shown) detailBox.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      shown = detail;
      clearProblem(problem);
      failed = false;
      detailBox.setAttribute('aria-busy', 'true');
      const box = h('div', {});
      loading = options
        .detail(detail, box)
        .then(
          () => {
            if (shown === detail) detailBox.replaceChildren(...box.childNodes);
          },
          (error: unknown) => {
            if (shown !== detail) return;
            shown = undefined;
            failed = true;
            detailBox.replaceChildren();
            showProblem(problem, error);
          },
        )
        .finally(() => detailBox.removeAttribute('aria-busy'));
      if (focus) void loading.then(() => detailBox.querySelector<HTMLElement>('h2')?.focus());
      return focus;
    },
  };
}

/** A list's search form: its fields, then the Search button; submitting runs `search` instead of leaving the page. */
export function searchForm(label: string, search: () => void, ...fields: HTMLElement[]): HTMLFormElement {
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': label,
      onsubmit: (e: Event) => {
        e.preventDefault();
        search();
      },
    },
    ...fields,
    h('div', { class: 'field actions' }, h('button', { type: 'submit' }, 'Search')),
  );
}

/**
 * The locations a list can be filtered by, added to its `select` as options, and their names for
 * its cells (`place`: a location whose name is unknown shows as its id); `known` settles once they
 * are in, a failure shown as the panel's problem.
 */
export function locationChoices(session: Session, select: HTMLElement, problem: HTMLElement): { known: Promise<void>; place(id: string): Cell } {
  const places = new Map<string, string>();
  const known = knownLocations(session).then(
    (found) => {
      for (const [id, label] of found) places.set(id, label);
      select.append(...[...found].map(([id, label]) => h('option', { value: id }, label)));
    },
    (error: unknown) => showProblem(problem, error),
  );
  return { known, place: (id) => places.get(id) ?? h('code', {}, id) };
}

/** A field of a search form: label over input. */
export const field = (id: string, label: string, input: HTMLElement): HTMLElement => h('div', { class: 'field' }, h('label', { for: id }, label), input);

/** A record's facts as a definition list; empty values show as —. */
export function facts(pairs: [string, Cell | null | undefined][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...pairs.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value === null || value === undefined || value === '' ? '—' : value))),
  );
}

/**
 * A part of a detail that needs its own call (a pet's vaccinations, a parent's invoices): its
 * heading, then what `load` draws, or the API's problem for that part alone (403 when the token
 * lacks the scope), so the rest of the record still shows.
 */
export function part(title: string, id: string, load: () => Promise<Node>): HTMLElement {
  const content = h('div', { class: 'part-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const trouble = h('div', { class: 'problem', role: 'alert', hidden: true });
  const el = h('section', { class: 'record-part', id, 'aria-labelledby': `${id}-title` }, h('h3', { id: `${id}-title` }, title), trouble, content);
  load().then(
    (node) => content.replaceChildren(node),
    (error: unknown) => {
      content.replaceChildren();
      showProblem(trouble, error);
    },
  );
  return el;
}

/** A link to another record's detail (`#parents/usr_…`). */
export const recordLink = (panel: string, id: string, text: string): HTMLAnchorElement =>
  h('a', { href: `#${panel}/${encodeURIComponent(id)}`, 'data-id': id }, text);

/**
 * Names for ids (pet parents on a list of pets or invoices): one GET per id not yet known, at most
 * 25 a call; an id whose lookup fails keeps showing as the id.
 */
export function nameCache(path: (id: string) => string): { names: Map<string, string>; fetch(ids: string[]): Promise<void> } {
  const names = new Map<string, string>();
  return {
    names,
    async fetch(ids) {
      const missing = [...new Set(ids)].filter((id) => !names.has(id)).slice(0, 25);
      const found = await Promise.all(missing.map((id) => api<{ id: string; name: string }>('GET', path(id)).catch(() => undefined)));
      for (const item of found) if (item) names.set(item.id, item.name);
    },
  };
}
