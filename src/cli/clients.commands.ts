import type { Environment } from '../config.js';
import { AppError, validationFailed, type FieldError } from '../http/errors.js';
import { allScopes, roles } from '../http/scopes.js';
import { validateBody } from '../http/validation.js';
import {
  clientsService,
  CreateClientSchema,
  findClientById,
  listClients,
  presentClient,
  presentClientWithSecret,
  type CreateClientInput,
} from '../modules/clients/index.js';
import { list, type CliCommand, type Values } from './command.js';
import { allPages, audited, environmentOf, operator, type Session } from './session.js';
import { table } from './table.js';

/** The environments to look a cli_ id up in: the one named, or every enabled one. */
async function findClientEnv(session: Session, id: string, rawEnv: string | undefined): Promise<Environment> {
  if (rawEnv !== undefined) return environmentOf(session, rawEnv);
  for (const store of session.stores.all()) {
    if (await findClientById(store.db, session.tenantId, id)) return store.env;
  }
  throw new AppError(
    'not_found',
    `No client with id '${id}' exists in ${session.stores
      .all()
      .map((s) => s.env)
      .join(' or ')}.`,
  );
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
    if (!(allScopes as readonly string[]).includes(scope))
      errors.push({ field: `scopes[${i}]`, message: `'${scope}' is not a scope; scopes are ${allScopes.join(' ')}` });
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

export const clientCommands: Record<string, CliCommand> = {
  'clients list': { options: ['env'], run: async (ctx) => clientsList(await ctx.session(), ctx.values) },
  'clients create': {
    options: ['env', 'name', 'role', 'scopes', 'locations', 'ip-allowlist', 'rate-limit'],
    run: async (ctx) => clientsCreate(await ctx.session(), ctx.values),
  },
  'clients disable': { options: ['env'], takesId: true, run: async (ctx) => clientsSetDisabled(await ctx.session(), ctx.id, ctx.values.env, true) },
  'clients enable': { options: ['env'], takesId: true, run: async (ctx) => clientsSetDisabled(await ctx.session(), ctx.id, ctx.values.env, false) },
  'clients rotate-secret': { options: ['env'], takesId: true, run: async (ctx) => clientsRotate(await ctx.session(), ctx.id, ctx.values.env) },
};
