/**
 * Operator CLI: manages API clients, locations and signing keys offline, straight on the data dir
 * (PETCARE_DATA_DIR), through the same services and repositories as the API. A running appliance
 * notices client changes on its next request (SQLite data_version); new signing keys take effect
 * when it restarts.
 *
 *   npm run cli -- help            (tsx)
 *   node dist/src/cli.js help      (compiled)
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config, type Environment } from './config.js';
import { openSigningKeys, openStores } from './data-dir.js';
import type { Executor } from './db/database.js';
import type { Stores } from './db/stores.js';
import type { Actor } from './http/actor.js';
import { AuditLog } from './http/audit.js';
import { AppError, validationFailed, type FieldError } from './http/errors.js';
import { defaultPageSize, type PageRequest } from './http/paging.js';
import { allScopes, roles } from './http/scopes.js';
import { validateBody } from './http/validation.js';
import { clientsService, findClientById, listClients, presentClient, presentClientWithSecret } from './modules/clients/index.js';
import { CreateClientSchema, type CreateClientInput } from './modules/clients/clients.schema.js';
import { listLocations } from './modules/locations/locations.repository.js';
import { presentLocation } from './modules/locations/locations.presenter.js';
import { CreateLocationSchema, type CreateLocationInput } from './modules/locations/locations.schema.js';
import { createLocation } from './modules/locations/locations.service.js';

const usage = `Pet-Care Platform operator CLI: works offline on PETCARE_DATA_DIR (default ./data).

Usage: npm run cli -- <command> [options]      (or: node dist/src/cli.js <command> [options])

Commands:
  clients list [--env live|sandbox]
  clients create --name <name> --role admin|doctor|staff --scopes "<scope> <scope>…"
                 [--env live|sandbox] [--locations loc_a,loc_b] [--ip-allowlist 10.0.0.0/8,…] [--rate-limit <per minute>]
                 Prints the client id and its secret (shown once).
  clients disable <cli_id> [--env live|sandbox]   Stops the client and every token it holds at once.
  clients enable <cli_id> [--env live|sandbox]
  clients rotate-secret <cli_id> [--env live|sandbox]
                 Prints the new secret (shown once); the old one and the refresh tokens stop working.
  locations list [--env live|sandbox]
  locations create --name <name> --timezone <IANA zone, e.g. Europe/London> [--env live|sandbox]
  keys rotate    Adds a new RS256 signing key (the appliance signs with it after its next restart).
  help

Options:
  --env     Environment (default: live, or sandbox on a sandbox-only appliance). Client commands that
            name a cli_ id find it in any environment when --env is not given.
  --json    Machine-readable output.

Environment: PETCARE_DATA_DIR, PETCARE_SANDBOX_ONLY (as for the appliance).
Exit codes: 0 ok, 1 refused (the reason is printed), 2 usage error.`;

/** A usage mistake: printed with a pointer to `help`, exit code 2. */
class UsageError extends Error {}

const options = {
  env: { type: 'string' },
  name: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  locations: { type: 'string' },
  'ip-allowlist': { type: 'string' },
  'rate-limit': { type: 'string' },
  timezone: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

interface Values {
  env?: string;
  name?: string;
  role?: string;
  scopes?: string;
  locations?: string;
  'ip-allowlist'?: string;
  'rate-limit'?: string;
  timezone?: string;
  json: boolean;
  help: boolean;
}

/** Which options each command takes; anything else is a usage error rather than silently ignored. */
const commandOptions: Record<string, readonly (keyof Values)[]> = {
  'clients list': ['env'],
  'clients create': ['env', 'name', 'role', 'scopes', 'locations', 'ip-allowlist', 'rate-limit'],
  'clients disable': ['env'],
  'clients enable': ['env'],
  'clients rotate-secret': ['env'],
  'locations list': ['env'],
  'locations create': ['env', 'name', 'timezone'],
  'keys rotate': [],
};
const withId = new Set(['clients disable', 'clients enable', 'clients rotate-secret']);

/** Request body fields as the operator typed them, so messages name the flag to fix. */
const flagOf: Record<string, string> = {
  name: '--name',
  role: '--role',
  scopes: '--scopes',
  environment: '--env',
  locationIds: '--locations',
  ipAllowlist: '--ip-allowlist',
  rateLimitPerMinute: '--rate-limit',
  timezone: '--timezone',
};
const flagName = (field: string) => field.replace(/^body\.?/, '').replace(/^[A-Za-z]+/, (f) => flagOf[f] ?? f);

const list = (raw: string | undefined): string[] | undefined => (raw === undefined ? undefined : raw.split(/[\s,]+/).filter(Boolean));

interface Session {
  config: Config;
  stores: Stores;
  tenantId: string;
  audit: AuditLog;
  json: boolean;
  out: (text: string) => void;
}

/** The operator acts as an unscoped admin of the tenant in the chosen environment. */
function operator(session: Session, env: Environment): Actor {
  return {
    clientId: 'operator-cli',
    publicClientId: 'operator-cli',
    tenantId: session.tenantId,
    env,
    role: 'admin',
    scopes: new Set(allScopes),
    locationIds: null,
    tokenId: 'operator-cli',
  };
}

function environmentOf(session: Session, raw: string | undefined): Environment {
  if (raw === undefined) return session.stores.has('live') ? 'live' : 'sandbox';
  if (raw !== 'live' && raw !== 'sandbox') throw new UsageError(`--env must be live or sandbox (got "${raw}")`);
  if (!session.stores.has(raw)) throw new AppError('environment_not_allowed', `The ${raw} environment is not enabled in ${session.config.dataDir}.`);
  return raw;
}

/**
 * Runs a change in one transaction with its audit row, so operator changes show in GET /v1/audit-events
 * next to API calls (method CLI, no client, ip "local").
 *
 * BEGIN IMMEDIATE takes the write lock up front (waiting up to busy_timeout for the running appliance):
 * with a deferred BEGIN, a commit by the appliance between this transaction's first read and its first
 * write would fail it with SQLITE_BUSY, which the busy timeout does not retry. The lock is held for the
 * few milliseconds of the change (plus the secret hash on create and rotate).
 */
async function audited<T>(
  session: Session,
  env: Environment,
  route: string,
  work: (db: Executor) => Promise<T>,
  resourceId: (result: T) => string | null,
  status = 200,
): Promise<T> {
  const started = Date.now();
  const store = session.stores.get(env);
  store.sqlite.exec('BEGIN IMMEDIATE');
  try {
    // One process, one connection, nothing else running: every query of `work` is inside this transaction.
    const result = await work(store.db);
    const now = Date.now();
    await session.audit.writeWith(store.db, {
      tenantId: session.tenantId,
      requestId: `cli-${randomUUID()}`,
      occurredAt: now,
      clientId: null,
      role: 'admin',
      ip: 'local',
      method: 'CLI',
      route: `CLI ${route}`,
      path: `petcare-cli ${route}`,
      resourceId: resourceId(result),
      status,
      latencyMs: now - started,
    });
    store.sqlite.exec('COMMIT');
    return result;
  } catch (error) {
    if (store.sqlite.inTransaction) store.sqlite.exec('ROLLBACK');
    throw error;
  }
}

/** Every page of a keyset-paged list. */
async function allPages<T extends { id: string }>(fetch: (page: PageRequest) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await fetch({ limit: defaultPageSize * 4, afterId });
    const more = page.length > defaultPageSize * 4;
    const visible = more ? page.slice(0, defaultPageSize * 4) : page;
    rows.push(...visible);
    if (!more) return rows;
    afterId = visible[visible.length - 1]?.id;
  }
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** The environments to look a cli_ id up in: the one named, or every enabled one. */
async function findClientEnv(session: Session, id: string, rawEnv: string | undefined): Promise<Environment> {
  if (rawEnv !== undefined) return environmentOf(session, rawEnv);
  for (const store of session.stores.all()) {
    if (await findClientById(store.db, session.tenantId, id)) return store.env;
  }
  throw new AppError('not_found', `No client with id '${id}' exists in ${session.stores.all().map((s) => s.env).join(' or ')}.`);
}

async function clientsList(session: Session, values: Values): Promise<void> {
  const envs = values.env === undefined ? session.stores.all().map((s) => s.env) : [environmentOf(session, values.env)];
  const clients = [];
  for (const env of envs) {
    const rows = await allPages((page) => listClients(session.stores.get(env).db, session.tenantId, page, {}, null));
    clients.push(...rows.map((c) => presentClient(c, env)));
  }
  if (session.json) return session.out(JSON.stringify(clients, null, 2));
  if (clients.length === 0) return session.out('no clients');
  session.out(
    table([
      ['ID', 'CLIENT ID', 'ENV', 'ROLE', 'STATUS', 'NAME', 'SCOPES', 'LOCATIONS', 'RATE/MIN'],
      ...clients.map((c) => [
        c.id,
        c.clientId,
        c.environment,
        c.role,
        c.disabled ? 'disabled' : 'enabled',
        c.name,
        c.scopes.join(' '),
        c.locationIds?.join(',') ?? 'all',
        c.rateLimitPerMinute === null ? 'default' : String(c.rateLimitPerMinute),
      ]),
    ]),
  );
}

/** Role, scopes and rate limit checked up front: the schema would only say "Expected union value". */
function checkNames(values: Values): void {
  const errors: FieldError[] = [];
  if (values.role !== undefined && !(roles as readonly string[]).includes(values.role)) {
    errors.push({ field: 'role', message: `must be one of ${roles.join(', ')} (got '${values.role}')` });
  }
  const rateLimit = values['rate-limit'];
  if (rateLimit !== undefined && !(/^\d+$/.test(rateLimit) && Number(rateLimit) >= 1 && Number(rateLimit) <= 100_000_000)) {
    errors.push({ field: 'rateLimitPerMinute', message: `must be a whole number of requests per minute from 1 to 100000000 (got '${rateLimit}')` });
  }
  (list(values.scopes) ?? []).forEach((scope, i) => {
    if (!(allScopes as readonly string[]).includes(scope)) errors.push({ field: `scopes[${i}]`, message: `'${scope}' is not a scope; scopes are ${allScopes.join(' ')}` });
  });
  if (errors.length > 0) throw validationFailed(errors);
}

async function clientsCreate(session: Session, values: Values): Promise<void> {
  const env = environmentOf(session, values.env);
  checkNames(values);
  const rateLimit = values['rate-limit'];
  const body: Record<string, unknown> = {
    name: values.name,
    role: values.role,
    scopes: list(values.scopes),
    environment: env,
    ...(values.locations !== undefined ? { locationIds: list(values.locations) } : {}),
    ...(values['ip-allowlist'] !== undefined ? { ipAllowlist: list(values['ip-allowlist']) } : {}),
    ...(rateLimit !== undefined ? { rateLimitPerMinute: /^\d+$/.test(rateLimit) ? Number(rateLimit) : rateLimit } : {}),
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  const input = validateBody<CreateClientInput>(CreateClientSchema, body);
  const actor = operator(session, env);
  const { client, secret, environment } = await audited(
    session,
    env,
    'clients create',
    (trx) => clientsService.createClient({ stores: session.stores }, trx, actor, input, Date.now()),
    (r) => r.client.id,
    201,
  );
  const shown = presentClientWithSecret(client, environment, secret);
  if (session.json) return session.out(JSON.stringify(shown, null, 2));
  session.out(
    `created ${shown.role} client ${shown.id} (${shown.environment}) "${shown.name}", scopes: ${shown.scopes.join(' ')}\n` +
      `  client_id:     ${shown.clientId}\n` +
      `  client_secret: ${shown.clientSecret}\n` +
      'The secret is shown only now; store it safely.',
  );
}

async function clientsSetDisabled(session: Session, id: string, rawEnv: string | undefined, disabled: boolean): Promise<void> {
  const env = await findClientEnv(session, id, rawEnv);
  const actor = operator(session, env);
  const client = await audited(
    session,
    env,
    disabled ? 'clients disable' : 'clients enable',
    (trx) => clientsService.updateClientSettings(trx, actor, id, { disabled }, Date.now()),
    (c) => c.id,
  );
  const shown = presentClient(client, env);
  if (session.json) return session.out(JSON.stringify(shown, null, 2));
  session.out(`${disabled ? 'disabled' : 'enabled'} client ${shown.id} (${shown.clientId}, ${env})`);
}

async function clientsRotate(session: Session, id: string, rawEnv: string | undefined): Promise<void> {
  const env = await findClientEnv(session, id, rawEnv);
  const actor = operator(session, env);
  const { client, secret } = await audited(
    session,
    env,
    'clients rotate-secret',
    (trx) => clientsService.rotateClientSecret(trx, actor, id, Date.now()),
    (r) => r.client.id,
  );
  const shown = presentClientWithSecret(client, env, secret);
  if (session.json) return session.out(JSON.stringify(shown, null, 2));
  session.out(
    `rotated the secret of client ${shown.id} (${env}); the old secret and its refresh tokens no longer work\n` +
      `  client_id:     ${shown.clientId}\n` +
      `  client_secret: ${shown.clientSecret}\n` +
      'The secret is shown only now; store it safely.',
  );
}

async function locationsList(session: Session, values: Values): Promise<void> {
  const env = environmentOf(session, values.env);
  const actor = operator(session, env);
  const rows = (await allPages((page) => listLocations(session.stores.get(env).db, actor, page))).map(presentLocation);
  if (session.json) return session.out(JSON.stringify(rows, null, 2));
  if (rows.length === 0) return session.out('no locations');
  session.out(table([['ID', 'NAME', 'TIMEZONE', 'CREATED'], ...rows.map((l) => [l.id, l.name, l.timezone, l.createdAt])]));
}

async function locationsCreate(session: Session, values: Values): Promise<void> {
  const env = environmentOf(session, values.env);
  const body: Record<string, unknown> = { name: values.name, timezone: values.timezone };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  const input = validateBody<CreateLocationInput>(CreateLocationSchema, body);
  const actor = operator(session, env);
  const row = await audited(session, env, 'locations create', (trx) => createLocation(trx, actor, input, Date.now()), (r) => r.id, 201);
  const shown = presentLocation(row);
  if (session.json) return session.out(JSON.stringify(shown, null, 2));
  session.out(`created location ${shown.id} "${shown.name}" (${shown.timezone}, ${env})`);
}

function keysRotate(config: Config, json: boolean, out: (text: string) => void): void {
  const kid = openSigningKeys(config, { existingOnly: true }).rotate();
  if (json) return out(JSON.stringify({ kid }, null, 2));
  out(`added signing key ${kid}; the appliance signs with it after its next restart (older keys keep verifying until they are rotated out)`);
}

/** Opens the environments whose database already exists: the CLI never creates a data dir by mistake. */
async function openSession(config: Config, json: boolean, out: (text: string) => void): Promise<Session> {
  const stores = await openStores(config, { existingOnly: true });
  const tenant = await stores.all()[0]?.db.selectFrom('tenants').select('id').orderBy('created_at').executeTakeFirst();
  if (!tenant) {
    await stores.close();
    throw new AppError('service_unavailable', `The database in ${config.dataDir} has no tenant yet; start the appliance once to bootstrap it.`);
  }
  const audit = new AuditLog(stores, 60_000, pino({ level: 'silent' }));
  return { config, stores, tenantId: tenant.id, audit, json, out };
}

/** Runs one command line; returns the exit code. Output goes through `out`/`err` so tests could drive it in-process. */
export async function runCli(argv: string[], out: (text: string) => void, err: (text: string) => void, env: Record<string, string | undefined> = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\nRun "npm run cli -- help" for usage.`);
    return 2;
  }
  const values = parsed.values as Values;
  const { positionals } = parsed;
  const [area, action, ...rest] = positionals;
  if (values.help || area === undefined || area === 'help') {
    out(usage);
    return 0;
  }
  const command = `${area} ${action ?? ''}`.trim();
  let session: Session | undefined;
  try {
    const allowed = commandOptions[command];
    if (!allowed) throw new UsageError(`Unknown command "${command}".`);
    const given = (Object.keys(values) as (keyof Values)[]).filter((k) => k !== 'json' && k !== 'help' && values[k] !== undefined);
    const stray = given.filter((k) => !allowed.includes(k));
    if (stray.length > 0) throw new UsageError(`"${command}" does not take ${stray.map((k) => `--${k}`).join(', ')}.`);
    const id = rest[0];
    if (withId.has(command) ? rest.length !== 1 : rest.length !== 0) {
      throw new UsageError(withId.has(command) ? `"${command}" takes one client id (cli_…).` : `"${command}" takes no arguments (got "${rest.join(' ')}").`);
    }

    const config = loadConfig(env);
    if (command === 'keys rotate') {
      keysRotate(config, values.json, out);
      return 0;
    }
    session = await openSession(config, values.json, out);
    switch (command) {
      case 'clients list':
        await clientsList(session, values);
        break;
      case 'clients create':
        await clientsCreate(session, values);
        break;
      case 'clients disable':
      case 'clients enable':
        await clientsSetDisabled(session, id as string, values.env, command === 'clients disable');
        break;
      case 'clients rotate-secret':
        await clientsRotate(session, id as string, values.env);
        break;
      case 'locations list':
        await locationsList(session, values);
        break;
      case 'locations create':
        await locationsCreate(session, values);
        break;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\nRun "npm run cli -- help" for usage.`);
      return 2;
    }
    if (error instanceof AppError) {
      const fields = (error.errors ?? []).map((e: FieldError) => `${flagName(e.field)}: ${e.message}`);
      err(`error (${error.code}): ${error.message}${fields.length ? ` ${fields.join('; ')}` : ''}`);
      return 1;
    }
    err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await session?.stores.close();
  }
}

// Run only as the entry point (node dist/src/cli.js, tsx src/cli.ts), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const code = await runCli(
    process.argv.slice(2),
    (text) => process.stdout.write(`${text}\n`),
    (text) => process.stderr.write(`${text}\n`),
  );
  process.exitCode = code;
}
