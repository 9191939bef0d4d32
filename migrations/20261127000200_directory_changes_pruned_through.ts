import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * How far the change feed has been pruned: every change of a version up to this one may be gone
 * (contact_changes), so a cursor before it is 410 Gone (docs/changes.md, Retention). A column of
 * the directory's one row rather than a row of read_versions: it belongs to the directory's own
 * versions (the feed is ordered by them), and read_versions are the versions of what reads
 * show, which every ETag is made of; pruning changes no read. The pruner raises it before it
 * deletes, so a reader that sees a row gone sees the raised value too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('directory_state', (t) => {
    t.bigInteger('changes_pruned_through').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  // SQLite: a plain DROP COLUMN (3.35+), as knex would rebuild the table
  if (isMysql(knex)) await knex.schema.alterTable('directory_state', (t) => t.dropColumn('changes_pruned_through'));
  else await knex.raw('ALTER TABLE directory_state DROP COLUMN changes_pruned_through');
}
