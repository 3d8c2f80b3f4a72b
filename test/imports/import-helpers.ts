import type { TestApp } from '../helpers/test-app.js';
import { eventually } from '../helpers/eventually.js';

export interface ImportResponse {
  status: number;
  body: any;
}

/** POSTs an import form (multipart, as a fetch client sends it) to `url` (the test app's or a child server's). */
export async function postImport(
  url: string,
  token: string,
  file: string | Buffer | null,
  fields: Record<string, string>,
  name = 'data.csv',
): Promise<ImportResponse> {
  const form = new FormData();
  if (file !== null) form.append('file', new Blob([typeof file === 'string' ? Buffer.from(file) : file], { type: 'text/csv' }), name);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const res = await fetch(`${url}/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until the import has ended (done, failed or cancelled) and returns it. */
export async function finished(t: TestApp, token: string, id: string): Promise<any> {
  let last: any;
  await eventually(
    async () => {
      last = (await t.request('GET', `/v1/imports/${id}`, { token })).body;
      return ['done', 'failed', 'cancelled'].includes(last.status);
    },
    { timeoutMs: 30_000, intervalMs: 100, what: () => `import ${id} to end: ${JSON.stringify(last)}` },
  );
  return last;
}

/** An import through the test app, to its end. */
export async function importFile(t: TestApp, token: string, file: string | Buffer, fields: Record<string, string>): Promise<any> {
  const res = await postImport(t.url, token, file, fields);
  if (res.status !== 202) throw new Error(`POST /v1/imports answered ${res.status}: ${JSON.stringify(res.body)}`);
  return finished(t, token, res.body.id);
}
