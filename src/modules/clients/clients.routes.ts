import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ClientDirectory } from './client-directory.js';
import { listClients } from './clients.repository.js';
import { presentClient, presentClientWithSecret } from './clients.presenter.js';
import { ClientParams, ClientSchema, ClientWithSecretSchema, CreateClientSchema, ListClientsQuery, UpdateClientSchema } from './clients.schema.js';
import { createClient, getClient, rotateClientSecret, updateClientSettings, type ClientsDeps } from './clients.service.js';

const admin = ['admin'] as const;
const tags = ['Clients'];
const noStore = { 'Cache-Control': 'no-store' };

export function clientRoutes(deps: ClientsDeps & { clock: Clock; directory: ClientDirectory }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/clients',
      operationId: 'createClient',
      summary: 'Create an API client',
      description:
        'Returns the public `clientId` and the `clientSecret`, which is shown only here (and on rotation). ' +
        'Scopes must be within the role (admin: all; doctor: pets, medical, bookings, ai, analytics.read; ' +
        'staff: pets, medical.read, bookings, payments, notifications, ai.read). A live admin may create sandbox clients.',
      tags,
      access: { scope: 'admin', roles: admin },
      body: CreateClientSchema,
      response: { status: 201, description: 'The client with its secret', schema: ClientWithSecretSchema },
      errors: ['resource_missing', 'environment_not_allowed'],
      redactOnReplay: ['clientSecret'],
      handler: async ({ db, actor, body, afterCommit }) => {
        const { client, secret, environment } = await createClient(deps, db, actor, body, deps.clock.now());
        afterCommit(() => deps.directory.invalidate(environment));
        return { body: presentClientWithSecret(client, environment, secret), headers: noStore };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/clients',
      operationId: 'listClients',
      summary: "List the environment's API clients",
      tags,
      access: { scope: 'admin.read', roles: admin },
      query: ListClientsQuery,
      response: { status: 200, description: 'A page of clients', schema: pageSchema(ClientSchema) },
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listClients(db, actor.tenantId, page, { role: query.role, disabled: query.disabled }, actor.locationIds);
        return { body: toPage(rows, page, (c) => presentClient(c, actor.env)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/clients/:id',
      operationId: 'getClient',
      summary: 'Get an API client',
      tags,
      access: { scope: 'admin.read', roles: admin },
      params: ClientParams,
      response: { status: 200, description: 'The client', schema: ClientSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentClient(await getClient(db, actor, params.id), actor.env) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/clients/:id',
      operationId: 'updateClient',
      summary: 'Update or disable an API client',
      description:
        'Changes take effect on the next request, including for tokens already issued. `{"disabled": true}` stops every token of the client at once.',
      tags,
      access: { scope: 'admin', roles: admin },
      params: ClientParams,
      body: UpdateClientSchema,
      response: { status: 200, description: 'The updated client', schema: ClientSchema },
      errors: ['not_found', 'resource_missing', 'last_admin'],
      handler: async ({ db, actor, params, body, afterCommit }) => {
        const client = await updateClientSettings(db, actor, params.id, body, deps.clock.now());
        afterCommit(() => deps.directory.invalidate(actor.env));
        return { body: presentClient(client, actor.env) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/clients/:id/rotate-secret',
      operationId: 'rotateClientSecret',
      summary: 'Rotate the client secret',
      description:
        'The old secret and every token issued under it stop working at once: refresh tokens are revoked and access tokens issued before the rotation are refused (exact to the token, not to the second); a token issued after it works.',
      tags,
      access: { scope: 'admin', roles: admin },
      params: ClientParams,
      response: { status: 200, description: 'The client with its new secret', schema: ClientWithSecretSchema },
      errors: ['not_found'],
      redactOnReplay: ['clientSecret'],
      handler: async ({ db, actor, params, afterCommit }) => {
        const { client, secret } = await rotateClientSecret(db, actor, params.id, deps.clock.now());
        afterCommit(() => deps.directory.invalidate(actor.env));
        return { body: presentClientWithSecret(client, actor.env, secret), headers: noStore };
      },
    }),
  ];
}
