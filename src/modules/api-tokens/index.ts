/**
 * API tokens: the credentials of machine clients, such as an identity provider's SCIM
 * connection (docs/scim.md). It owns the api_tokens table, the /api/api-tokens routes and the
 * middleware that authenticates a token for a scope (apiTokenAuth): a token acts as an Admin of
 * its organization, within its scopes. It imports access and audit only.
 */
export { apiTokenAuth, TOKEN_PREFIX } from './api-token-auth';
export type { ApiTokenRecord, ScimDefaults } from './api-tokens.queries';
export { apiTokensRouter } from './api-tokens.router';
export { ApiTokens } from './api-tokens.service';
export { API_TOKEN_PAGE, API_TOKEN_SCOPES } from './api-tokens.validators';
