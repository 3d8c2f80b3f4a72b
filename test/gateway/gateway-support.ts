import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import type { Response, TestApp } from '../helpers/test-app.js';

/** The release the gateway must announce in X-Platform-Version. */
export const packageVersion: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Asserts an RFC 9457 problem document with every member the design promises, and that its
 * requestId is the X-Request-Id header of the same response.
 */
export function assertProblem(a: ExecutionContext, res: Response, status: number, code: string, instance?: string): void {
  a.is(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  a.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
  a.is(res.body.type, `urn:petcare:error:${code}`);
  a.is(typeof res.body.title, 'string');
  a.true(res.body.title.length > 0);
  a.is(res.body.status, status);
  a.is(typeof res.body.detail, 'string');
  a.true(res.body.detail.length > 0);
  a.is(res.body.code, code);
  a.is(typeof res.body.requestId, 'string');
  a.is(res.body.requestId, res.headers.get('x-request-id'));
  a.is(typeof res.body.instance, 'string');
  if (instance !== undefined) a.is(res.body.instance, instance);
  // No internals: stack frames or source paths never reach a client.
  a.notRegex(res.text, /\s+at\s+\S+\s+\(|\.ts:\d+|node_modules/);
}

/** Field names of a validation problem. */
export const fieldsOf = (res: Response): string[] => ((res.body.errors ?? []) as Array<{ field: string }>).map((e) => e.field);

/** Asserts `errors: [{field, message}]`, every entry with exactly those two non-empty strings. */
export function assertFieldErrors(a: ExecutionContext, res: Response): void {
  a.true(Array.isArray(res.body.errors), 'errors[] expected');
  a.true(res.body.errors.length > 0);
  for (const e of res.body.errors as Array<Record<string, unknown>>) {
    a.deepEqual(Object.keys(e).sort(), ['field', 'message']);
    a.is(typeof e.field, 'string');
    a.is(typeof e.message, 'string');
    a.true((e.message as string).length > 0);
  }
}

/** Every item of a paged list, following nextCursor. */
export async function walk<T = any>(t: TestApp, path: string, token: string, limit = 100): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 1000; guard++) {
    const res: Response = await t.request('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    if (res.status !== 200) throw new Error(`walk ${path}: ${res.status} ${res.text}`);
    items.push(...(res.body.data as T[]));
    if (!res.body.hasMore) return items;
    cursor = res.body.nextCursor as string;
  }
  throw new Error('walk did not end');
}

/** A pet body that passes validation. */
export const petBody = (household: { parent: { id: string }; location: { id: string } }, name: string) => ({
  name,
  breed: 'Beagle',
  species: 'dog',
  ownerId: household.parent.id,
  locationId: household.location.id,
});

let sequence = 0;
/** A name no other test uses, to count rows with ?name= afterwards. */
export const uniqueName = (label: string): string => `${label}-${process.pid}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** Pets whose name contains `name` (the list filter is a substring match). */
export async function countPetsNamed(t: TestApp, name: string): Promise<number> {
  const res = await t.request('GET', `/v1/pets?limit=100&name=${encodeURIComponent(name)}`, { token: await t.adminToken() });
  if (res.status !== 200) throw new Error(`count: ${res.status} ${res.text}`);
  return (res.body.data as Array<{ name: string }>).filter((p) => p.name === name).length;
}
