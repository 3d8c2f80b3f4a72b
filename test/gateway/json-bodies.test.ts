import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { petBody, uniqueName } from './gateway-support.js';

/**
 * A plain JSON body (application/json, a Content-Length, no encoding) is read by the gateway's own
 * reader (src/http/json-body.ts); any other spelling of the JSON type goes through koa-body. Both
 * must answer every body alike: the same status, code and, for a created pet, the same fields.
 */
const bodyLimit = 2048;
const t = useTestApp(test, { config: { jsonBodyLimitBytes: bodyLimit } });
let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;

test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
});

const plain = 'application/json';
const other = 'Application/JSON; charset="utf-8"'; // type-is reads it as application/json; the plain reader does not take it

async function post(contentType: string, rawBody: string | Buffer) {
  const res = await t.request('POST', '/v1/pets', { token, rawBody, headers: { 'content-type': contentType } });
  return { status: res.status, code: res.body?.code as string | undefined, name: res.body?.name as string | undefined, errors: res.body?.errors };
}

test('the plain JSON reader and koa-body answer every body alike', async (a) => {
  const pet = (name: string) => JSON.stringify(petBody(household, name));
  const cases: Array<{ label: string; body: (name: string) => string | Buffer }> = [
    { label: 'a pet', body: pet },
    { label: 'a pet after a BOM', body: (name) => `\ufeff${pet(name)}` },
    { label: 'a pet in UTF-8 bytes with non-ASCII letters', body: (name) => Buffer.from(pet(`${name} Ünïcødé ✓ 🐕`), 'utf8') },
    { label: 'a pet after whitespace', body: (name) => ` \n\t${pet(name)}` },
    { label: 'an empty body', body: () => '' },
    { label: 'whitespace only', body: () => '   ' },
    { label: 'a string', body: () => '"just a string"' },
    { label: 'null', body: () => 'null' },
    { label: 'an array', body: () => '[1, 2]' },
    { label: 'cut short', body: (name) => pet(name).slice(0, -3) },
    { label: 'a __proto__ key', body: (name) => `{"__proto__":{"admin":true},${pet(name).slice(1)}` },
    { label: 'an escaped __proto__ key deeper down', body: (name) => `{"x":{"\\u005f_proto__":{}},${pet(name).slice(1)}` },
    { label: 'a __proto__ text in a value', body: (name) => pet(`${name} "__proto__":`) },
    { label: 'just under the limit', body: (name) => JSON.stringify({ ...petBody(household, name), breed: 'x'.repeat(bodyLimit - 250) }) },
    { label: 'over the limit', body: (name) => JSON.stringify({ ...petBody(household, name), breed: 'x'.repeat(bodyLimit) }) },
  ];
  for (const { label, body } of cases) {
    const name = uniqueName('Body');
    const viaPlain = await post(plain, body(name));
    const viaKoaBody = await post(other, body(name));
    a.deepEqual(viaPlain, viaKoaBody, label);
  }
});

test('the plain reader takes application/json with or without a UTF-8 charset, and a created pet keeps its text', async (a) => {
  for (const type of ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON;charset=UTF-8']) {
    const name = `${uniqueName('Typed')} Ünïcødé 🐕`;
    const res = await t.request('POST', '/v1/pets', {
      token,
      rawBody: Buffer.from(`\ufeff${JSON.stringify(petBody(household, name))}`, 'utf8'),
      headers: { 'content-type': type },
    });
    a.is(res.status, 201, type);
    a.is(res.body.name, name, type);
  }
});
