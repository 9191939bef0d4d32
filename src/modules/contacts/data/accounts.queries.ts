import type { Knex } from 'knex';
import type { Queryable } from '../../../lib/db';
import { toIso, toIsoRequired } from '../../../lib/time';
import type { AccountCondition, AccountFilterField } from '../domain/account-filter';
import { userQuery, userRowColumns } from './users.queries';

/**
 * The accounts of an organization as an identity provider sees them (SCIM): active or not, but
 * not those the provider deleted (deprovisioned_at). Read by id, or a page of those matching a
 * condition (domain/account-filter.ts), in id order.
 */

const ACCOUNT_FIELDS = [
  'id', 'name', 'email', 'service_no', 'phone', 'mobile', 'alternative_mobile', 'unit_id', 'unit_name', 'department_id', 'department_name',
  'designation_id', 'designation_name', 'rank_id', 'parent_id', 'parent_name', 'role_id', 'organization_id', 'is_active', 'external_id',
  'created_at', 'updated_at',
];

export interface AccountRecord {
  id: number;
  name: string;
  email: string;
  service_no: string;
  phone: string | null;
  mobile: string | null;
  alternative_mobile: string | null;
  unit_id: number;
  unit_name: string;
  department_id: number | null;
  department_name: string | null;
  designation_id: number;
  designation_name: string;
  rank_id: number | null;
  parent_id: number | null;
  parent_name: string | null;
  role_id: number;
  organization_id: number;
  is_active: boolean;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

function toAccount(row: Record<string, unknown>): AccountRecord {
  return {
    ...(row as unknown as AccountRecord),
    ...userRowColumns(row),
    created_at: toIsoRequired(row.created_at),
    updated_at: toIso(row.updated_at) ?? toIsoRequired(row.created_at),
  };
}

const provisioned = (db: Queryable, organizationId: number) => userQuery(db, ACCOUNT_FIELDS).where('u.organization_id', organizationId).whereNull('u.deprovisioned_at');

export async function findAccount(db: Queryable, organizationId: number, id: number): Promise<AccountRecord | null> {
  const row = await provisioned(db, organizationId).where('u.id', id).first();
  return row ? toAccount(row) : null;
}

/** The contact of `organizationId` with this e-mail that its identity provider deleted, if any: a new POST of it brings it back. */
export async function deprovisionedAccountId(db: Queryable, organizationId: number, email: string): Promise<number | null> {
  const row = await db('users').where({ organization_id: organizationId, email }).whereNotNull('deprovisioned_at').first('id');
  return row ? Number(row.id) : null;
}

export async function accountsPage(db: Queryable, organizationId: number, condition: AccountCondition | null, page: { offset: number; limit: number }): Promise<{ total: number; accounts: AccountRecord[] }> {
  const where = (q: Knex.QueryBuilder) => {
    q.where('u.organization_id', organizationId).whereNull('u.deprovisioned_at');
    if (condition) q.where((w) => applyCondition(w, condition));
    return q;
  };
  const rows: Array<Record<string, unknown>> = page.limit === 0 ? [] : await where(userQuery(db, ACCOUNT_FIELDS)).orderBy('u.id').offset(page.offset).limit(page.limit);
  // a first page that is not full is the whole result (an identity provider's `userName eq`): no count
  if (page.offset === 0 && rows.length < page.limit) return { total: rows.length, accounts: rows.map(toAccount) };
  const [{ n }] = await where(db('users as u')).count({ n: '*' });
  return { total: Number(n), accounts: rows.map(toAccount) };
}

// e-mails are kept in lower case (the validators and SCIM lower them), so an exact comparison
// of a lowered value is case-insensitive and still uses the unique index; external ids compare
// exactly (RFC 7643: caseExact); other text compares in lower case
const EXACT: ReadonlySet<AccountFilterField> = new Set(['email', 'external_id', 'id', 'is_active', 'created_at', 'updated_at']);
const LIKE: Record<string, (v: string) => string> = { co: (v) => `%${v}%`, sw: (v) => `${v}%`, ew: (v) => `%${v}` };
const ORDER: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };
const escapeLike = (v: string) => v.replace(/[!%_]/g, (c) => `!${c}`);

const TEXT: ReadonlySet<AccountFilterField> = new Set(['email', 'external_id', 'name', 'service_no', 'phone', 'mobile', 'alternative_mobile']);

/**
 * Each condition becomes SQL that is true or false, never NULL, so that `not` means "not": a
 * comparison of a column holds only where the column has a value (NOT of it then keeps the rows
 * without one, as a SCIM filter means), an empty `all` is true and an empty `any` false (an
 * empty group would vanish from the SQL and its NOT would match every row).
 */
function applyCondition(q: Knex.QueryBuilder, c: AccountCondition): void {
  if ('all' in c) {
    if (c.all.length === 0) q.whereRaw('1 = 1');
    for (const part of c.all) q.where((w) => applyCondition(w, part));
  } else if ('any' in c) {
    if (c.any.length === 0) q.whereRaw('1 = 0');
    for (const part of c.any) q.orWhere((w) => applyCondition(w, part));
  } else if ('not' in c) q.whereNot((w) => applyCondition(w, c.not));
  else if ('none' in c) q.whereRaw('1 = 0');
  // present: a value, and for text a non-empty one (compared with '' only where the column is
  // text: MariaDB reads '' as 0 against a number, so `active pr` would drop inactive users)
  else if ('present' in c) {
    q.whereNotNull(`u.${c.field}`);
    if (TEXT.has(c.field)) q.whereNot(`u.${c.field}`, '');
  } else compare(q, c.field, c.op, c.value);
}

function compare(q: Knex.QueryBuilder, field: AccountFilterField, op: string, raw: string | number | boolean | Date | null): void {
  const column = `u.${field}`;
  const exact = EXACT.has(field);
  const value = typeof raw === 'string' && (!exact || field === 'email') ? raw.toLowerCase() : raw;
  if (value === null && (op === 'eq' || op === 'ne')) return void (op === 'eq' ? q.whereNull(column) : q.whereNotNull(column));
  q.whereNotNull(column);
  if (op === 'eq' || op === 'ne') {
    if (exact) return void (op === 'eq' ? q.where(column, value) : q.whereNot(column, value));
    return void q.whereRaw(`LOWER(??) ${op === 'eq' ? '=' : '<>'} ?`, [column, value]);
  }
  if (LIKE[op]) {
    const pattern = LIKE[op](escapeLike(String(value)));
    return void q.whereRaw(exact ? `?? LIKE ? ESCAPE '!'` : `LOWER(??) LIKE ? ESCAPE '!'`, [column, pattern]);
  }
  q.where(column, ORDER[op], value as Knex.Value);
}
