import test from 'ava';
import { sql } from 'kysely';
import { registeredAccessPolicies, visibleRowCondition, type ScopedTable } from '../../src/db/access-policy.js';
import { newId } from '../../src/db/ids.js';
import type { AccessFilter } from '../../src/http/actor.js';
import { allScopes } from '../../src/http/scopes.js';
import { hashSecret } from '../../src/modules/clients/client-secrets.js';
import { insertClient } from '../../src/modules/clients/clients.repository.js';
import { insertDemoData } from '../../src/modules/sandbox/demo-data.js';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * The tenancy probe: every GET of /openapi.json, called by three callers of one live file that holds
 * two tenants — the appliance's own (households at two locations, made through the API) and another
 * one seeded with the whole demo practice (three clinics, every module's rows) — and no answer may
 * name a row its caller may not see by the tables' policies:
 *
 * - the other tenant's client confined to one clinic: nothing of its other clinics, nothing of the
 *   appliance's tenant;
 * - the other tenant's whole-tenant admin and the appliance's admin: nothing of the other tenant.
 *
 * "Rows it may not see" come from the registered policies themselves (visibleRowCondition), so a new
 * table is probed as soon as its manifest declares it. Lists are called with no path parameter;
 * reads by id are called with ids the caller may not see, of the kind the parameter names (its
 * description's `xxx_` prefix), and must not answer 200.
 */
const t = useTestApp(test, { config: { rateLimitPerMinute: 10_000_000 } });

const other = 'ten_probe_other';
const clinic = 'loc_demo_riverside'; // the clinic with every module's rows (grooming and boarding too)
let tokens: { confined: string; otherAdmin: string; ownAdmin: string };

async function otherTenantClient(locationIds: string[] | null): Promise<string> {
  const db = t.stores.get('live').db;
  const clientId = `pk_live_probe${newId('x').slice(2)}`;
  const secret = `sk_live_probe${newId('x').slice(2)}`;
  const at = new Date(t.clock.now()).toISOString();
  await insertClient(db, { tenantId: other, locationIds: null }, {
    id: newId('cli'),
    tenantId: other,
    clientId,
    name: 'probe',
    role: 'admin',
    scopes: [...allScopes],
    secretHash: await hashSecret(secret),
    locationIds,
    ipAllowlist: null,
    rateLimitPerMinute: null,
    disabled: false,
    apiVersion: (await db.selectFrom('api_clients').select('api_version').limit(1).executeTakeFirstOrThrow()).api_version,
    tokenGeneration: 0,
    createdAt: at,
    updatedAt: at,
  } as Parameters<typeof insertClient>[2]);
  const res = await t.token(clientId, secret);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

test.before(async () => {
  const db = t.stores.get('live').db;
  const at = new Date(t.clock.now()).toISOString();
  await db.insertInto('tenants').values({ id: other, name: 'Probe group', created_at: at }).execute();
  await db.transaction().execute((trx) => insertDemoData(trx, other, t.clock.now()));
  // The appliance's own tenant: two locations with a household each (a parent and a pet).
  await createHousehold(t);
  await createHousehold(t);
  tokens = { confined: await otherTenantClient([clinic]), otherAdmin: await otherTenantClient(null), ownAdmin: await t.adminToken() };
});

/** Ids of every row of `tenantId` that `access` may not see, by the tables' policies, by table. */
async function unseen(tenantId: string, access: AccessFilter): Promise<Map<string, string>> {
  const db = t.stores.get('live').db;
  const out = new Map<string, string>();
  for (const [table, policy] of registeredAccessPolicies()) {
    if ('system' in policy) continue;
    const columns = (t.stores.get('live').sqlite.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((c) => c.name);
    if (!columns.includes('id')) continue;
    const rows = await sql<{
      id: string;
    }>`select ${sql.ref(`${table}.id`)} as id from ${sql.table(table)} where ${sql.ref(`${table}.tenant_id`)} = ${tenantId} and not (${visibleRowCondition(table as ScopedTable, table, access)})`.execute(
      db,
    );
    for (const { id } of rows.rows) if (typeof id === 'string') out.set(id, table);
  }
  return out;
}

/** A GET bounded in time: a streaming answer (the event stream) is read for a moment, then cut. */
async function get(path: string, token: string): Promise<{ status: number; body: unknown; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3_000);
  try {
    const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal: controller.signal });
    let text = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body ?? []) text += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch {
      // cut while streaming: what arrived so far is searched
    }
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the text is searched as one string
    }
    // A stream's text (server-sent events) is searched line by line for JSON.
    if (typeof body === 'string') body = text.split('\n').map((line) => line.replace(/^data: /, ''));
    return { status: res.status, body, text };
  } finally {
    clearTimeout(timer);
  }
}

/** Every string in a JSON value. */
function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, into);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: unknown[]; format?: string; anyOf?: Array<{ const?: unknown }> };
}

interface Operation {
  path: string;
  params: string[];
  /** Required query parameters (availability, occupancy and summaries ask for a location, a pet or dates). */
  required: Parameter[];
  paged: boolean;
}

async function getOperations(): Promise<Operation[]> {
  const doc = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const parameters = item.get?.parameters;
    if (!item.get) continue;
    out.push({
      path,
      params: (parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      required: (parameters ?? []).filter((p) => p.in === 'query' && p.required),
      paged: (parameters ?? []).some((p) => p.in === 'query' && p.name === 'limit'),
    });
  }
  return out;
}

interface Caller {
  name: string;
  token: string;
  /** A location and a pet the caller sees, for lists that require one. */
  own: { locationId: string; petId: string; typeCode?: string; packageId?: string };
  /** Rows the caller may not see: id → table. */
  hidden: Map<string, string>;
}

const day = 86_400_000;

/** The query string of a list: its required parameters filled for the caller (or with a row it may not see, `with`). */
function queryOf(op: Operation, caller: Caller, withHidden: { locationId?: string; petId?: string } = {}): string | null {
  const query = new URLSearchParams();
  if (op.paged) query.set('limit', '100');
  // Provider availability asks for a category or providers (a rule beyond the schema).
  if (op.path === '/v1/providers/availability') query.set('category', 'walking');
  for (const p of op.required) {
    const format = p.schema?.format;
    const choice = p.schema?.enum?.[0] ?? p.schema?.anyOf?.find((a) => a.const !== undefined)?.const;
    let value: string | undefined;
    if (p.name === 'locationId') value = withHidden.locationId ?? caller.own.locationId;
    else if (p.name === 'petId') value = withHidden.petId ?? caller.own.petId;
    else if (p.name === 'type') value = caller.own.typeCode;
    else if (p.name === 'packageId') value = caller.own.packageId;
    else if (p.name === 'from' || p.name === 'to') {
      const at = t.clock.now() + (p.name === 'from' ? -14 * day : 14 * day); // 28 days: availability allows 31
      value = format === 'date-time' ? new Date(at).toISOString() : new Date(at).toISOString().slice(0, 10);
    } else if (choice !== undefined) value = String(choice);
    else if (p.name === 'category') value = 'walking';
    else if (p.name === 'size') value = 'medium';
    if (value === undefined) return null;
    query.set(p.name, value);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** One id of every table among the caller's hidden rows (the tables' own rows, one each). */
const onePerTable = (hidden: Map<string, string>): string[] => {
  const seen = new Map<string, string>();
  for (const [id, table] of hidden) if (!seen.has(table)) seen.set(table, id);
  return [...seen.values()];
};

test('no GET of the API shows a caller a row of another tenant or of a location it is not confined to', async (a) => {
  const db = t.stores.get('live').db;
  const firstPet = async (tenantId: string, locationId?: string) =>
    await db
      .selectFrom('pets')
      .select(['id', 'location_id'])
      .where('tenant_id', '=', tenantId)
      .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
      .orderBy('id')
      .executeTakeFirstOrThrow();
  const clinicPet = await firstPet(other, clinic);
  const ownPet = await firstPet(t.tenantId);
  const typeCode = async (tenantId: string) =>
    (await db.selectFrom('appointment_types').select('code').where('tenant_id', '=', tenantId).orderBy('code').executeTakeFirst())?.code;
  const packageId = async (tenantId: string, locationId: string) =>
    (
      await db
        .selectFrom('grooming_packages')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where((eb) => eb.or([eb('location_id', '=', locationId), eb('location_id', 'is', null)]))
        .orderBy('id')
        .executeTakeFirst()
    )?.id;
  const otherOwn = { locationId: clinic, petId: clinicPet.id, typeCode: await typeCode(other), packageId: await packageId(other, clinic) };
  const ownOwn = {
    locationId: ownPet.location_id,
    petId: ownPet.id,
    typeCode: await typeCode(t.tenantId),
    packageId: await packageId(t.tenantId, ownPet.location_id),
  };
  const appliance = await unseen(t.tenantId, { tenantId: other, locationIds: null });
  const callers: Caller[] = [
    {
      name: 'the other tenant, confined to one clinic',
      token: tokens.confined,
      own: otherOwn,
      hidden: new Map([...(await unseen(other, { tenantId: other, locationIds: [clinic] })), ...appliance]),
    },
    { name: "the other tenant's admin", token: tokens.otherAdmin, own: otherOwn, hidden: appliance },
    {
      name: "the appliance's admin",
      token: tokens.ownAdmin,
      own: ownOwn,
      hidden: await unseen(other, { tenantId: t.tenantId, locationIds: null }),
    },
  ];
  for (const c of callers) a.true(c.hidden.size > 0, `${c.name}: rows to hide`);
  const operations = await getOperations();
  const leaks: string[] = [];
  const errors: string[] = [];
  const tally = { lists: 0, reads: 0, calls: 0, notProbed: [] as string[], statuses: new Map<number, number>() };
  const listAnswers: string[] = [];
  const call = async (c: Caller, path: string, substituted: readonly string[] = []) => {
    const res = await get(path, c.token);
    if (!path.includes('{') && substituted.length === 0 && res.status !== 200)
      listAnswers.push(
        `${c.name} ${path.split('?')[0]} ${res.status} ${res.text.slice(0, 160)}${res.status === 400 ? JSON.stringify((res.body as { errors?: unknown }).errors) : ''}`,
      );
    tally.calls++;
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) errors.push(`${c.name}: GET ${path} answers ${res.status}`);
    if (res.status === 200)
      for (const id of substituted) if (res.text.includes(id)) leaks.push(`${c.name}: GET ${path} answers 200 with ${c.hidden.get(id)} ${id}`);
    const shown = new Set(strings(res.body).filter((s) => c.hidden.has(s) && !substituted.includes(s)));
    for (const id of shown) leaks.push(`${c.name}: GET ${path} (${res.status}) shows ${c.hidden.get(id)} ${id}`);
  };

  // Lists (no path parameter): as each caller, and again naming a location or pet the caller may not see.
  for (const op of operations.filter((o) => o.params.length === 0 && o.path.startsWith('/v1/'))) {
    tally.lists++;
    for (const c of callers) {
      const query = queryOf(op, c);
      if (query === null) {
        tally.notProbed.push(`${op.path} (as ${c.name}: ${op.required.map((r) => r.name).join(', ')})`);
        continue;
      }
      await call(c, op.path + query);
      const hiddenLocation = [...c.hidden].find(([, table]) => table === 'locations')?.[0];
      const hiddenPet = [...c.hidden].find(([, table]) => table === 'pets')?.[0];
      for (const [key, id] of [
        ['locationId', hiddenLocation],
        ['petId', hiddenPet],
      ] as const) {
        if (id === undefined || !op.required.some((p) => p.name === key)) continue;
        await call(c, op.path + queryOf(op, c, { [key]: id }), [id]);
      }
    }
  }
  // Reads by id (every GET with path parameters): each parameter given one row of every table the caller may not see.
  for (const op of operations.filter((o) => o.params.length > 0)) {
    tally.reads++;
    for (const c of callers) {
      for (const id of onePerTable(c.hidden)) {
        let path = op.path;
        for (const name of op.params) path = path.replace(`{${name}}`, encodeURIComponent(id));
        await call(c, path, [id]);
      }
    }
  }
  a.log(
    `${tally.lists} list endpoints and ${tally.reads} reads by id probed by ${callers.length} callers in ${tally.calls} calls ` +
      `(statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}); lists not answered 200: ${listAnswers.join(' | ')}; not probed: ${tally.notProbed.join(' ') || 'none'}; ` +
      `rows hidden from each: ${callers.map((c) => `${c.name} ${c.hidden.size} in ${new Set(c.hidden.values()).size} tables`).join(', ')}`,
  );
  a.deepEqual(leaks, []);
  a.deepEqual(errors, []);
});
