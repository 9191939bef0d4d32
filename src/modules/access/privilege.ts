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
  const needed = await permissionsOfRole(db, roleId);
  if (needed.some((name) => !actor.permissions.has(name))) throw new ForbiddenError();
}
