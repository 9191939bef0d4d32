import type { Knex } from 'knex';
import { createTable } from './helpers';

/**
 * New contacts whose search grams are not written yet (src/modules/contacts/search/backlog.ts).
 * An import commits its contacts with their ids here, not with their millions of grams; the SQL
 * search takes every contact listed here as a candidate (checked by LIKE, like any other), and
 * the grams are written after the commit, each contact leaving the list in the transaction that
 * writes its grams. Empty, but for the seconds after an import.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'contact_search_backlog', (t) => {
    t.integer('contact_id').unsigned().notNullable().primary();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('contact_search_backlog');
}
