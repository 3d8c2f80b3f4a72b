import type { ModuleManifest } from '../../module-manifest.js';
import { oauthHousekeeping } from './oauth.jobs.js';
import { oauthRoutes, type OAuthRouteDeps } from './oauth.routes.js';

/** OAuth 2.0: tokens, refresh-token rotation, revocation and discovery. */
export const oauthModule: ModuleManifest<OAuthRouteDeps> = {
  name: 'oauth',
  routes: (deps) => oauthRoutes(deps),
  housekeeping: () => oauthHousekeeping(),
  tags: { OAuth: 'OAuth 2.0 client credentials, refresh-token rotation, revocation and discovery.' },
  tables: ['refresh_tokens', 'revoked_access_tokens'],
  access: {
    refresh_tokens: { location: null, why: "a client's refresh tokens, found by hash" },
    revoked_access_tokens: { system: 'revoked token ids, found by jti' },
  },
  reset: { keeps: { refresh_tokens: 'API clients and their keys outlive a sandbox reset' } },
};
