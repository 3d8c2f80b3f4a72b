import { hash } from 'node:crypto';
import { isoAt } from '../clock.js';
import type { Environment } from '../config.js';
import { runStatement, selectRows, type Executor } from '../db/database.js';
import { AppError } from './errors.js';

export interface StoredResponse {
  fingerprint: string;
  status: number;
  body: unknown;
}

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * The Idempotency-Key header as the request carried it (`ctx.req.headers['idempotency-key']`: undefined
 * only when absent), checked; undefined when absent. An empty value is a malformed key, never "no key"
 * (DESIGN §4): a client whose key variable came out empty must not get an unprotected write.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !keyPattern.test(header)) {
    throw new AppError(
      'invalid_idempotency_key',
      'Idempotency-Key must be 1–255 visible ASCII characters; an empty one is refused, not read as no key (send none to write without one).',
      {
        errors: [{ field: 'Idempotency-Key', message: 'must be 1–255 visible ASCII characters' }],
      },
    );
  }
  return header;
}

/** Canonical JSON (sorted keys) so whitespace or key order do not make a retry look different. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonical(value[i]);
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    // Keys in UTF-16 code unit order (the default sort's); built in one string, not arrays of entries.
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return hash('sha256', `${method} ${path}\n${canonical(body)}`, 'hex');
}

interface StoredRow {
  fingerprint: string;
  response_status: number;
  response_body: string;
}

// Both run on every write with a key: SQL text prepared once, not built per request.
const findSql = 'select fingerprint, response_status, response_body from idempotency_keys where client_id = ? and key = ? and expires_at > ?';
const saveSql =
  'insert into idempotency_keys (client_id, key, fingerprint, response_status, response_body, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?) ' +
  'on conflict (client_id, key) do update set fingerprint = excluded.fingerprint, response_status = excluded.response_status, ' +
  'response_body = excluded.response_body, created_at = excluded.created_at, expires_at = excluded.expires_at ' +
  'where idempotency_keys.expires_at <= ?';

/**
 * Idempotency-Key records (IETF httpapi idempotency draft, Stripe semantics), scoped per client.
 * The stored response is written in the same transaction as the write it describes; a key still
 * in flight in this process is answered 409.
 */
export class IdempotencyStore {
  private readonly inFlight = new Set<string>();

  constructor(private readonly ttlSeconds: number) {}

  async find(db: Executor, clientId: string, key: string, now: number): Promise<StoredResponse | null> {
    const [row] = await selectRows<StoredRow>(db, findSql, [clientId, key, isoAt(now)]);
    return row ? { fingerprint: row.fingerprint, status: row.response_status, body: JSON.parse(row.response_body) } : null;
  }

  /** Claims the key for this process; false when the same key is already running. */
  begin(env: Environment, clientId: string, key: string): boolean {
    const slot = `${env}\u0000${clientId}\u0000${key}`;
    if (this.inFlight.has(slot)) return false;
    this.inFlight.add(slot);
    return true;
  }

  end(env: Environment, clientId: string, key: string): void {
    this.inFlight.delete(`${env}\u0000${clientId}\u0000${key}`);
  }

  /**
   * Stores the first response in the write's own transaction. The primary key on (client, key) is
   * the real guard: only an expired record may be replaced, so if another request (another process,
   * or one that slipped between find() and begin()) committed the key first, this write rolls back.
   */
  async save(trx: Executor, clientId: string, key: string, response: StoredResponse, now: number): Promise<void> {
    const nowIso = isoAt(now);
    const expiresAt = new Date(now + this.ttlSeconds * 1000).toISOString();
    const changed = await runStatement(trx, saveSql, [
      clientId,
      key,
      response.fingerprint,
      response.status,
      JSON.stringify(response.body),
      nowIso,
      expiresAt,
      nowIso,
    ]);
    if (changed === 0) {
      throw new AppError('idempotency_key_in_use', 'Another request with this Idempotency-Key has just completed; retry to get its response.', {
        headers: { 'Retry-After': '1' },
      });
    }
  }

  /** Deletes records past their retention; run by the housekeeping job. */
  async sweep(db: Executor, now: number): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date(now).toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
