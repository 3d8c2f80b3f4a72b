import { ApiProblem } from './api.js';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** Builds an element; text goes in as text nodes (never HTML), `on…` attributes become listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** Shows the API's problem as it came (status, title, detail, code, request id), in a live region. */
export function showProblem(region: HTMLElement, error: unknown): void {
  const p =
    error instanceof ApiProblem
      ? error
      : new ApiProblem(0, 'Unexpected error', error instanceof Error ? error.message : String(error), undefined, undefined, undefined);
  region.replaceChildren();
  append(
    region,
    h('p', { class: 'problem-title' }, p.status ? `${p.status} ${p.title}` : p.title),
    p.detail ? h('p', { class: 'problem-detail' }, p.detail) : null,
    p.fieldErrors.length ? h('ul', {}, ...p.fieldErrors.map((e) => h('li', {}, `${e.field}: ${e.message}`))) : null,
    p.retryAfter ? h('p', { class: 'problem-meta' }, `Retry after ${p.retryAfter} s.`) : null,
    p.code || p.requestId
      ? h('p', { class: 'problem-meta' }, [p.code && `code ${p.code}`, p.requestId && `request ${p.requestId}`].filter(Boolean).join(' · '))
      : null,
  );
  region.hidden = false;
  // An expired or revoked token (401 invalid_token) ends the session: main.ts returns to sign-in with this problem.
  if (p.status === 401 && p.code === 'invalid_token') document.dispatchEvent(new CustomEvent('api-unauthorized', { detail: p }));
}

export function clearProblem(region: HTMLElement): void {
  region.replaceChildren();
  region.hidden = true;
}

/** A table with a caption, column headings and rows of cells. */
export function table(caption: string, headings: string[], rows: Child[][], className = 'data'): HTMLTableElement {
  return h(
    'table',
    { class: className },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headings.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
  );
}
