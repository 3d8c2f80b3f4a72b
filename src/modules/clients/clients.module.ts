import type { ModuleManifest } from '../../module-manifest.js';
import { clientRoutes } from './clients.routes.js';
import { clientsErrorCodes } from './clients.errors.js';

/** API clients (keys) of a tenant, and the tenants themselves (created with their first admin client). */
export const clientsModule: ModuleManifest<Parameters<typeof clientRoutes>[0]> = {
  name: 'clients',
  errors: clientsErrorCodes,
  sdk: {
    clients: {
      create: 'createClient',
      list: 'listClients',
      get: 'getClient',
      update: 'updateClient',
      rotateSecret: 'rotateClientSecret',
    },
  },
  routes: (deps) => clientRoutes(deps),
  tags: { Clients: 'API clients (keys) of the tenant: roles, scopes, locations, IP allowlists. Admin only.' },
  tables: ['tenants', 'api_clients'],
  access: {
    tenants: { system: "the tenant itself, read by id from the caller's token" },
    api_clients: {
      location: null,
      why: "API clients are the tenant's, managed by admins; a location-scoped admin sees those confined within its locations (location_ids, a JSON list the clients module checks)",
    },
  },
  reset: { keeps: { api_clients: 'API clients and their keys outlive a sandbox reset' } },
};
