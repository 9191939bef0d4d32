/**
 * The SCIM 2.0 service provider at /scim/v2 (RFC 7643, RFC 7644; docs/scim.md): an identity
 * provider (Entra ID, Okta, ...) creates, changes, deactivates and deletes the contacts of its
 * organization with an API token. It owns no table: it reads through contacts' account queries
 * and writes through ContactWrites.
 */
export { scimRouter } from './scim.router';
export { ScimUsers } from './scim.service';
