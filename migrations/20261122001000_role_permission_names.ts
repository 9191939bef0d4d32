import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * Each role's permission names, comma-separated and sorted, beside the role: every
 * authenticated request reads its user's role, and this way it gets the permissions from that
 * same row instead of aggregating role_permissions each time. role_permissions stays the
 * record of grants; every statement that changes it refreshes this column in its transaction
 * (writeGrants in src/modules/access/grants.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('roles', (t) => {
    t.string('permission_names', 4000).notNullable().defaultTo('');
  });
  for (const { id } of await knex('roles').select('id')) {
    const names = await knex('role_permissions as rp')
      .join('permissions as p', 'p.id', 'rp.permission_id')
      .where('rp.role_id', id)
      .orderBy('p.name')
      .pluck('p.name');
    await knex('roles').where({ id }).update({ permission_names: names.join(',') });
  }
}

export async function down(knex: Knex): Promise<void> {
  // SQLite: a plain DROP COLUMN (3.35+). knex would rebuild the table, and dropping `roles`
  // inside the migration's transaction (foreign keys on) fails or cascades to role_permissions.
  if (isMysql(knex)) await knex.schema.alterTable('roles', (t) => t.dropColumn('permission_names'));
  else await knex.raw('ALTER TABLE roles DROP COLUMN permission_names');
}
