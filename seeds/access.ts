import type { Knex } from 'knex';
import { bumpVersion, ROLE_ID, writeGrants } from '../src/modules/access';

/** Every permission a route checks, with what it allows. */
export const PERMISSIONS: Record<string, string> = {
  'contacts.read': 'Read the contact directory',
  'contacts.create': 'Create contacts',
  'contacts.update': 'Update contacts',
  'contacts.move': 'Move contacts in the tree',
  'contacts.delete': 'Delete (deactivate) contacts',
  'contacts.bulk': 'Bulk delete and bulk move contacts',
  'contacts.import': 'Import contacts from a CSV or Excel file',
  'contacts.reset_password': "Reset a contact's password",
  'users.register': 'Register users',
  'locations.write': 'Create, update and delete locations',
  'reference.write': 'Create, update and delete units, departments, designations, ranks and roles',
  'organizations.manage': 'Create, update and delete organizations; see every organization',
  'security.read_organization': "Read the security records of the caller's organization",
  'security.read_all': 'Read the security records of every organization',
  'audit.read_organization': "Read the audit trail of the caller's organization",
  'audit.read_all': 'Read the audit trail of every organization',
  'webhooks.manage': "Manage the webhooks of the caller's organization (all organizations' with organizations.manage)",
};

/** The access table of the specification (contacts and roles) as role rows. */
export const ROLES: Array<{ id: number; name: string; description: string; permissions: string[] }> = [
  { id: ROLE_ID.superAdmin, name: 'Super_admin', description: 'Full system access', permissions: Object.keys(PERMISSIONS) },
  {
    id: ROLE_ID.admin,
    name: 'Admin',
    description: 'User management and system configuration',
    permissions: [
      'contacts.read', 'contacts.create', 'contacts.update', 'contacts.move', 'contacts.reset_password', 'contacts.import',
      'users.register', 'locations.write', 'reference.write', 'security.read_organization', 'audit.read_organization',
      'webhooks.manage',
    ],
  },
  { id: ROLE_ID.user, name: 'User', description: 'Basic access', permissions: ['contacts.read'] },
];

/**
 * Inserts what is missing of the permissions, the built-in roles and their grants (a
 * permission added in a later release reaches the built-in roles on the next start).
 */
export async function seedAccess(trx: Knex.Transaction): Promise<void> {
  const now = new Date();
  for (const [name, description] of Object.entries(PERMISSIONS)) {
    if (!(await trx('permissions').where({ name }).first('id'))) await trx('permissions').insert({ name, description });
  }
  const permissionIds = new Map<string, number>();
  for (const p of await trx('permissions').select('id', 'name')) permissionIds.set(String(p.name), Number(p.id));

  for (const role of ROLES) {
    if (!(await trx('roles').where({ id: role.id }).first('id'))) {
      await trx('roles').insert({ id: role.id, name: role.name, description: role.description, created_at: now, updated_at: now });
    }
    const granted = new Set((await trx('role_permissions').where({ role_id: role.id }).pluck('permission_id')).map(Number));
    const missing = role.permissions.map((name) => permissionIds.get(name)!).filter((id) => !granted.has(id));
    if (missing.length > 0) await writeGrants(trx, role.id, missing, 'add');
  }
  // a role's permissions may have grown: ETags of the roles list must change
  await bumpVersion(trx, 'reference');
}
