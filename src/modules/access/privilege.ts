import type { Queryable } from '../../lib/db';
import { ForbiddenError } from '../../lib/errors';
import { permissionsOfRole } from './grants';
import type { AuthContext } from './auth-context';

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
