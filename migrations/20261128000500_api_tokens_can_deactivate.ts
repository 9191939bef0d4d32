import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * Whether an API token may deactivate and delete contacts (SCIM's `active: false` and DELETE).
 * A token holds its creator's rights, capped at an Admin's, plus deactivation only when its
 * creator may delete contacts (`contacts.delete`, a Super_admin's): recorded at creation, so
 * that a later change of the creator's role neither widens nor narrows it. Tokens made before
 * this column get it from their creator's role now, so a Super_admin's connection keeps
 * deprovisioning leavers and an Admin's stops.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_tokens', (t) => {
    t.boolean('can_deactivate').notNullable().defaultTo(false);
  });
  const rows = await knex('api_tokens as t').join('users as u', 'u.id', 't.created_by').join('roles as r', 'r.id', 'u.role_id').select('t.id', 'r.permission_names');
  const ids = rows.filter((r) => String(r.permission_names ?? '').split(',').includes('contacts.delete')).map((r) => Number(r.id));
  if (ids.length > 0) await knex('api_tokens').whereIn('id', ids).update({ can_deactivate: true });
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.schema.alterTable('api_tokens', (t) => t.dropColumn('can_deactivate'));
  else await knex.raw('ALTER TABLE api_tokens DROP COLUMN can_deactivate');
}
