import test from 'ava';
import { newId, useIdClock } from '../../src/db/ids.js';

// One process per test file: the id clock registered here is this file's alone.
let now = Date.UTC(2026, 10, 21, 12);
useIdClock(() => now);

test.serial('ids carry their prefix and a 26-char time-ordered body', (t) => {
  t.regex(newId('pet'), /^pet_[0-9a-hjkmnp-tv-z]{26}$/);
});

test.serial('ids made in the same millisecond still sort in creation order', (t) => {
  now = Date.UTC(2026, 10, 21, 12, 30);
  const ids = Array.from({ length: 1000 }, () => newId('evt'));
  t.deepEqual([...ids].sort(), ids);
  t.is(new Set(ids).size, ids.length);
});

test.serial('a clock stepping back does not break the order', (t) => {
  now = Date.UTC(2026, 10, 21, 13);
  const a = newId('aud');
  now -= 5000;
  const b = newId('aud');
  t.true(b > a);
});

test.serial('later milliseconds sort after earlier ones', (t) => {
  now = Date.UTC(2026, 10, 22);
  const a = newId('loc');
  now = Date.UTC(2026, 10, 23);
  const b = newId('loc');
  t.true(b > a);
});

test.serial('the first 10 characters are the millisecond time of the registered real clock', (t) => {
  now = Date.UTC(2026, 10, 24, 7, 30, 0, 123);
  const body = newId('bkg').slice(4);
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  const decoded = [...body.slice(0, 10)].reduce((value, char) => value * 32 + alphabet.indexOf(char), 0);
  t.is(decoded, now);
});

test.serial('a clock stepping back by more than 10 s is followed: ids do not stay in the future it came from', (t) => {
  now = Date.UTC(2027, 0, 25);
  newId('loc');
  now = Date.UTC(2026, 10, 26);
  const body = newId('loc').slice(4);
  const decoded = [...body.slice(0, 10)].reduce((value, char) => value * 32 + '0123456789abcdefghjkmnpqrstvwxyz'.indexOf(char), 0);
  t.is(decoded, now);
});
