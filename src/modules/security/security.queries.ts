import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../../lib/db';
import { toIsoRequired } from '../../lib/time';
import { canonicalLoginId, scopeFailedLogins, scopePasswordChanges, type SecurityScope } from './security.scope';
import { nullableId, nullableText } from '../../lib/rows';

interface TimeFilters {
  from?: Date;
  to?: Date;
}

export interface FailedLoginFilters extends TimeFilters {
  login_id?: string;
  ip_address?: string;
  reason?: string;
}

export interface PasswordChangeFilters extends TimeFilters {
  user_id?: number;
  change_type?: string;
}

type Row = Record<string, unknown>;


/**
 * Every condition is a plain comparison on one column of the table, so that each can be served
 * by the migration's indexes ((organization_id | login_id | ip_address, attempted_at) and
 * (attempted_at)). Times are bound as Date values: DATETIME(3) on MySQL, epoch milliseconds on
 * SQLite (where knex binds a Date as its number), never compared as text.
 */
function whereTime(q: Knex.QueryBuilder, column: string, filters: TimeFilters): void {
  if (filters.from) q.where(column, '>=', filters.from);
  if (filters.to) q.where(column, '<=', filters.to);
}

/** `failed_login_attempts as f`, narrowed to the scope and the filters. */
export function failedLoginsOf(db: Queryable, scope: SecurityScope, filters: FailedLoginFilters = {}): Knex.QueryBuilder {
  const narrower = scope.kind === 'own' || Boolean(filters.login_id || filters.ip_address);
  const q = scopeFailedLogins(db('failed_login_attempts as f'), scope, { residual: narrower && dialectOf(db) === 'sqlite' });
  whereTime(q, 'f.attempted_at', filters);
  if (filters.login_id) q.where('f.login_id', canonicalLoginId(filters.login_id));
  if (filters.ip_address) q.where('f.ip_address', filters.ip_address);
  if (filters.reason) q.where('f.reason', filters.reason);
  return q;
}

/** `password_change_logs as p`, narrowed to the scope and the filters. */
export function passwordChangesOf(
  db: Queryable,
  scope: SecurityScope,
  filters: PasswordChangeFilters = {},
): Knex.QueryBuilder {
  const narrower = scope.kind === 'own' || filters.user_id !== undefined;
  const q = scopePasswordChanges(db('password_change_logs as p'), scope, { residual: narrower && dialectOf(db) === 'sqlite' });
  whereTime(q, 'p.changed_at', filters);
  if (filters.user_id !== undefined) q.where('p.user_id', filters.user_id);
  if (filters.change_type) q.where('p.change_type', filters.change_type);
  return q;
}

/**
 * One page of a filtered query, newest first, with the organization's name. The page's ids
 * are found first over the index alone (a deferred join), and only those rows are read, so a
 * deep page does not read every row it skips.
 */
function newestPage(
  db: Queryable,
  filtered: Knex.QueryBuilder,
  table: string,
  alias: string,
  timeColumn: string,
  columns: string[],
  page: { limit: number; offset: number },
): Knex.QueryBuilder {
  const ids = filtered
    .select(`${alias}.id`, `${alias}.${timeColumn} as at`)
    .orderBy([
      { column: `${alias}.${timeColumn}`, order: 'desc' },
      { column: `${alias}.id`, order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset);
  // ordered by the page's own columns, so that the database walks the page, not the table
  return db
    .from(ids.as('page'))
    .join(`${table} as r`, 'r.id', 'page.id')
    .leftJoin('organizations as o', 'o.id', 'r.organization_id')
    .select(...columns.map((c) => `r.${c}`), 'o.name as organization_name')
    .orderBy([
      { column: 'page.at', order: 'desc' },
      { column: 'page.id', order: 'desc' },
    ]);
}

/** A page of a failedLoginsOf query. */
export function failedLoginPage(db: Queryable, filtered: Knex.QueryBuilder, page: { limit: number; offset: number }) {
  const columns = ['id', 'login_id', 'organization_id', 'ip_address', 'attempted_at', 'reason'];
  return newestPage(db, filtered, 'failed_login_attempts', 'f', 'attempted_at', columns, page);
}

/** A page of a passwordChangesOf query. */
export function passwordChangePage(db: Queryable, filtered: Knex.QueryBuilder, page: { limit: number; offset: number }) {
  const columns = ['id', 'user_id', 'changed_by', 'organization_id', 'changed_at', 'change_type'];
  return newestPage(db, filtered, 'password_change_logs', 'p', 'changed_at', columns, page);
}

/** A failed sign-in record as listed (the user agent is stored, not listed). */
export function failedLoginRecord(row: Row) {
  return {
    id: Number(row.id),
    login_id: nullableText(row.login_id),
    organization_id: nullableId(row.organization_id),
    organization_name: nullableText(row.organization_name),
    ip_address: nullableText(row.ip_address),
    attempted_at: toIsoRequired(row.attempted_at),
    reason: String(row.reason),
  };
}

/** A password change record as listed (with changed_by). */
export function passwordChangeRecord(row: Row) {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    changed_by: Number(row.changed_by),
    organization_id: Number(row.organization_id),
    organization_name: nullableText(row.organization_name),
    changed_at: toIsoRequired(row.changed_at),
    change_type: String(row.change_type),
  };
}

/**
 * Rows per value of `column` (nulls left out), largest first, ties by value; the first `top`
 * if given. `distinct` is the number of values in all (a window count over the groups), so
 * one pass gives both a ranking and COUNT(DISTINCT column).
 */
export async function countsBy(
  q: Knex.QueryBuilder,
  column: string,
  top?: number,
): Promise<{ distinct: number; values: Array<{ value: string; count: number }> }> {
  if (top !== undefined) q.limit(top);
  const rows: Row[] = await q
    .whereNotNull(column)
    .select({ value: column })
    .count({ count: '*' })
    .select(q.client.raw('COUNT(*) OVER () as distinct_values'))
    .groupBy(column)
    .orderBy([
      { column: 'count', order: 'desc' },
      { column, order: 'asc' },
    ]);
  return {
    distinct: rows.length > 0 ? Number(rows[0].distinct_values) : 0,
    values: rows.map((r) => ({ value: String(r.value), count: Number(r.count) })),
  };
}
