import { TtlCache } from '../../lib/cache';
import type { Queryable } from '../../lib/db';
import { ForbiddenError } from '../../lib/errors';
import { permissionsOfRole } from './grants';
import type { AuthContext } from './auth-context';

/**
 * Whether the caller reaches every organization (`organizations.manage`, a Super_admin's): who
 * may see and change them all, register into another, and write any organization's contacts
 * (docs/api.md, "Who may write what"). Anyone else acts within the own organization.
 */
export function reachesEveryOrganization(actor: Pick<AuthContext, 'permissions'>): boolean {
  return actor.permissions.has('organizations.manage');
}

/**
 * The privilege ceiling: nobody may give a role, or act on a contact holding a role, with a
 * permission they do not hold themselves. So an Admin can neither register nor promote to
 * Super_admin, nor update, move or reset the password of a Super_admin (403).
 */
export async function assertRoleWithinReach(db: Queryable, actor: AuthContext, roleId: number): Promise<void> {
  if (roleId === actor.roleId) return;
  if ((await permissionsAt(db, actor.versions.reference, roleId)).some((name) => !actor.permissions.has(name))) throw new ForbiddenError();
}

/**
 * A role's permissions as of the reference version the caller's session read, or newer: a
 * change of a role's permissions bumps that version (reference.roles.ts), so a role read once
 * serves every later check under it, instead of a read under the directory lock for each
 * change. The caller's own permissions come from the same session read; a role changed after
 * it is seen from the caller's next request, as the caller's own permissions are.
 */
function permissionsAt(db: Queryable, referenceVersion: number, roleId: number): Promise<readonly string[]> {
  return rolesRead.get(`${referenceVersion}:${roleId}`, () => permissionsOfRole(db, roleId));
}

/** Keyed by version: an hour, a few versions' roles (an older key is never asked again). */
const rolesRead = new TtlCache<readonly string[]>(60 * 60 * 1000, 64);
