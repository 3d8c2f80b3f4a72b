import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/eventually.js';
import type { TestApp } from '../helpers/test-app.js';

/** Helpers of the AI tests: services, uploads (JSON text or multipart) and waiting for the index. */

export const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ai');
export const fixture = (name: string): Buffer => readFileSync(path.join(fixtures, name));

export function form(file: Buffer, filename: string, type: string, title?: string): { rawBody: Buffer; headers: Record<string, string> } {
  const boundary = '----aik' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  if (title) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export async function service(
  t: TestApp,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: string; retrieval: { vector: boolean; embeddingModel: string | null; dimension: number | null; reason: string | null } }> {
  const res = await t.request('POST', '/v1/ai/services', { token, body });
  if (res.status !== 201) throw new Error(`service: ${res.status} ${res.text}`);
  return res.body;
}

/** Uploads and waits until the document is indexed (throws when it fails). */
export async function indexed(t: TestApp, token: string, serviceId: string, upload: { body?: unknown; rawBody?: Buffer; headers?: Record<string, string> }) {
  const res = await t.request('POST', `/v1/ai/services/${serviceId}/documents`, { token, ...upload });
  if (res.status !== 202 && res.status !== 200) throw new Error(`upload: ${res.status} ${res.text}`);
  return eventually(
    async () => {
      const doc = await t.request('GET', `/v1/ai/services/${serviceId}/documents/${res.body.id}`, { token });
      if (doc.body.status === 'failed') throw new Error(`indexing failed: ${doc.body.error}`);
      return doc.body.status === 'indexed' ? doc.body : null;
    },
    // A poll every 100 ms stays under the default rate limit (600 a minute) however long a loaded machine takes.
    { timeoutMs: 60_000, intervalMs: 100, what: `document ${res.body.id} indexed` },
  );
}

/** The three eval documents in one service. */
export async function clinicDocuments(t: TestApp, token: string, serviceId: string) {
  const pdf = await indexed(
    t,
    token,
    serviceId,
    form(fixture('anaesthesia-protocol.pdf'), 'anaesthesia-protocol.pdf', 'application/pdf', 'Anaesthesia protocol'),
  );
  const boarding = await indexed(t, token, serviceId, form(fixture('boarding-policy.md'), 'boarding-policy.md', 'text/markdown', 'Boarding policy'));
  const vaccination = await indexed(t, token, serviceId, form(fixture('vaccination-policy.txt'), 'vaccination-policy.txt', 'text/plain', 'Vaccination policy'));
  return { pdf, boarding, vaccination };
}
