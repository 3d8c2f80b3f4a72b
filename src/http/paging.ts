import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { sql, type SelectQueryBuilder } from 'kysely';
import { AppError } from './errors.js';

export const maxPageSize = 100;
export const defaultPageSize = 25;

/** Query parameters every list accepts; spread into a list route's query schema. */
export const pageQueryFields = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPageSize, default: defaultPageSize, description: 'Page size (1–100, default 25).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The nextCursor of the previous page.' })),
};

export interface PageRequest {
  limit: number;
  /** Id of the last row of the previous page (rows come newest first). */
  afterId: string | undefined;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export const pageSchema = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as ?cursor= to get the next page.' }),
      hasMore: Type.Boolean(),
    },
    { additionalProperties: false },
  );

/** Row ids are `prefix_` + lower-case base32 (or `_`-separated sandbox demo ids); a cursor naming anything else was not ours. */
const cursorIdPattern = /^[a-z]{2,10}_[a-z0-9_]{1,80}$/;

export function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id })).toString('base64url');
}

export function pageRequest(query: { limit?: number | undefined; cursor?: string | undefined }): PageRequest {
  const limit = query.limit ?? defaultPageSize;
  if (query.cursor === undefined) return { limit, afterId: undefined };
  try {
    const decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8')) as { v?: number; id?: unknown };
    if (decoded.v === 1 && typeof decoded.id === 'string' && cursorIdPattern.test(decoded.id)) return { limit, afterId: decoded.id };
  } catch {
    // fall through to the error below
  }
  throw new AppError('invalid_cursor', 'The cursor is not one this API returned; start again without it.', {
    errors: [{ field: 'cursor', message: 'is not a valid cursor' }],
  });
}

/**
 * Applies keyset paging, newest first by id (ids sort by creation time). Fetches one extra row
 * so `toPage` knows whether there is more.
 */
// The builder's table type varies per list; every paged table has an `id` column.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function pageQuery<QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: PageRequest, idColumn = 'id'): QB {
  let q = query.orderBy(sql.ref(idColumn), 'desc').limit(page.limit + 1);
  if (page.afterId !== undefined) q = q.where(sql.ref(idColumn), '<', page.afterId);
  return q as QB;
}

export function toPage<Row extends { id: string }, Out>(rows: Row[], page: PageRequest, present: (row: Row) => Out): Page<Out> {
  const hasMore = rows.length > page.limit;
  const visible = hasMore ? rows.slice(0, page.limit) : rows;
  const last = visible[visible.length - 1];
  return { data: visible.map(present), nextCursor: hasMore && last ? encodeCursor(last.id) : null, hasMore };
}

export type PageQuery = Static<ReturnType<typeof Type.Object<typeof pageQueryFields>>>;
