import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * A second counter on the directory's one row, for the contact search: bumped by every change
 * of what a search sees (a contact added, changed or deactivated), not by moves, which change
 * only where contacts sit. The in-memory search index is keyed by it, so that a move does not
 * make it old.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('directory_state', (t) => {
    t.bigInteger('search_version').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  // SQLite: a plain DROP COLUMN (3.35+), as knex would rebuild the table
  if (isMysql(knex)) await knex.schema.alterTable('directory_state', (t) => t.dropColumn('search_version'));
  else await knex.raw('ALTER TABLE directory_state DROP COLUMN search_version');
}
