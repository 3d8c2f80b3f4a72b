import test from 'ava';
import { newId } from '../../src/db/ids.js';

test('ids carry their prefix and a 26-char time-ordered body', (t) => {
  const id = newId('pet', Date.UTC(2026, 10, 21));
  t.regex(id, /^pet_[0-9a-hjkmnp-tv-z]{26}$/);
});

test('ids made in the same millisecond still sort in creation order', (t) => {
  const now = Date.UTC(2026, 10, 21, 12);
  const ids = Array.from({ length: 1000 }, () => newId('evt', now));
  t.deepEqual([...ids].sort(), ids);
  t.is(new Set(ids).size, ids.length);
});

test('a clock stepping back does not break the order', (t) => {
  const now = Date.UTC(2026, 10, 21, 13);
  const a = newId('aud', now);
  const b = newId('aud', now - 5000);
  t.true(b > a);
});

test('later milliseconds sort after earlier ones', (t) => {
  const a = newId('loc', Date.UTC(2026, 0, 1));
  const b = newId('loc', Date.UTC(2026, 0, 2));
  t.true(b > a);
});
