import type { Knex } from 'knex';
import type { AuthContext } from '../access';

/**
 * What of the security records a caller may see (docs/api.md, Who sees what). Every query of this
 * module starts from a scope, so no parameter can widen it: the only caller-given narrowing,
 * `organization_id`, is taken from callers who may read every organization, and no one else.
 */
export type SecurityScope =
  /** `security.read_all`: every organization and the records with none; optionally one of them */
  | { kind: 'all'; organizationId?: number | null }
  /** `security.read_organization`: the own organization */
  | { kind: 'organization'; organizationId: number }
  /** anyone else: the own records, within the own organization */
  | { kind: 'own'; organizationId: number; userId: number; loginIds: string[] };

/**
 * The form a login identifier is recorded and compared in: e-mail addresses (anything with an
 * `@`) in lower case, as the users table keeps them and sign-in compares them; other
 * identifiers (service numbers) as given. Comparing stored, normalized values exactly keeps
 * a case-insensitive e-mail match on the (login_id, attempted_at) index.
 */
export function canonicalLoginId(value: string): string {
  return value.includes('@') ? value.toLowerCase() : value;
}

/** The caller's scope; `requestedOrganization` is obeyed for `security.read_all` only. */
export function scopeOf(auth: AuthContext, requestedOrganization?: number | null): SecurityScope {
  if (auth.permissions.has('security.read_all')) {
    return requestedOrganization === undefined ? { kind: 'all' } : { kind: 'all', organizationId: requestedOrganization };
  }
  if (auth.permissions.has('security.read_organization')) {
    return { kind: 'organization', organizationId: auth.organizationId };
  }
  const loginIds = new Set([canonicalLoginId(auth.email), auth.serviceNo, canonicalLoginId(auth.serviceNo)]);
  return { kind: 'own', organizationId: auth.organizationId, userId: auth.userId, loginIds: [...loginIds] };
}

/**
 * `residual` keeps the organization condition out of SQLite's choice of index (a unary `+`,
 * SQLite's documented way to do that): without statistics (no ANALYZE) SQLite takes the
 * (organization_id, ...) index even when a login identifier, an address or a user, with
 * indexes of their own, narrows the rows far more. The queries ask for it on SQLite only;
 * MySQL chooses by its statistics.
 */
interface ScopeOptions {
  residual?: boolean;
}

function whereOrganization(q: Knex.QueryBuilder, column: string, organizationId: number | null | undefined, options: ScopeOptions) {
  if (organizationId === null) q.whereNull(column);
  else if (organizationId !== undefined && options.residual) q.whereRaw('+?? = ?', [column, organizationId]);
  else if (organizationId !== undefined) q.where(column, organizationId);
}

/** Narrows a query over `failed_login_attempts as f` to the scope. */
export function scopeFailedLogins(q: Knex.QueryBuilder, scope: SecurityScope, options: ScopeOptions = {}): Knex.QueryBuilder {
  whereOrganization(q, 'f.organization_id', scope.organizationId, options);
  if (scope.kind === 'own') q.whereIn('f.login_id', scope.loginIds);
  return q;
}

/** Narrows a query over `password_change_logs as p` to the scope. */
export function scopePasswordChanges(q: Knex.QueryBuilder, scope: SecurityScope, options: ScopeOptions = {}): Knex.QueryBuilder {
  whereOrganization(q, 'p.organization_id', scope.organizationId, options);
  if (scope.kind === 'own') q.where('p.user_id', scope.userId);
  return q;
}
