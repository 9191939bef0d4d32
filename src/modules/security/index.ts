/**
 * Security records: failed sign-ins and password changes per organization, written by the
 * account flows and the contacts' password writes, read back within each caller's scope
 * (docs/api.md, Security records).
 */
export { CHANGE_TYPES, FAILED_LOGIN_REASON, recordFailedLogin, recordPasswordChange, type FailedLoginReason, type PasswordChangeType } from './security.records';
export { securityRouter } from './security.router';
export { SecurityService, TOP_COUNT } from './security.service';
export { RECENT_EVENTS, SECURITY_PAGE } from './security.validators';
