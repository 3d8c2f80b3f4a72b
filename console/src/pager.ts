import type { Page } from './api.js';
import { clearProblem, h, showProblem } from './dom.js';

/**
 * A list read by cursor: `load(false)` starts over (a new search), the "Load more" button appends
 * the next page. `show` gets every row so far and the page just added; problems go to `problem`.
 */
export function pager<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  show: (rows: T[], added: T[]) => Promise<void> | void,
  problem: HTMLElement,
): { load(next: boolean): Promise<void>; more: HTMLButtonElement } {
  const more = h('button', { type: 'button', hidden: true }, 'Load more');
  let rows: T[] = [];
  let cursor: string | null = null;
  async function load(next: boolean) {
    clearProblem(problem);
    try {
      const page = await fetchPage(next && cursor ? cursor : undefined);
      rows = next ? [...rows, ...page.data] : page.data;
      cursor = page.nextCursor;
      more.hidden = !page.hasMore;
      await show(rows, page.data);
    } catch (error) {
      showProblem(problem, error);
    }
  }
  more.addEventListener('click', () => void load(true));
  return { load, more };
}
