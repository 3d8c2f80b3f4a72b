import test from 'ava';
import http from 'node:http';
import { linkOriginWarning } from '../../src/http/public-url.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** Links never follow an untrusted Host header (a cache in front of the appliance could keep them). */

function get(t: TestApp, path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, headers: { host, accept: 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const metadata = '/.well-known/oauth-authorization-server';

test('without a public URL or allowed hosts, a forged Host gets links to the listener address', async (a) => {
  const t = await startTestApp({ jobs: false });
  a.teardown(() => t.close());
  const res = await get(t, metadata, 'evil.example');
  a.is(res.status, 200);
  a.is(res.body.token_endpoint, `${t.url}/oauth/token`);
  a.false(JSON.stringify(res.body).includes('evil.example'));
});

test('PETCARE_ALLOWED_HOSTS: a listed Host is used for links, any other gets the listener address', async (a) => {
  const t = await startTestApp({ jobs: false, config: { allowedHosts: ['petcare.clinic.lan:8080', 'petcare.clinic.lan'] } });
  a.teardown(() => t.close());
  a.is((await get(t, metadata, 'petcare.clinic.lan:8080')).body.token_endpoint, 'http://petcare.clinic.lan:8080/oauth/token');
  a.is((await get(t, metadata, 'PetCare.Clinic.LAN')).body.token_endpoint, 'http://petcare.clinic.lan/oauth/token');
  a.is((await get(t, metadata, 'evil.example')).body.token_endpoint, `${t.url}/oauth/token`);
});

test('PETCARE_PUBLIC_URL wins over any Host', async (a) => {
  const t = await startTestApp({ jobs: false, config: { publicUrl: 'https://petcare.example.org' } });
  a.teardown(() => t.close());
  a.is((await get(t, metadata, 'evil.example')).body.token_endpoint, 'https://petcare.example.org/oauth/token');
});

test('the start warns when links can only follow the listener address', (a) => {
  a.regex(linkOriginWarning(loadConfig({})) ?? '', /PETCARE_PUBLIC_URL/);
  a.is(linkOriginWarning(loadConfig({ PETCARE_PUBLIC_URL: 'https://petcare.example.org' })), null);
  a.is(linkOriginWarning(loadConfig({ PETCARE_ALLOWED_HOSTS: 'petcare.lan' })), null);
});
