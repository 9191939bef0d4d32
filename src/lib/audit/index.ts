/** The audit trail's writing side: who changed what (docs/audit.md). Reading it is the audit module. */
export { actorOf, type Actor } from './actor';
export { AuditTrail, type AuditEntry } from './audit-trail';
export { changesOf, isSecretField, type Changes } from './changes';
export { pruneAuditTrail } from './prune';
