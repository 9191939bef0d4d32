import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * The directory version of each contact's last change (src/modules/contacts/tree/lock.ts
 * `changeStamp`): every write of a column that the search index holds (the searched fields,
 * unit, department, role, parent, order key, depth, activity) sets it, in the transaction that
 * holds the directory lock. The index then reads only the contacts changed since its build
 * (`WHERE change_version > ?`, this index) instead of being rebuilt or leaving searches to SQL
 * after each write (search/overlay.ts). 0: not changed since this column was added.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.bigInteger('change_version').notNullable().defaultTo(0);
    t.index(['change_version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => t.dropIndex(['change_version']));
  // SQLite: a plain DROP COLUMN (3.35+), as knex would rebuild the table
  if (isMysql(knex)) await knex.schema.alterTable('users', (t) => t.dropColumn('change_version'));
  else await knex.raw('ALTER TABLE users DROP COLUMN change_version');
}
