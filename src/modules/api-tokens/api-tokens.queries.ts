import type { Queryable } from '../../lib/db';
import { nullableId } from '../../lib/rows';
import { toIso, toIsoRequired } from '../../lib/time';

/** The api_tokens table (migrations: create_api_tokens): every statement of it. */

export interface ScimDefaults {
  unit_id?: number;
  department_id?: number | null;
  designation_id?: number;
  rank_id?: number | null;
}

export interface ApiTokenRecord {
  id: number;
  name: string;
  scopes: string[];
  organization_id: number;
  prefix: string;
  scim_defaults: ScimDefaults;
  /** whether it deactivates and deletes contacts: its creator held contacts.delete then (docs/scim.md) */
  can_deactivate: boolean;
  created_by: number | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

const COLUMNS = ['id', 'name', 'scopes', 'organization_id', 'prefix', 'scim_defaults', 'can_deactivate', 'created_by', 'created_at', 'expires_at', 'last_used_at'];

function toRecord(row: Record<string, unknown>): ApiTokenRecord {
  return {
    id: Number(row.id),
    name: String(row.name),
    scopes: String(row.scopes).split(' ').filter(Boolean),
    organization_id: Number(row.organization_id),
    prefix: String(row.prefix),
    scim_defaults: row.scim_defaults ? (JSON.parse(String(row.scim_defaults)) as ScimDefaults) : {},
    can_deactivate: Boolean(Number(row.can_deactivate)),
    created_by: nullableId(row.created_by),
    created_at: toIsoRequired(row.created_at),
    expires_at: toIso(row.expires_at),
    last_used_at: toIso(row.last_used_at),
  };
}

export interface NewToken {
  name: string;
  scopes: string[];
  organization_id: number;
  token_hash: string;
  prefix: string;
  scim_defaults: ScimDefaults | null;
  can_deactivate: boolean;
  created_by: number | null;
  expires_at: Date | null;
}

export async function insertToken(db: Queryable, token: NewToken): Promise<number> {
  const [id] = await db('api_tokens').insert({
    ...token,
    scopes: token.scopes.join(' '),
    scim_defaults: token.scim_defaults ? JSON.stringify(token.scim_defaults) : null,
    created_at: new Date(),
  });
  return Number(id);
}

/** A page of the tokens not revoked, of one organization or (undefined) of all, newest first, and how many there are. */
export async function listTokens(db: Queryable, organizationId: number | undefined, page: { limit: number; offset: number }): Promise<{ rows: ApiTokenRecord[]; total: number }> {
  const live = () => {
    const q = db('api_tokens').whereNull('revoked_at');
    if (organizationId !== undefined) q.where({ organization_id: organizationId });
    return q;
  };
  const [{ n }] = await live().count({ n: '*' });
  const rows = await live().orderBy('id', 'desc').limit(page.limit).offset(page.offset).select(COLUMNS);
  return { rows: rows.map(toRecord), total: Number(n) };
}

export async function findToken(db: Queryable, id: number): Promise<ApiTokenRecord | null> {
  const row = await db('api_tokens').where({ id }).whereNull('revoked_at').first(COLUMNS);
  return row ? toRecord(row) : null;
}

export async function revokeToken(db: Queryable, id: number): Promise<boolean> {
  return (await db('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: new Date() })) > 0;
}

/**
 * The live token with this hash (not revoked, not expired), with the permissions of the Admin
 * role it acts as: read on every request, so a revocation holds at once on every instance.
 */
export async function tokenByHash(db: Queryable, hash: string, adminRoleId: number) {
  const row = await db('api_tokens as t')
    .join('roles as r', 'r.id', db.raw('?', [adminRoleId]))
    .where('t.token_hash', hash)
    .whereNull('t.revoked_at')
    .where((w) => w.whereNull('t.expires_at').orWhere('t.expires_at', '>', new Date()))
    .first([...COLUMNS.map((c) => `t.${c}`), 'r.name as role_name', 'r.permission_names']);
  return row ? { token: toRecord(row), roleName: String(row.role_name), permissionNames: row.permission_names as unknown } : null;
}

/** last_used_at, written at most once a minute per token: a busy connection does not write on every request. */
export async function touchToken(db: Queryable, id: number, now: Date): Promise<void> {
  const staleBefore = new Date(now.getTime() - 60_000);
  await db('api_tokens').where({ id }).where((w) => w.whereNull('last_used_at').orWhere('last_used_at', '<', staleBefore)).update({ last_used_at: now });
}
