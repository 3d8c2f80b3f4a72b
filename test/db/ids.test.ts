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

test('the first 10 characters are the millisecond time in Crockford base32 (the format older ids have)', (t) => {
  const now = Date.UTC(2026, 10, 24, 7, 30, 0, 123);
  const body = newId('bkg', now + 86_400_000).slice(4);
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  const decoded = [...body.slice(0, 10)].reduce((value, char) => value * 32 + alphabet.indexOf(char), 0);
  t.is(decoded, now + 86_400_000);
});
