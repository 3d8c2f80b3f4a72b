import type { Static } from '@sinclair/typebox';
import type { Environment } from '../../config.js';
import type { ApiClient } from './clients.repository.js';
import type { ClientSchema, ClientWithSecretSchema } from './clients.schema.js';

export const presentClient = (client: ApiClient, environment: Environment): Static<typeof ClientSchema> => ({
  id: client.id,
  clientId: client.clientId,
  name: client.name,
  role: client.role,
  scopes: client.scopes,
  environment,
  locationIds: client.locationIds,
  ipAllowlist: client.ipAllowlist,
  rateLimitPerMinute: client.rateLimitPerMinute,
  disabled: client.disabled,
  apiVersion: client.apiVersion,
  createdAt: client.createdAt,
  updatedAt: client.updatedAt,
});

export const presentClientWithSecret = (client: ApiClient, environment: Environment, secret: string): Static<typeof ClientWithSecretSchema> => ({
  ...presentClient(client, environment),
  clientSecret: secret,
});
