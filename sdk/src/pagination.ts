import type { ApiPromise } from './types.js';

/** A page as every list answers it. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/**
 * What `list()` returns: iterate it for every item of every page (fetched one page at a time,
 * following `nextCursor`), or `pages()` for the pages themselves. Nothing is fetched until iterated.
 */
export class PageIterable<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => ApiPromise<Page<T>>) {}

  /** Every page, first to last. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Only the first page (one request); `firstPage().withResponse()` gives its headers too. */
  firstPage(): ApiPromise<Page<T>> {
    return this.fetchPage(undefined);
  }

  /** Every item in an array (stops after `max` items when given). */
  async toArray(max = Infinity): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
