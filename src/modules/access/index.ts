/**
 * Access: who is calling and what they may do. Token signing and checking, the authenticate
 * middleware (its user read through a SessionSource that the contacts module provides),
 * permission checks, the privilege ceiling, role grants and password hashing; the caller's
 * context (AuthContext) with the versions its reads are tagged by, and their writers.
 * It imports no other module; every router uses it.
 */
export { authOf, conditionalRead, type AuthContext, type ReadVersions } from './auth-context';
export { authenticate, requirePermission, sessionLoader, type SessionLoader, type SessionRecord, type SessionSource } from './authenticate';
export { permissionList, writeGrants } from './grants';
export { PasswordHasher } from './passwords';
export { bumpVersion, versionedChange, type ReadVersion, type VersionPrecondition } from './read-versions';
export { assertRoleWithinReach, reachesEveryOrganization } from './privilege';
export { BUILT_IN_ROLE_IDS, ROLE_ID } from './roles';
export { TokenService, type TokenSettings, type TokenSubject } from './tokens';
