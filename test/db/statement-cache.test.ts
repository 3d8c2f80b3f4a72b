import SQLite from 'better-sqlite3';
import test from 'ava';
import { withStatementCache } from '../../src/db/database.js';

// The cache keeps 500 statements; a full miss evicts the least recently used one.
test('the statement cache keeps recently used statements and evicts the least recently used', (t) => {
  const sqlite = new SQLite(':memory:');
  t.teardown(() => sqlite.close());
  const prepared: string[] = [];
  const original = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((sql: string) => {
    prepared.push(sql);
    return original(sql);
  }) as typeof sqlite.prepare;
  const cache = withStatementCache(sqlite);
  const text = (i: number) => `select ${i} as n`;

  const first = cache.prepare(text(0));
  t.is(cache.prepare(text(0)), first, 'a hit answers the same statement');
  for (let i = 1; i < 500; i++) cache.prepare(text(i));
  t.is(prepared.length, 500);
  cache.prepare(text(0)); // used again: now the most recent
  cache.prepare(text(500)); // full: evicts text(1), the least recently used
  t.is(prepared.length, 501);
  t.is(cache.prepare(text(0)), first, 'a recently used statement is kept');
  t.is(prepared.length, 501);
  cache.prepare(text(1)); // evicted: prepared again (evicting text(2))
  t.is(prepared.length, 502);
  cache.prepare(text(3));
  cache.prepare(text(500));
  t.is(prepared.length, 502, 'the others stay cached');
  cache.prepare(text(2));
  t.is(prepared.length, 503, 'the next least recently used went next');
});
