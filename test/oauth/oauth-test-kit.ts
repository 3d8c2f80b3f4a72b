import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign as rsaSign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { NewClient, Response, TestApp } from '../helpers/test-app.js';

/** Shared by the OAuth test files (not a test file itself: ava only runs *.test.ts). */

export interface CreatedClient {
  id: string;
  clientId: string;
  clientSecret: string;
  role: string;
  scopes: string[];
  ipAllowlist: string[] | null;
}

/** Creates a client through the admin API without asking for a token (an allowlisted client may not be able to). */
export async function createClient(t: TestApp, spec: NewClient = {}): Promise<CreatedClient> {
  const env = spec.environment ?? 'live';
  const res = await t.request('POST', '/v1/clients', {
    token: await t.adminToken(env),
    body: { name: spec.name ?? 'oauth test client', role: spec.role ?? 'staff', scopes: spec.scopes ?? ['pets'], ...spec, environment: env },
  });
  if (res.status !== 201) throw new Error(`client create failed: ${res.status} ${res.text}`);
  return res.body as CreatedClient;
}

export const basicAuth = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** POST a form-encoded body to an OAuth endpoint. */
export function postForm(t: TestApp, endpoint: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return t.request('POST', endpoint, {
    rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** POST a JSON body to an OAuth endpoint. */
export function postJson(t: TestApp, endpoint: string, body: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return t.request('POST', endpoint, { body, headers });
}

export function clientCredentials(t: TestApp, client: { clientId: string; clientSecret: string }, scope?: string): Promise<Response> {
  return postJson(t, '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(scope !== undefined ? { scope } : {}),
  });
}

export function refresh(t: TestApp, client: { clientId: string; clientSecret: string }, refreshToken: string, scope?: string): Promise<Response> {
  return postJson(t, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(scope !== undefined ? { scope } : {}),
  });
}

export function revoke(t: TestApp, client: { clientId: string; clientSecret: string }, token: string, hint?: string): Promise<Response> {
  return postJson(t, '/oauth/revoke', {
    token,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(hint ? { token_type_hint: hint } : {}),
  });
}

/** Asserts an OAuth error response: RFC 6749 §5.2 members next to the RFC 9457 problem fields. */
export function assertOAuthError(a: ExecutionContext, res: Response, status: number, error: string, code: string = error): void {
  a.is(res.status, status, res.text);
  a.is(res.body.error, error, res.text);
  a.is(typeof res.body.error_description, 'string');
  a.is(res.body.status, status);
  a.is(res.body.code, code);
  a.is(res.body.type, `urn:petcare:error:${code}`);
  a.is(typeof res.body.title, 'string');
  a.is(typeof res.body.detail, 'string');
  a.truthy(res.body.requestId);
  a.is(res.body.requestId, res.headers.get('x-request-id'));
  a.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  a.is(res.headers.get('cache-control'), 'no-store');
}

/** Parses `Bearer realm="x", error="y"` into its scheme and parameters. */
export function parseChallenge(header: string | null): { scheme: string; params: Record<string, string> } {
  const value = header ?? '';
  const space = value.indexOf(' ');
  const scheme = space < 0 ? value : value.slice(0, space);
  const params: Record<string, string> = {};
  for (const m of value.slice(space + 1).matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) params[m[1] as string] = m[2] as string;
  return { scheme, params };
}

/** Asserts a bearer 401 with `error="invalid_token"` and a problem+json body. */
export function assertInvalidToken(a: ExecutionContext, res: Response, error = 'invalid_token'): void {
  a.is(res.status, 401, res.text);
  const challenge = parseChallenge(res.headers.get('www-authenticate'));
  a.is(challenge.scheme, 'Bearer', String(res.headers.get('www-authenticate')));
  a.is(challenge.params.error, error);
  a.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  a.is(res.body.status, 401);
  a.is(res.body.code, 'invalid_token');
  a.falsy(res.body.stack);
}

// ---- JWT forging, for hostile-token tests ----

const b64u = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [h = '', p = '', s = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature: s,
  };
}

export type Signer = (signingInput: string) => Buffer | string;

/** Builds a compact JWS from a header, a payload and a signing function (empty string for alg none). */
export function forgeJwt(header: Record<string, unknown>, payload: Record<string, unknown>, signer: Signer): string {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  const signature = signer(input);
  return `${input}.${typeof signature === 'string' ? signature : signature.toString('base64url')}`;
}

export const rs256 =
  (key: KeyObject): Signer =>
  (input) =>
    rsaSign('sha256', Buffer.from(input), key);
export const hs256 =
  (secret: string | Buffer): Signer =>
  (input) =>
    createHmac('sha256', secret).update(input).digest();
export const unsigned: Signer = () => '';

/** The appliance's current signing key, read from its data directory (what an attacker must never have). */
export function applianceSigningKey(t: TestApp): { kid: string; privateKey: KeyObject; publicKey: KeyObject } {
  const stored = JSON.parse(readFileSync(path.join(t.dataDir, 'keys', 'signing-keys.json'), 'utf8')) as { kid: string; privateKeyPem: string }[];
  const last = stored[stored.length - 1];
  if (!last) throw new Error('no signing key');
  const privateKey = createPrivateKey(last.privateKeyPem);
  return { kid: last.kid, privateKey, publicKey: createPublicKey(privateKey) };
}

export const strangerKey = (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
