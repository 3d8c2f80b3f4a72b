import { validateBody } from '../http/validation.js';
import { createLocation, CreateLocationSchema, listLocations, presentLocation, type CreateLocationInput } from '../modules/locations/index.js';
import type { CliCommand, Values } from './command.js';
import { allPages, audited, environmentOf, operator, type Session } from './session.js';
import { table } from './table.js';

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
  const row = await audited(
    session,
    env,
    'locations create',
    (trx) => createLocation(trx, actor, input, Date.now()),
    (r) => r.id,
    201,
  );
  const shown = presentLocation(row);
  if (session.json) return session.out(JSON.stringify(shown, null, 2));
  session.out(`created location ${shown.id} "${shown.name}" (${shown.timezone}, ${env})`);
}

export const locationCommands: Record<string, CliCommand> = {
  'locations list': { options: ['env'], run: async (ctx) => locationsList(await ctx.session(), ctx.values) },
  'locations create': { options: ['env', 'name', 'timezone'], run: async (ctx) => locationsCreate(await ctx.session(), ctx.values) },
};
