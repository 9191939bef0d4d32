/**
 * The audit trail (docs/audit.md). This module owns `audit_events` and `audit_event_targets`:
 *
 * - the writing side: each change's own service records its entry through AuditTrail, in the
 *   change's transaction (with actorOf's Actor and changesOf's field changes); pruneAuditTrail
 *   for `npm run audit:prune`;
 * - the reading side: GET /api/audit-events and a contact's history (AuditLog, auditRouter).
 */
export { actorOf, type Actor } from './actor';
export { AuditTrail, type AuditEntry } from './audit-trail';
export { auditRouter } from './audit.router';
export { AuditLog } from './audit.service';
export { AUDIT_PAGE, TARGET_TYPES } from './audit.validators';
export { changesOf, isSecretField, type Changes } from './changes';
export { pruneAuditTrail } from './prune';
