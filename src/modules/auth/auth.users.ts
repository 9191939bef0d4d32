import type { Queryable } from '../../lib/db';
import { nullableText } from '../../lib/rows';
import { toIso, toIsoRequired } from '../../lib/time';

/** users joined with the names that the sign-in and profile shapes show. */
export function userSummaryQuery(db: Queryable) {
  return db('users as u')
    .join('roles as r', 'r.id', 'u.role_id')
    .join('units as un', 'un.id', 'u.unit_id')
    .leftJoin('ranks as rk', 'rk.id', 'u.rank_id')
    .select(
      'u.id', 'u.name', 'u.email', 'u.service_no', 'u.branch', 'u.status', 'u.last_seen', 'u.created_at',
      'u.is_active', 'u.role_id', 'u.organization_id', 'u.token_version', 'u.password_hash',
      'r.name as role_name', 'un.name as unit_name', 'rk.name as rank_name',
    );
}

export type SummaryRow = Record<string, unknown>;

/** The sign-in user (spec 2.2). */
export function signInUser(row: SummaryRow) {
  return { ...profileUser(row), created_at: toIsoRequired(row.created_at) };
}

/** The profile read shape: spec 2.2 without created_at. */
export function profileUser(row: SummaryRow) {
  return { ...namedUser(row), status: String(row.status), last_seen: toIso(row.last_seen) };
}

/** The register shape (spec 2.2): the names of the new user, active. */
export function registeredUser(row: SummaryRow) {
  return { ...namedUser(row), is_active: 1 as const, created_at: toIsoRequired(row.created_at) };
}

/** The fields every user shape shares: who the user is, by name. */
function namedUser(row: SummaryRow) {
  return {
    id: Number(row.id),
    name: String(row.name),
    email: String(row.email),
    role: String(row.role_name),
    rank: nullableText(row.rank_name),
    service_no: String(row.service_no),
    unit: String(row.unit_name),
    branch: nullableText(row.branch),
  };
}

export function tokenSubject(row: SummaryRow) {
  return {
    id: Number(row.id),
    role_name: String(row.role_name),
    organization_id: Number(row.organization_id),
    token_version: Number(row.token_version),
  };
}
