import type { Knex } from 'knex';
import { createTable, timestamp } from './helpers';

/**
 * The change feed of the directory (docs/changes.md, GET /api/contacts/changes): one row per
 * contact per change, written in the change's own transaction (contacts' data writers, through
 * `lockedChange`), so a row exists exactly when its change committed.
 *
 * `version` is the directory version of the change (directory_state.version, allocated under
 * the directory lock): versions grow in commit order, so the feed is read in
 * (version, contact_id) order, the primary key, and a page is one range read of it. An
 * auto-increment id would not do: one is allocated when the row is inserted and committed
 * later, so a reader could pass it by before it commits, and miss it for good.
 *
 * `at` is for pruning (CHANGES_RETENTION_DAYS): the index ends in `version`, so the newest
 * version older than the retention is read from the index alone. No foreign key: a change
 * outlives nothing it names, and the feed never joins it for its order.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'contact_changes', (t) => {
    t.bigInteger('version').unsigned().notNullable();
    t.integer('contact_id').unsigned().notNullable();
    // created, updated, moved, deleted, restored
    t.string('type', 16).notNullable();
    t.integer('organization_id').unsigned().notNullable();
    timestamp(t, knex, 'at');
    t.primary(['version', 'contact_id']);
    t.index(['at', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('contact_changes');
}
