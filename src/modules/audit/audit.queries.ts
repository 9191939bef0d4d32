import type { Knex } from 'knex';
import type { Queryable } from '../../lib/db';
import { ForbiddenError } from '../../lib/errors';
import { toIsoRequired } from '../../lib/time';
import type { AuthContext } from '../access';

/**
 * What of the audit trail a caller may see (docs/audit.md, Who sees what), as for the security
 * records: every organization, or the own one. Anyone else is refused.
 */
export type AuditScope = { kind: 'all'; organizationId?: number } | { kind: 'organization'; organizationId: number };

export function scopeOf(auth: AuthContext, requestedOrganization?: number): AuditScope {
  if (auth.permissions.has('audit.read_all')) return { kind: 'all', organizationId: requestedOrganization };
  if (auth.permissions.has('audit.read_organization')) return { kind: 'organization', organizationId: auth.organizationId };
  throw new ForbiddenError();
}

export interface AuditFilters {
  actor_id?: number;
  action?: string;
  target_type?: string;
  target_id?: number;
  from?: Date;
  to?: Date;
}

/**
 * A page of entries, newest first, one more than `limit` read to tell whether another page
 * follows. Every narrowing is an indexed column followed by `at` (the migration), so the
 * newest rows are read off the end of one index however many entries there are.
 */
export async function eventsPage(db: Queryable, scope: AuditScope, filters: AuditFilters, page: { limit: number; offset: number }) {
  const q = db('audit_events as e');
  if (scope.organizationId !== undefined) q.where('e.organization_id', scope.organizationId);
  if (filters.actor_id !== undefined) q.where('e.actor_id', filters.actor_id);
  if (filters.action !== undefined) q.where('e.action', filters.action);
  if (filters.target_type !== undefined && filters.target_id === undefined) q.where('e.target_type', filters.target_type);
  if (filters.target_id !== undefined) {
    // a bulk change is one entry with many targets: they are found through audit_event_targets
    q.whereIn('e.id', (sub: Knex.QueryBuilder) => {
      sub.from('audit_event_targets').where({ target_type: filters.target_type, target_id: filters.target_id }).select('event_id');
    });
  }
  if (filters.from) q.where('e.at', '>=', filters.from);
  if (filters.to) q.where('e.at', '<=', filters.to);
  const rows = await q.orderBy([{ column: 'e.at', order: 'desc' }, { column: 'e.id', order: 'desc' }]).limit(page.limit + 1).offset(page.offset).select('e.*');
  return { events: rows.slice(0, page.limit).map(toEvent), hasMore: rows.length > page.limit };
}

const parsed = (text: unknown) => (typeof text === 'string' ? JSON.parse(text) : null);
const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toEvent(row: Record<string, unknown>) {
  return {
    id: Number(row.id),
    at: toIsoRequired(row.at),
    actor_id: nullableNumber(row.actor_id),
    actor_role: row.actor_role ?? null,
    actor_token_id: nullableNumber(row.actor_token_id),
    organization_id: nullableNumber(row.organization_id),
    action: row.action,
    target_type: row.target_type,
    target_id: nullableNumber(row.target_id),
    changes: parsed(row.changes) ?? {},
    details: parsed(row.details),
    request_id: row.request_id ?? null,
    ip_address: row.ip_address ?? null,
    user_agent: row.user_agent ?? null,
  };
}
