import type { Queryable } from '../../lib/db';

/** `roles.permission_names` as a list (sorted, as stored). */
export function permissionList(names: unknown): string[] {
  return names ? String(names).split(',') : [];
}

/** A role's permission names, sorted (none for an unknown role). */
export async function permissionsOfRole(db: Queryable, roleId: number): Promise<string[]> {
  const role = await db('roles').where({ id: roleId }).first('permission_names');
  return permissionList(role?.permission_names);
}

/**
 * The one writer of role_permissions: grants `permissionIds` to a role, in addition to what it
 * holds or in place of it, and copies the result into `roles.permission_names`, which every
 * reader of a role's permissions uses (the session on every request). Call it in the
 * transaction of the change.
 */
export async function writeGrants(db: Queryable, roleId: number, permissionIds: readonly number[], mode: 'add' | 'replace'): Promise<void> {
  if (mode === 'replace') await db('role_permissions').where({ role_id: roleId }).delete();
  if (permissionIds.length > 0) {
    await db('role_permissions').insert(permissionIds.map((permission_id) => ({ role_id: roleId, permission_id })));
  }
  const names = await db('role_permissions as rp')
    .join('permissions as p', 'p.id', 'rp.permission_id')
    .where('rp.role_id', roleId)
    .orderBy('p.name')
    .pluck('p.name');
  await db('roles').where({ id: roleId }).update({ permission_names: names.join(',') });
}
