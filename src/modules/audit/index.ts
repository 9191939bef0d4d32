/**
 * The audit trail's reading side: GET /api/audit-events and a contact's history. Entries are
 * written by each change's own service through lib/audit's AuditTrail, in the change's
 * transaction (docs/audit.md).
 */
export { auditRouter } from './audit.router';
export { AuditLog } from './audit.service';
export { AUDIT_PAGE, TARGET_TYPES } from './audit.validators';
