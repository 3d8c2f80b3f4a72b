export { oauthRoutes, type OAuthRouteDeps } from './oauth.routes.js';
export { oauthHousekeeping } from './oauth.jobs.js';
export { AccessTokens, TokenError, type AccessTokenClaims, type TokenSubject } from './access-tokens.js';
export { SigningKeys } from './signing-keys.js';
export { oauthModule } from './oauth.module.js';
