import type { Logger } from 'pino';
import type { Config, Environment } from '../../config.js';
import { acrossTenants, registerAccessPolicies } from '../../db/access-policy.js';
import { newId } from '../../db/ids.js';
import type { EnvironmentStore, Stores } from '../../db/stores.js';
import { currentApiVersion } from '../../http/api-versions.js';
import { allScopes } from '../../http/scopes.js';
import { seedDefaultAppointmentTypes } from '../appointments/index.js';
import { hashSecret, verifySecret } from './client-secrets.js';
import { clientsModule } from './clients.module.js';
import { countEnabledAdmins, findClientByPublicId, insertClient, updateClient } from './clients.repository.js';
import { envTag, newCredentials } from './clients.service.js';

/** One tenant (the clinic group) per appliance, with the same id in every environment. */
async function ensureTenant(stores: Stores, name: string, now: number): Promise<string> {
  let tenantId: string | undefined;
  const tenants = (store: EnvironmentStore) => acrossTenants(store.db, 'the tenants table itself, at first start');
  for (const store of stores.all()) {
    const row = await tenants(store).selectFrom('tenants').select('id').orderBy('created_at').executeTakeFirst();
    tenantId ??= row?.id;
  }
  tenantId ??= newId('ten');
  for (const store of stores.all()) {
    const row = await tenants(store).selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
    if (!row)
      await tenants(store)
        .insertInto('tenants')
        .values({ id: tenantId, name, created_at: new Date(now).toISOString() })
        .execute();
  }
  return tenantId;
}

const prefixed = /^(pk|sk)_(live|test)_/;

/**
 * The configured admin in one environment. The primary environment's admin has the configured id
 * and secret (prefixes set to that environment's). The other environment's admin (the sandbox
 * beside live) gets the matching id, `pk_live_abc` → `pk_test_abc`, but never a secret derived
 * from the live one: giving a vendor the sandbox admin must not give away live. Its secret is
 * PETCARE_SANDBOX_ADMIN_CLIENT_SECRET, else `secret: null` (generated and printed once).
 * A secret without the prefix names one client, created in the primary environment only.
 */
function credentialsFor(
  env: Environment,
  primary: Environment,
  id: string,
  secret: string,
  secondarySecret: string | undefined,
): { id: string; secret: string | null } | null {
  if (!prefixed.test(secret)) return env === primary ? { id, secret } : null;
  const swap = (value: string, kind: 'pk' | 'sk') => value.replace(prefixed, `${kind}_${envTag(env)}_`);
  const swappedId = prefixed.test(id) ? swap(id, 'pk') : id;
  if (env === primary) return { id: swappedId, secret: swap(secret, 'sk') };
  return { id: swappedId, secret: secondarySecret ?? null };
}

async function upsertAdmin(store: EnvironmentStore, tenantId: string, id: string, secret: string, now: number, logger: Logger): Promise<void> {
  const existing = await findClientByPublicId(store.db, id);
  const at = new Date(now).toISOString();
  if (existing) {
    // The environment variables are the operator's source of truth for this client.
    if (!(await verifySecret(secret, existing.secretHash))) {
      await updateClient(store.db, existing.tenantId, existing.id, { secretHash: await hashSecret(secret) }, at);
      logger.info({ env: store.env, clientId: id }, 'bootstrap admin secret updated from the environment');
    }
    return;
  }
  await insertClient(
    store.db,
    { tenantId, locationIds: null },
    {
      id: newId('cli'),
      tenantId,
      clientId: id,
      name: 'Bootstrap admin',
      role: 'admin',
      scopes: allScopes.filter((s) => !s.endsWith('.read')),
      secretHash: await hashSecret(secret),
      locationIds: null,
      ipAllowlist: null,
      rateLimitPerMinute: null,
      disabled: false,
      tokenGeneration: 0,
      apiVersion: currentApiVersion,
      createdAt: at,
      updatedAt: at,
    },
  );
  logger.info({ env: store.env, clientId: id }, 'bootstrap admin client created');
}

/**
 * First start: create the tenant, then the admin client from PETCARE_ADMIN_CLIENT_ID/_SECRET, or,
 * when those are unset and an environment has no admin yet, generate one and print it once.
 */
export async function bootstrapTenantAndAdmin(
  stores: Stores,
  config: Pick<Config, 'tenantName' | 'adminClientId' | 'adminClientSecret' | 'sandboxAdminClientSecret'>,
  logger: Logger,
  print: (text: string) => void,
  now: number = Date.now(),
): Promise<string> {
  // The bootstrap runs before the app is built (which registers every module's policy), and in tests
  // without one: it registers the policy of the table it writes through scoped() itself.
  registerAccessPolicies(clientsModule.name, clientsModule.access ?? {});
  const tenantId = await ensureTenant(stores, config.tenantName, now);
  // The default appointment catalogue (inserts only the types a tenant lacks, so it is safe at every start).
  for (const store of stores.all()) await seedDefaultAppointmentTypes(store.db, tenantId, now);
  for (const store of stores.all()) {
    if (config.adminClientId && config.adminClientSecret) {
      const primary = stores.primary().env;
      const creds = credentialsFor(store.env, primary, config.adminClientId, config.adminClientSecret, config.sandboxAdminClientSecret);
      if (!creds) continue;
      if (creds.secret !== null) {
        await upsertAdmin(store, tenantId, creds.id, creds.secret, now, logger);
        continue;
      }
      // No secret given for this environment's admin: keep the one it has, unless it is the secret
      // older releases derived from the live one (then anyone holding live's could log in here).
      const existing = await findClientByPublicId(store.db, creds.id);
      const derived = config.adminClientSecret.replace(prefixed, `sk_${envTag(store.env)}_`);
      if (existing && !(await verifySecret(derived, existing.secretHash))) continue;
      const secret = newCredentials(store.env).secret;
      await upsertAdmin(store, tenantId, creds.id, secret, now, logger);
      print(
        `\n  ${store.env} admin client ${existing ? 'secret replaced (it was derived from the live one)' : 'created'} (shown once; store it safely, ` +
          `or set PETCARE_SANDBOX_ADMIN_CLIENT_SECRET):\n    client_id:     ${creds.id}\n    client_secret: ${secret}\n`,
      );
      continue;
    }
    if ((await countEnabledAdmins(store.db, tenantId)) > 0) continue;
    const { clientId, secret } = newCredentials(store.env);
    await upsertAdmin(store, tenantId, clientId, secret, now, logger);
    print(`\n  ${store.env} admin client created (shown once; store it safely):\n` + `    client_id:     ${clientId}\n    client_secret: ${secret}\n`);
  }
  return tenantId;
}
